"""Edge semantics found by running a peer's op suite (tinygrad's test_ops, its PyTorch lambdas run
with tinygrad_lite in place of torch): promotion with Python numbers, numerics far from the
maximum, integer pooling, index order, and the exception types PyTorch raises."""

import math

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's spelling

INTS = [-4, 7, 5, 4, -7, 8, -9]


# -- a Python number is a wrapped number: int tensor (op) 3.5 is float32, not float64 ----------

@pytest.mark.parametrize("fn", [
    lambda x: x.fmod(3.5), lambda x: x % 3.5, lambda x: 100.5 % x, lambda x: x // 2.5,
    lambda x: 2.5 // x, lambda x: tl.remainder(x, 2.5), lambda x: tl.xlogy(x, 2.5),
    lambda x: tl.div(x, 2.5, rounding_mode="trunc"),
    lambda x: tl.div(x, 2.5, rounding_mode="floor"),
], ids=["fmod", "mod", "rmod", "floordiv", "rfloordiv", "remainder", "xlogy", "div-trunc",
        "div-floor"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8", "bool"])
def test_integer_tensor_with_a_python_float_is_float32(fn, dtype):
    values = [abs(v) for v in INTS] if dtype == "uint8" else INTS
    x = tl.tensor([v % 2 == 0 for v in INTS] if dtype == "bool" else values,
                  dtype=getattr(tl, dtype))
    assert fn(x).dtype == tl.float32


def test_remainder_values_follow_the_divisor_sign():
    x = tl.tensor(INTS, dtype=tl.int32)
    np.testing.assert_allclose((x % 3.5).numpy(), np.remainder(INTS, 3.5))
    np.testing.assert_allclose(x.fmod(3.5).numpy(), np.fmod(INTS, 3.5))
    np.testing.assert_allclose((100.5 % x).numpy(), np.remainder(100.5, INTS))


# -- logcumsumexp: a running logaddexp ----------------------------------------------------------

def test_logcumsumexp_is_exact_far_below_the_maximum():
    out = tl.logcumsumexp(tl.tensor([0.0, 100.0]), 0)
    np.testing.assert_array_equal(out.numpy(), [0.0, 100.0])  # (a max shift gave 0.0169)


def test_logcumsumexp_gradient_matches_its_definition():
    rng = np.random.default_rng(0)
    xv, gv = rng.standard_normal((3, 5)) * 30, rng.standard_normal((3, 5))
    x = tl.tensor(xv, requires_grad=True)
    tl.logcumsumexp(x, 1).backward(tl.tensor(gv))
    y = np.logaddexp.accumulate(xv, axis=1)
    # dx_j = sum over i >= j of g_i exp(x_j - y_i)
    want = np.array([[sum(gv[r, i] * math.exp(xv[r, j] - y[r, i]) for i in range(j, 5))
                      for j in range(5)] for r in range(3)])
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-10, atol=1e-12)
    small = tl.tensor(rng.standard_normal((2, 4)), requires_grad=True)
    assert tl.autograd.gradgradcheck(lambda t: tl.logcumsumexp(t, 1), (small,))


def test_logcumsumexp_low_precision_and_zero_dim():
    for dtype in (tl.float16, tl.bfloat16):
        out = tl.logcumsumexp(tl.tensor([1.0, 2.0], dtype=dtype), 0)
        assert out.dtype == dtype
        np.testing.assert_allclose(out.float().numpy(), [1.0, 2.3133], atol=1e-2)
    x = tl.tensor(1.5, requires_grad=True)
    x.logcumsumexp(0).backward()
    assert x.grad.item() == 1.0


# -- integer max pooling pads with the dtype's smallest value -----------------------------------

@pytest.mark.parametrize("dtype", ["int32", "int64", "uint8"])
def test_integer_max_pool_with_padding(dtype):
    x = np.arange(2 * 5 * 6).reshape(1, 2, 5, 6) % 17
    out = F.max_pool2d(tl.tensor(x, dtype=getattr(tl, dtype)), kernel_size=2, padding=1)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-1)
    want = padded[:, :, :6, :].reshape(1, 2, 3, 2, 4, 2).max(axis=(3, 5))
    assert out.dtype == getattr(tl, dtype)
    np.testing.assert_array_equal(out.numpy(), want)


