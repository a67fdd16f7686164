"""Special functions and elementwise math at the edges of their domains, against PyTorch: zeros,
poles, infinities, NaN, huge and tiny arguments, float32/float64 and integer inputs, gradients
(first and second order) at singular points, ``out=``, and the errors for bad input. Each case
here was a difference from PyTorch found by a parity sweep."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.ops.special as ops_special

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")
EDGES = [0.0, -0.0, 1.0, -1.0, -2.0, 0.5, -0.5, 1e-30, 1e-8, 2.0, 5.5, 30.0, -30.0, 100.0, -100.0,
         700.0, 1e10, -1e10, INF, -INF, NAN]


def _same(ours, ref, rtol=1e-12, atol=0.0):
    """Values, dtype and shape equal within ``rtol``, NaN where PyTorch has NaN, and the sign of
    every zero."""
    ref = ref.detach()
    assert str(ours.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(ref.shape)
    a, b = ours.detach().numpy().astype(np.float64), ref.numpy().astype(np.float64)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    zeros = (a == 0) & (b == 0)
    assert (np.signbit(a[zeros]) == np.signbit(b[zeros])).all()


def _grads(lib, fn, data, order2=False):
    x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
    (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=order2)
    if not order2:
        return g, None
    (g2,) = lib.autograd.grad(g.sum(), x)
    return g, g2


# -- the modified Bessel functions of the first kind --------------------------------------------

@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_modified_bessel_first_kind_over_the_whole_line(name, dtype):
    # the scaled ones stay finite far out (they were inf, then NaN, from |x| = 100 on: a power
    # series that overflowed) and are 0 at infinity; the unscaled overflow where the value does
    finite = np.array([x for x in EDGES if not np.isinf(x)], dtype)
    ours = getattr(tl.special, name)(tl.tensor(finite))
    _same(ours, getattr(torch.special, name)(torch.tensor(finite)),
          rtol=2e-6 if dtype == "float32" else 1e-13)
    ends = getattr(tl.special, name)(tl.tensor([INF, -INF], dtype=getattr(tl, dtype))).numpy()
    if name.endswith("e"):
        _same(tl.tensor(ends), getattr(torch.special, name)(
            torch.tensor([INF, -INF], dtype=getattr(torch, dtype))))
    else:  # the limits (PyTorch's exp(x) * c / sqrt(x) gives inf * 0 = NaN there)
        np.testing.assert_array_equal(ends, [INF, INF] if name == "i0" else [INF, -INF])


@pytest.mark.parametrize("name", ["i0", "i0e", "i1", "i1e"])
def test_modified_bessel_first_kind_gradients_are_pytorchs(name):
    # PyTorch's rules, including 0.5 where |x| <= eps for i1 and i1e (i1 / x would be 0 / 0),
    # to second order, under the node names PyTorch gives
    points = [0.5, -0.5, 0.0, 1e-20, -3.0, 7.5, 9.0, -40.0, 100.0, -700.0]
    fn = getattr(tl.special, name)
    ref_fn = getattr(torch.special, name)
    g, g2 = _grads(tl, lambda lib, x: fn(x), points, order2=True)
    rg, rg2 = _grads(torch, lambda lib, x: ref_fn(x), points, order2=True)
    _same(g, rg, rtol=1e-12, atol=1e-300)
    _same(g2, rg2, rtol=1e-10, atol=1e-300)
    x = tl.tensor([1.0], requires_grad=True)
    assert fn(x).grad_fn.name() == ref_fn(torch.tensor([1.0], requires_grad=True)).grad_fn.name()


def test_i0_top_level_is_the_same_op_and_promotes_integers():
    x = tl.tensor([0, 3, -250, 800])
    assert tl.i0(x).dtype == tl.float32 and tl.special.i1e(x).dtype == tl.float32
    _same(tl.i0(x.double()), torch.i0(torch.tensor([0, 3, -250, 800]).double()), rtol=1e-13)
    _same(tl.special.i1e(x), torch.special.i1e(torch.tensor([0, 3, -250, 800])), rtol=2e-6)


# -- the error-function and gamma families at their edges -----------------------------------------

@pytest.mark.parametrize("scipy", [True, False], ids=["scipy", "numpy"])
def test_ndtri_in_the_far_tails(scipy, monkeypatch):
    # sqrt(2) erfinv(2p - 1) rounded 2p - 1 to -1 below p = 1e-17 (-inf at 1e-30), and gave
    # -inf for p < 0, where the value is NaN
    if not scipy:
        monkeypatch.setattr(ops_special, "scipy_special", lambda: None)
    p = [0.0, 1.0, -1e-30, 1.5, NAN, 1e-300, 1e-40, 1e-30, 1e-8, 0.025, 0.5, 0.75, 1 - 1e-10]
    if scipy:  # (the fallback's Newton steps lose digits on subnormal p)
        p.append(5e-324)
    _same(tl.special.ndtri(tl.tensor(p, dtype=tl.float64)),
          torch.special.ndtri(torch.tensor(p, dtype=torch.float64)), rtol=1e-12, atol=1e-15)
    p32 = [1e-40, 1e-30, 1e-7, 0.3, 0.999]
    _same(tl.special.ndtri(tl.tensor(p32)), torch.special.ndtri(torch.tensor(p32)), rtol=1e-6)


def test_ndtri_gradient_is_pytorchs():
    points = [1e-300, 1e-8, 0.3, 0.5, 0.9, 0.0, 1.0]
    fn = tl.special.ndtri
    g, g2 = _grads(tl, lambda lib, x: fn(x), points, order2=True)
    rg, rg2 = _grads(torch, lambda lib, x: torch.special.ndtri(x), points, order2=True)
    _same(g, rg, rtol=1e-10)
    _same(g2[:-2], rg2[:-2], rtol=1e-8)


def test_gamma_family_at_the_edges():
    x = tl.tensor([-INF, 5e-324, 1e-310, -0.0, 0.0, -3.0], dtype=tl.float64)
    tx = torch.tensor([-INF, 5e-324, 1e-310, -0.0, 0.0, -3.0], dtype=torch.float64)
    _same(tl.lgamma(x), torch.lgamma(tx), rtol=1e-14)  # lgamma(-inf) is inf, lgamma(5e-324) 744
    _same(tl.special.gammaln(x.float()), torch.special.gammaln(tx.float()), rtol=1e-6)
    # polygamma past infinitely many poles: NaN (as PyTorch's trigamma), not inf
    _same(tl.special.polygamma(1, tl.tensor([-INF, 2.5])),
          torch.special.polygamma(1, torch.tensor([-INF, 2.5])), rtol=1e-6)
    _same(tl.special.erfinv(tl.tensor([-0.0, 0.0, -1.0])),
          torch.special.erfinv(torch.tensor([-0.0, 0.0, -1.0])))


def test_multigammaln_outside_its_domain_is_the_sum_of_its_terms():
    # PyTorch 2.13 dropped the "all elements must be greater than (p-1)/2" error
    data = [0.5, 1.0, 0.75, -2.5, -3.0, 3.0]
    for p in (1, 2, 3):
        ref = torch.special.multigammaln(torch.tensor(data, dtype=torch.float64), p)
        _same(tl.special.multigammaln(tl.tensor(data, dtype=tl.float64), p), ref, rtol=1e-12)
        _same(tl.mvlgamma(tl.tensor(data, dtype=tl.float64), p), ref, rtol=1e-12)
    for fn in (tl.special.multigammaln, tl.mvlgamma):
        with pytest.raises(RuntimeError, match="p has to be greater than or equal to 1"):
            fn(tl.tensor([2.0]), 0)


def test_logit_slope_at_negative_zero_is_plus_infinity():
    g, _ = _grads(tl, lambda lib, x: lib.special.logit(x), [-0.0, 0.0, 1.0, 0.5])
    rg, _ = _grads(torch, lambda lib, x: lib.special.logit(x), [-0.0, 0.0, 1.0, 0.5])
    _same(g, rg)


@pytest.mark.parametrize("name, args", [
    ("erfcx", 1), ("ndtr", 1), ("ndtri", 1), ("log_ndtr", 1), ("entr", 1), ("i0", 1),
    ("i0e", 1), ("i1", 1), ("i1e", 1), ("xlog1py", 2), ("zeta", 2), ("gammainc", 2),
    ("gammaincc", 2), ("multigammaln", "p"),
])
def test_special_functions_take_out(name, args):
    data = np.array([0.25, 0.5, 0.75])
    if args == "p":
        ours_args, ref_args = (tl.tensor(data + 2), 2), (torch.tensor(data + 2), 2)
    else:
        ours_args = tuple(tl.tensor(data + i) for i in range(args))
        ref_args = tuple(torch.tensor(data + i) for i in range(args))
    out, ref_out = tl.empty(3, dtype=tl.float64), torch.empty(3, dtype=torch.float64)
    got = getattr(tl.special, name)(*ours_args, out=out)
    getattr(torch.special, name)(*ref_args, out=ref_out)
    assert got is out
    _same(out, ref_out, rtol=1e-12)


# -- elementwise math ------------------------------------------------------------------------------

def test_heaviside_of_nan_is_zero():
    x, v = [NAN, 0.0, -0.0, 2.0, -2.0], [0.5]
    _same(tl.heaviside(tl.tensor(x), tl.tensor(v)), torch.heaviside(torch.tensor(x),
                                                                   torch.tensor(v)))


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
def test_floor_division_of_floats_rounds_the_exact_quotient(dtype):
    # floor(x / y) gave 10 for 1 // 0.1 (Python's and PyTorch's 9), -0 for 1 // -inf (-1), and
    # inf for inf // 1 (NaN)
    v = [1.0, -1.0, 5.0, -5.0, 0.0, -0.0, INF, -INF, NAN, 0.1, -0.1, 2.5, 7.0, 1e30]
    a, b = np.array(v)[:, None], np.array(v)[None, :]
    x, y = tl.tensor(a).to(getattr(tl, dtype)), tl.tensor(b).to(getattr(tl, dtype))
    tx, ty = torch.tensor(a).to(getattr(torch, dtype)), torch.tensor(b).to(getattr(torch, dtype))
    ref = torch.floor_divide(tx, ty)
    for got in (tl.floor_divide(x, y), x // y, tl.div(x, y, rounding_mode="floor")):
        _same(got.float() if dtype == "bfloat16" else got,
              ref.float() if dtype == "bfloat16" else ref)
    _same(tl.tensor([1.0, -1.0]) // 0.1, torch.tensor([1.0, -1.0]) // 0.1)


def test_floor_division_keeps_a_zero_gradient():
    x = tl.tensor([1.0, -1.0, 3.0], requires_grad=True)
    tl.div(x, 0.1, rounding_mode="floor").sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("exponent_dtype", ["int64", "int32", "int8"])
def test_ldexp_with_an_integer_exponent_is_exact(dtype, exponent_dtype):
    # 2 ** e alone under- or overflows where the result does not: ldexp(1e38, -200) is 6.2e-23
    # in float32 (was 0), ldexp(inf, -1075) inf (was NaN), ldexp(2.5, -1075) 5e-324 (was 0)
    xs = [2.5, -2.5, 3.0, INF, -INF, NAN, 0.0, -0.0, 1e38, 6e4, 1e-3]
    es = [-1075, -1074, -200, -149, -24, 0, 1, 15, 127, 128, 1024, 2000, -3000]
    a = np.array(xs, np.float64)[:, None]
    e = np.array(es)[None, :]
    if exponent_dtype == "int8":
        e = np.clip(e, -128, 127)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (PyTorch warns about resizing its broadcast output)
        ref = torch.ldexp(torch.tensor(a).to(getattr(torch, dtype)),
                          torch.tensor(e).to(getattr(torch, exponent_dtype)))
    got = tl.ldexp(tl.tensor(a).to(getattr(tl, dtype)), tl.tensor(e).to(getattr(tl,
                                                                              exponent_dtype)))
    _same(got.float() if dtype == "bfloat16" else got, ref.float() if dtype == "bfloat16" else ref)
    x = tl.tensor([1.0, 2.0], dtype=tl.float64, requires_grad=True)
    tl.ldexp(x, tl.tensor([3, -1])).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, 0.5])


def test_half_precision_sinc_and_round_compute_in_float32():
    # pi * x rounded to float16 missed sinc's zeros at the integers; 123.44 * 1000 overflowed
    x = [1.0, -1.0, 3.0, 0.999, 0.5]
    _same(tl.special.sinc(tl.tensor(x, dtype=tl.float16)),
          torch.special.sinc(torch.tensor(x, dtype=torch.float16)))
    y = [123.44, 65.5, -0.125]
    _same(tl.round(tl.tensor(y, dtype=tl.float16), decimals=3),
          torch.round(torch.tensor(y, dtype=torch.float16), decimals=3))


@pytest.mark.parametrize("decimals", [400, -400, 308, -308])
def test_round_with_huge_decimals(decimals):
    x = [1234.5, 15.0, 0.0]
    _same(tl.round(tl.tensor(x, dtype=tl.float64), decimals=decimals),
          torch.round(torch.tensor(x, dtype=torch.float64), decimals=decimals))


def test_softmax_with_dtype_of_bfloat16_input_returns_that_dtype():
    # the bfloat16 wrapper rounded the float32 result back to bfloat16
    x, tx = tl.tensor([1.0, 2.0, 3.0]).bfloat16(), torch.tensor([1.0, 2.0, 3.0]).bfloat16()
    F, TF = tl.nn.functional, torch.nn.functional
    pairs = [(tl.special.softmax(x, 0, dtype=tl.float32),
              torch.special.softmax(tx, 0, dtype=torch.float32)),
             (tl.special.log_softmax(x, 0, dtype=tl.float64),
              torch.special.log_softmax(tx, 0, dtype=torch.float64)),
             (F.softmax(x, 0, dtype=tl.float32), TF.softmax(tx, 0, dtype=torch.float32)),
             (F.log_softmax(x, 0, dtype=tl.float32), TF.log_softmax(tx, 0, dtype=torch.float32)),
             (x.softmax(0, dtype=tl.float32), tx.softmax(0, dtype=torch.float32))]
    for ours, ref in pairs:
        _same(ours, ref, rtol=1e-6)
    assert F.softmax(x, 0).dtype == tl.bfloat16 and tl.log_softmax(x, 0).dtype == tl.bfloat16


# -- errors for bad input ------------------------------------------------------------------------

def _raises_as_torch(ours, ref, match):
    with pytest.raises(Exception) as expected:
        ref()
    with pytest.raises(type(expected.value), match=match):
        ours()


def test_positive_refuses_bool():
    msg = "The `\\+` operator, on a bool tensor is not supported"
    _raises_as_torch(lambda: tl.positive(tl.tensor([True])),
                     lambda: torch.positive(torch.tensor([True])), msg)
    _raises_as_torch(lambda: +tl.tensor([True]), lambda: +torch.tensor([True]), msg)
    x = tl.tensor([1.0, -2.0])
    assert tl.positive(x) is x and (+x) is x


@pytest.mark.parametrize("name, a, b, kind", [
    ("gcd", [1.5], [2.0], "Float"), ("lcm", [4], [2.0], "Float"), ("gcd", [True], [False], "Bool"),
])
def test_gcd_and_lcm_refuse_non_integers(name, a, b, kind):
    _raises_as_torch(lambda: getattr(tl, name)(tl.tensor(a), tl.tensor(b)),
                     lambda: getattr(torch, name)(torch.tensor(a), torch.tensor(b)),
                     f"\"{name}_cpu\" not implemented for '{kind}'")


def test_shift_of_floats_names_pytorchs_dtype():
    _raises_as_torch(lambda: tl.bitwise_left_shift(tl.tensor([1.0]), 2),
                     lambda: torch.bitwise_left_shift(torch.tensor([1.0]), 2),
                     "\"lshift_cpu\" not implemented for 'Float'")


@pytest.mark.parametrize("name", ["round", "floor", "ceil", "trunc"])
def test_rounding_refuses_bool(name):
    _raises_as_torch(lambda: getattr(tl, name)(tl.tensor([True])),
                     lambda: getattr(torch, name)(torch.tensor([True])),
                     f"\"{name}_vml_cpu\" not implemented for 'Bool'")
    _raises_as_torch(lambda: tl.round(tl.tensor([1, 2]), decimals=1),
                     lambda: torch.round(torch.tensor([1, 2]), decimals=1),
                     "\"round_cpu\" not implemented for")


def test_polygamma_takes_an_int_order():
    _raises_as_torch(lambda: tl.polygamma(1.5, tl.tensor([1.0])),
                     lambda: torch.polygamma(1.5, torch.tensor([1.0])),
                     "polygamma\\(\\): argument 'n' \\(position 1\\) must be int, not float")
    _raises_as_torch(lambda: tl.special.polygamma(-1, tl.tensor([1.0])),
                     lambda: torch.special.polygamma(-1, torch.tensor([1.0])),
                     "polygamma\\(n, x\\) does not support negative n")


def test_clamp_with_bounds_that_do_not_broadcast():
    _raises_as_torch(lambda: tl.clamp(tl.tensor([1.0, 2.0, 3.0]), min=tl.tensor([0.5, 2.5])),
                     lambda: torch.clamp(torch.tensor([1.0, 2.0, 3.0]),
                                         min=torch.tensor([0.5, 2.5])),
                     "the size of tensor a \\(3\\) must match the size of tensor b \\(2\\)")


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_of_integers_raises_pytorchs_error_type(name):
    _raises_as_torch(lambda: getattr(tl.special, name)(tl.tensor([1, 2]), 0),
                     lambda: getattr(torch.special, name)(torch.tensor([1, 2]), 0),
                     f"{name}: not implemented for integer or bool tensors")


def test_polygamma_method_and_keyword_forms():
    x, tx = tl.tensor([0.5, 1.5, 4.0]), torch.tensor([0.5, 1.5, 4.0])
    _same(x.polygamma(1), tx.polygamma(1), rtol=1e-6)  # (the method took self as n)
    _same(tl.polygamma(2, input=x), torch.polygamma(2, input=tx), rtol=1e-6)
    _same(x.clone().polygamma_(1), tx.clone().polygamma_(1), rtol=1e-6)


@pytest.mark.parametrize("data", [[1, 2], [True, False]])
def test_nan_to_num_of_integers_is_a_copy(data):
    x, tx = tl.tensor(data), torch.tensor(data)
    y, ty = tl.nan_to_num(x), torch.nan_to_num(tx)
    assert (y is x) == (ty is tx) is False
    y[0], ty[0] = 0, 0  # (writes to the result must not reach the input)
    np.testing.assert_array_equal(x.numpy(), tx.numpy())


@pytest.mark.parametrize("data, kind", [([1, -2], "Long"), ([True], "Bool")])
def test_frac_refuses_integers(data, kind):
    _raises_as_torch(lambda: tl.frac(tl.tensor(data)), lambda: torch.frac(torch.tensor(data)),
                     f"\"frac_cpu\" not implemented for '{kind}'")