# -- copysign: ``other``'s zero gradient must not turn the result NaN --------------------------

def test_copysign_with_infinite_or_nan_sign_source():
    x = tl.tensor([1.0, -2.0, 3.0], requires_grad=True)
    y = tl.tensor([math.inf, -math.inf, math.nan], requires_grad=True)
    out = tl.copysign(x, y)
    np.testing.assert_array_equal(out.detach().numpy(), [1.0, -2.0, 3.0])
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(y.grad.numpy(), [0.0, 0.0, 0.0])


# -- indexing: integers are applied first, whatever the index arrays are -------------------------

def test_int_and_array_index_keeps_pytorch_order_for_any_array_kind():
    x = tl.arange(2 * 5 * 6 * 5 * 4).reshape(2, 5, 6, 5, 4)
    d = np.array([[0, 1], [2, 3]])
    want = x[1][:, 3:11:2, tl.tensor(d), 0:2]  # one index array: its dims stay in place
    assert tuple(want.shape) == (5, 2, 2, 2, 2)
    for index in (d, d.tolist(), tl.tensor(d)):
        np.testing.assert_array_equal(x[1, :, 3:11:2, index, 0:2].numpy(), want.numpy())


def test_a_nested_tuple_in_an_index_is_an_index_array():
    x = tl.arange(2 * 5 * 6).reshape(2, 5, 6)
    np.testing.assert_array_equal(x[(1, 0), (2, 1)].numpy(), x.numpy()[[1, 0], [2, 1]])
    np.testing.assert_array_equal(x[1, (2, 1, 0), 4].numpy(), x.numpy()[1, [2, 1, 0], 4])


# -- scatter(reduce='multiply') ---------------------------------------------------------------

def test_scatter_multiply_with_a_value_and_with_a_source():
    x = tl.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    index = tl.tensor([[0, 0, 2]])
    np.testing.assert_array_equal(x.scatter(1, index, 2.0, reduce="multiply").numpy(),
                                  [[4.0, 2.0, 6.0], [4.0, 5.0, 6.0]])
    src = tl.tensor([[10.0, 3.0, -1.0]])
    np.testing.assert_array_equal(x.scatter(1, index, src, reduce="multiply").numpy(),
                                  [[30.0, 2.0, -3.0], [4.0, 5.0, 6.0]])


# -- empty tensors --------------------------------------------------------------------------------

def test_reducing_a_nonempty_dim_of_an_empty_tensor_gives_an_empty_result():
    x = tl.ones(0, 3)
    assert tuple(x.amax(1).shape) == (0,)
    assert tuple(x.argmax(1).shape) == (0,)
    assert tuple(x.max(1).values.shape) == (0,)
    assert math.isnan(tl.tensor([]).median().item())


def test_unfold_of_a_zero_dim_tensor_is_one_window():
    assert tuple(tl.tensor(3.0).unfold(0, 1, 1).shape) == (1,)


# -- exception types, as PyTorch raises them ------------------------------------------------------

@pytest.mark.parametrize("fn,error", [
    (lambda: tl.ones(4).narrow(0, 2, 3), RuntimeError),
    (lambda: tl.ones(0).max(), RuntimeError),
    (lambda: tl.ones(0).argmax(), IndexError),
    (lambda: tl.ones(0, 2).amax(0), IndexError),
    (lambda: tl.ones(0, 2).argmin(0), IndexError),
    (lambda: tl.ones(2).bitwise_not(), NotImplementedError),
    (lambda: ~tl.ones(2), TypeError),
    (lambda: tl.tensor(1.0).cummax(1), IndexError),
    (lambda: tl.tensor(1.0).logcumsumexp(1), IndexError),
    (lambda: tl.arange(8.0).unfold(1, 8, 3), IndexError),
    (lambda: F.pad(tl.ones(1, 1, 3, 3), (4, 4, 4, 4), mode="circular"), RuntimeError),
    (lambda: tl.heaviside(tl.ones(2), tl.tensor([1])), RuntimeError),
    (lambda: tl.meshgrid(tl.ones(2), indexing="bad"), RuntimeError),
    (lambda: tl.ones(2).scatter(0, tl.tensor([0]), 1.0, reduce="max"), RuntimeError),
])
def test_exception_types_match_pytorch(fn, error):
    with pytest.raises(error):
        fn()


def test_against_pytorch():
    torch = pytest.importorskip("torch")
    x = np.array(INTS, dtype=np.int32)
    for name in ("fmod", "remainder"):
        want = getattr(torch, name)(torch.tensor(x), 3.5)
        got = getattr(tl, name)(tl.tensor(x), 3.5)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy(), want.numpy())
    v = np.random.default_rng(1).standard_normal((4, 6)) * 40
    a, b = torch.tensor(v, requires_grad=True), tl.tensor(v, requires_grad=True)
    torch.logcumsumexp(a, 1).sum().backward()
    tl.logcumsumexp(b, 1).sum().backward()
    np.testing.assert_allclose(b.grad.numpy(), a.grad.numpy(), rtol=1e-10)
    xi = np.arange(4 * 2 * 11 * 28).reshape(4, 2, 11, 28) % 23
    want = torch.nn.functional.max_pool2d(torch.tensor(xi, dtype=torch.int32), 3, 2, 1,
                                          ceil_mode=True)
    got = F.max_pool2d(tl.tensor(xi, dtype=tl.int32), 3, 2, 1, ceil_mode=True)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


# -- promotion of the float-valued binary functions (found by a promotion fuzz against PyTorch) --

@pytest.mark.parametrize("fn", [
    tl.copysign, tl.ldexp, tl.nextafter, tl.logaddexp, tl.logaddexp2, tl.special.xlog1py,
    tl.special.zeta,
], ids=["copysign", "ldexp", "nextafter", "logaddexp", "logaddexp2", "xlog1py", "zeta"])
@pytest.mark.parametrize("a,b,want", [
    ("int32", "float64", "float64"), ("int32", "float16", "float16"),
    ("float16", "int64", "float16"), ("int64", "int32", "float32"),
    ("float32", "0d_float64", "float32"), ("0d_int64", "int32", "float32"),
])
def test_float_valued_binary_functions_promote_as_pytorch(fn, a, b, want):
    def make(spec):
        dtype = getattr(tl, spec.removeprefix("0d_"))
        return tl.tensor(2, dtype=dtype) if spec.startswith("0d_") else \
            tl.tensor([1, 2, 3], dtype=dtype)
    assert fn(make(a), make(b)).dtype == getattr(tl, want)


def test_integer_functions_promote_as_pytorch():
    x = tl.tensor([12, 18, 5], dtype=tl.int32)
    assert (x << tl.tensor(1)).dtype == tl.int32  # a 0-d int64 does not widen int32
    assert tl.gcd(x, tl.tensor([True, False, True])).dtype == tl.int32
    np.testing.assert_array_equal(tl.gcd(x, tl.tensor([True, False, True])).numpy(), [1, 18, 1])
    assert tl.dist(tl.ones(3), tl.zeros(3, dtype=tl.bfloat16)).dtype == tl.float32


def test_python_ints_outside_an_integer_dtype_wrap_around():
    x = tl.tensor([3, 2, 5], dtype=tl.uint8)
    np.testing.assert_array_equal((x + (-3)).numpy(), [0, 255, 2])
    np.testing.assert_array_equal((x - 300).numpy(), [215, 214, 217])
    np.testing.assert_array_equal((tl.tensor([100], dtype=tl.int8) + 200).numpy(), [44])
    # a true division takes the number as it is
    np.testing.assert_allclose((x / -3).numpy(), [-1.0, -2 / 3, -5 / 3], rtol=1e-6)
    np.testing.assert_allclose(tl.xlogy(x, -3).numpy(), np.full(3, np.nan))


def test_creating_integer_tensors_out_of_range_as_pytorch():
    np.testing.assert_array_equal(tl.tensor([-1, -129], dtype=tl.uint8).numpy(), [255, 127])
    for values, dtype in (([256], tl.uint8), ([-129], tl.int8), ([300], tl.int8)):
        with pytest.raises(RuntimeError, match="cannot be converted to type"):
            tl.tensor(values, dtype=dtype)


def test_integer_power_with_negative_exponent_tensor():
    base, exponent = tl.tensor([2, -1, 1, 0, 3, -1]), tl.tensor([-1, -1, -2, 2, -3, -2])
    np.testing.assert_array_equal((base ** exponent).numpy(), [0, -1, 1, 0, 0, 1])
    with pytest.raises(RuntimeError, match="negative integer powers"):
        tl.tensor([2, 3]) ** -1


# -- float-valued special functions of integer input ---------------------------------------------

@pytest.mark.parametrize("name", ["ndtr", "log_ndtr", "i0e", "i1e", "ndtri", "erfcx"])
def test_special_functions_take_unsigned_input_as_float(name):
    fn = getattr(tl.special, name)
    values = [0, 1, 2, 3] if name != "ndtri" else [0, 1]
    got = fn(tl.tensor(values, dtype=tl.uint8))  # (negating a uint8 would wrap around)
    want = fn(tl.tensor(values, dtype=tl.float32))
    assert got.dtype == tl.float32
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_diag_keeps_the_dtype_and_does_not_build_a_cube():
    v = tl.tensor([1, 2, 3], dtype=tl.int32)
    assert tl.diag(v).dtype == tl.int32
    np.testing.assert_array_equal(tl.diag(v, 1).numpy(), np.diag([1, 2, 3], 1))
    big = tl.ones(3000)  # a (k, n, n) product would be 27e9 elements
    assert tuple(tl.diag(big).shape) == (3000, 3000)
    x = tl.tensor([1.0, 2.0], requires_grad=True, dtype=tl.float64)
    assert tl.autograd.gradcheck(lambda t: tl.diag_embed(t, -1), (x,))
    batched = tl.diag_embed(tl.arange(6.0).reshape(2, 3), 1, 0, 2)
    assert tuple(batched.shape) == (4, 2, 4)


# -- reductions over one dim: 0-d inputs, empty inputs, a tuple where an int is taken ------------

def test_one_dim_reductions_of_a_zero_dim_tensor():
    x = tl.tensor(2.5)
    assert x.argmax(0).item() == 0 and x.argmin(-1).item() == 0
    values, indices = x.max(0)
    assert values.item() == 2.5 and indices.item() == 0
    with pytest.raises(IndexError):
        x.argmax(1)


def test_empty_reductions_as_pytorch():
    empty = tl.ones(0, 3)
    assert tl.logsumexp(empty, 0).numpy().tolist() == [-math.inf] * 3
    assert tuple(tl.logsumexp(empty, 1).shape) == (0,)
    low, high = tl.aminmax(empty, dim=1)
    assert tuple(low.shape) == tuple(high.shape) == (0,)
    for fn, error in ((lambda: tl.aminmax(empty, dim=0), IndexError),
                      (lambda: empty.mode(0), IndexError),
                      (lambda: empty.kthvalue(1, 0), IndexError),
                      (lambda: tl.ones(2).kthvalue(3), RuntimeError),
                      (lambda: tl.ones(2, 3).argmax((0, 1)), TypeError),
                      (lambda: tl.ones(2, 3).median((0, 1)), TypeError)):
        with pytest.raises(error):
            fn()


def test_small_dtype_rules_of_unary_functions():
    x = tl.tensor([0, 3, 1], dtype=tl.uint8)
    assert x.all().dtype == tl.uint8 and x.any(0).dtype == tl.uint8  # PyTorch keeps uint8
    assert x.bool().all().dtype == tl.bool
    squared = tl.tensor([True, False]).square()
    assert squared.dtype == tl.int64 and squared.numpy().tolist() == [1, 0]
    near_zero = tl.sinc(tl.tensor([2.0, 3.0], dtype=tl.bfloat16)).float().numpy()
    np.testing.assert_allclose(near_zero, 0.0, atol=1e-6)  # computed in float32


# -- NaN where PyTorch's rules put it, and nowhere else ------------------------------------------

def test_sign_of_nan_is_zero_and_of_negative_zero_positive_zero():
    # PyTorch's sign is (0 < x) - (x < 0): 0 at NaN (NumPy's is NaN), +0.0 at -0.0
    for dtype in (tl.float32, tl.float64):
        out = tl.sign(tl.tensor([float("nan"), -0.0, 0.0, -2.0, float("inf")], dtype=dtype))
        np.testing.assert_array_equal(out.numpy(), [0.0, 0.0, 0.0, -1.0, 1.0])
        assert not np.signbit(out.numpy()[:3]).any()
    assert tl.sign(tl.tensor(float("nan"))).item() == 0.0


@pytest.mark.parametrize("size", [4, 5000])
def test_logit_gradient_is_nan_outside_the_unit_interval(size):
    torch = pytest.importorskip("torch")
    values = np.resize([-0.5, 0.0, 0.25, 1.0, 1.5], size)
    for lib in (tl, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        lib.logit(x).sum().backward()
        if lib is tl:
            ours = x.grad.numpy()
        else:
            theirs = x.grad.numpy()
    np.testing.assert_array_equal(ours, theirs)  # NaN outside, +inf at 0 and 1
    x = tl.tensor(values, dtype=tl.float64, requires_grad=True)  # with eps: 0 outside
    tl.logit(x, eps=0.1).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()
    # under create_graph: the NaN outside is a constant, so its derivative there is 0
    x = tl.tensor([-0.5, 0.25], dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad(tl.logit(x).sum(), x, create_graph=True)
    (h,) = tl.autograd.grad(g.sum(), x)
    assert np.isnan(g.detach().numpy()[0]) and h.numpy()[0] == 0.0
    np.testing.assert_allclose(h.numpy()[1], (2 * 0.25 - 1) / (0.25 * 0.75) ** 2, rtol=1e-14)


@pytest.mark.parametrize("name", ["fmod", "remainder"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "bfloat16"])
def test_floating_remainders_are_exact_with_pytorch_gradients_and_names(name, dtype):
    # x - trunc(x / y) * y rounds x / y: fmod(1e20, 3) was 0 (not 1), and an infinite divisor
    # gave NaN (fmod(-2, inf) is -2, remainder(-2, inf) inf); remainder(0, -2) is +0.0
    torch = pytest.importorskip("torch")
    a = [1e20, 12345678.9, -7.5, 5.3, -1e17, 7.0, -2.0, 3.0, 0.0, -0.0, 4.0]
    b = [3.0, 0.1, 2.0, -1.1, 3.7, float("inf"), float("inf"), 0.0, -2.0, 2.0, -2.0]
    results = []
    for lib in (tl, torch):
        x = lib.tensor(a, dtype=getattr(lib, dtype), requires_grad=True)
        y = lib.tensor(b, dtype=getattr(lib, dtype), requires_grad=True)
        out = getattr(lib, name)(x, y)
        out.sum().backward()
        scalar = getattr(lib, name)(lib.tensor([5.5], requires_grad=True), 2.0)
        results.append(([t.float().detach().numpy() for t in (out, x.grad, y.grad)],
                        out.grad_fn.name(), scalar.grad_fn.name()))
    (ours, our_name, our_scalar), (theirs, their_name, their_scalar) = results
    assert (our_name, our_scalar) == (their_name, their_scalar)
    for k, (p, q) in enumerate(zip(ours, theirs)):
        np.testing.assert_array_equal(p, q)  # NaN where PyTorch has NaN
        if k == 0:  # (a NaN's sign bit is not part of the result)
            numbers = ~np.isnan(q)
            np.testing.assert_array_equal(np.signbit(p[numbers]), np.signbit(q[numbers]))


def test_logaddexp_gradients_at_infinity_follow_pytorch():
    # grad / (1 + exp(b - a)): 1 and 0 where a is +inf and b finite (the softmax form gave
    # inf / inf); the same in base 2
    torch = pytest.importorskip("torch")
    a = [float("inf"), float("inf"), -float("inf"), 1.0, -float("inf"), 2.0]
    b = [-2.0, float("inf"), -float("inf"), 1.0, 3.0, float("nan")]
    for name in ("logaddexp", "logaddexp2"):
        results = []
        for lib in (tl, torch):
            x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
            y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
            out = getattr(lib, name)(x, y)
            gx, gy = lib.autograd.grad(out.sum(), (x, y), create_graph=True)
            hx, hy = lib.autograd.grad((gx + gy).sum(), (x, y))
            results.append([t.detach().numpy() for t in (out, gx, gy, hx, hy)])
        for p, q in zip(*results):
            np.testing.assert_allclose(p, q, rtol=1e-15, atol=1e-300)


def test_abs_gradient_is_zero_at_nan_and_smooth_l1_slope_is_one_at_infinity():
    # abs: grad * sgn(x), 0 at NaN; smooth L1 under create_graph: +-1 beyond beta even for an
    # infinite difference (a product with the mask gave inf * 0)
    torch = pytest.importorskip("torch")
    for lib in (tl, torch):
        x = lib.tensor([float("nan"), -1.0, 0.0, float("inf")], dtype=lib.float64,
                       requires_grad=True)
        lib.abs(x).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), [0.0, -1.0, 0.0, 1.0])
    for name in ("smooth_l1_loss", "huber_loss"):
        results = []
        for lib in (tl, torch):
            x = lib.tensor([-float("inf"), float("inf"), 0.3, float("nan")], dtype=lib.float64,
                           requires_grad=True)
            t = lib.tensor([-2.0, 1.0, 0.0, 0.0], dtype=lib.float64)
            loss = getattr(lib.nn.functional, name)(x, t, reduction="none")
            (g,) = lib.autograd.grad(loss.sum(), x, create_graph=True)
            (h,) = lib.autograd.grad(g.sum(), x)
            results.append([g.detach().numpy(), h.numpy()])
        for p, q in zip(*results):
            np.testing.assert_array_equal(p, q)


def test_clamp_with_tensor_bounds_propagates_nan_and_routes_gradients_as_pytorch():
    # a NaN input or bound makes the value NaN (the composite kept x); the gradient still goes
    # where PyTorch's masks send it (max where x > max or the bounds cross), -0.0 kept
    torch = pytest.importorskip("torch")
    a = [1.0, -1.0, float("nan"), 2.0, 0.5, -0.0, 5.0]
    lo = [float("nan"), 0.0, 0.0, float("nan"), 0.5, -1.0, 3.0]
    hi = [3.0, float("nan"), 1.0, 1.0, 0.5, 1.0, 2.0]
    for bounds in ("both", "min", "max"):
        results = []
        for lib in (tl, torch):
            x, low, high = (lib.tensor(v, dtype=lib.float64, requires_grad=True)
                            for v in (a, lo, hi))
            out = lib.clamp(x, min=low if bounds != "max" else None,
                            max=high if bounds != "min" else None)
            out.sum().backward()
            values = out.detach().numpy()
            results.append([values, np.signbit(values[~np.isnan(values)]), x.grad.numpy()]
                           + [t.grad.numpy() for t in (low, high) if t.grad is not None])
        for p, q in zip(*results):
            np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_pool_gradient_of_an_all_minus_inf_padded_window_reaches_its_first_element(nd):
    # the NumPy path's first maximum of such a window was its padded corner, so the gradient
    # was dropped (the returned index was already PyTorch's); 2-d pools take that path on the
    # NumPy backend
    torch = pytest.importorskip("torch")
    from tinygrad_lite import _kernels

    shape = {1: (2, 3, 7), 2: (1, 2, 5, 6), 3: (1, 2, 3, 4, 5)}[nd]
    data = np.random.default_rng(nd).standard_normal(shape)
    data.flat[::3] = -np.inf
    data[..., 0] = -np.inf
    data.flat[4] = np.nan
    def pooled(lib) -> tuple:
        x = lib.tensor(data, requires_grad=True)
        out, index = getattr(lib.nn.functional, f"max_pool{nd}d")(x, 3, 2, 1, ceil_mode=True,
                                                                  return_indices=True)
        weights = lib.tensor(np.linspace(1.0, 2.0, out.numel()).reshape(tuple(out.shape)))
        (out * weights).sum().backward()
        return out.detach().numpy(), index.numpy(), x.grad.numpy()

    with _kernels.use_backend("numpy"):
        ours = pooled(tl)
    results = [ours, pooled(torch)]
    for p, q in zip(*results):
        np.testing.assert_array_equal(p, q)


@pytest.mark.parametrize("call", [
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2, dtype=lib.float64)),
    lambda lib: lib.allclose(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int32)),
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2), atol=-1),
    lambda lib: lib.isclose(lib.ones(2), lib.ones(2), rtol=-0.5),
    lambda lib: lib.allclose(lib.ones(2), lib.ones(3)),
])
def test_isclose_and_allclose_check_their_operands_as_pytorch(call):
    """No dtype promotion, no negative tolerance, shapes that broadcast: PyTorch's errors."""
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(tl)
    assert str(theirs.value).split(" at ")[0].lower()[4:] in str(ours.value).lower()
