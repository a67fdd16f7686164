"""The torch.* in-place functions (``torch.sqrt_(x)``), and the Tensor methods added with them:
addmm_ & co, the bit shifts, put, index_reduce, i0, igamma/igammac, angle, float_power_,
polygamma_, .H/.real/output_nr/dim_order, resize_, as_strided, the unsafe splits,
nonzero_static: values, gradients (through in-place changes too) and errors against PyTorch."""

import importlib.util
import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.helpers import check_grads, check_second_order

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta")
rng = np.random.default_rng(5)
POS = rng.uniform(0.2, 0.9, (3, 4))
REAL = rng.standard_normal((3, 4))
# every tl.* in-place function (torch.sqrt_ & co), as the functions' declarations make them
TORCH_INPLACE = sorted(name for name in tl.functions.__all__ if name.endswith("_"))

# torch.<name>_ in-place functions: (input array, extra arguments as (tl, torch) makers)
INPLACE_ARGS = {
    "clamp_": (REAL, lambda m: (-0.1, 0.2)), "clip_": (REAL, lambda m: (-0.1, 0.2)),
    "index_put_": (REAL, lambda m: ((m.tensor([0, 2]),), m.tensor(1.5, dtype=m.float64))),
    "clamp_max_": (REAL, lambda m: (0.2,)), "clamp_min_": (REAL, lambda m: (-0.1,)),
    "fill_": (REAL, lambda m: (2.5,)), "gcd_": (np.array([4, 6, 9]), lambda m: (m.tensor(6),)),
    "lcm_": (np.array([4, 6, 9]), lambda m: (m.tensor(6),)),
    "ldexp_": (REAL, lambda m: (m.tensor([1, 2, 0, -1]),)), "logit_": (POS, lambda m: (1e-3,)),
    "nan_to_num_": (np.array([np.nan, np.inf, -1.0]), lambda m: (0.0, 5.0, -5.0)),
    "xlogy_": (REAL, lambda m: (m.tensor(POS),)), "zero_": (REAL, lambda m: ()),
    "addmv_": (REAL[:, 0], lambda m: (m.tensor(REAL), m.tensor(REAL[0]))),
    "i0_": (REAL, lambda m: ()), "conj_physical_": (REAL, lambda m: ()),
    "resize_as_": (REAL, lambda m: (m.ones(2, 6),)),
    "as_strided_": (REAL, lambda m: ((2, 2), (1, 3), 1)),
    "acosh_": (POS + 1.0, lambda m: ()), "arccosh_": (POS + 1.0, lambda m: ()),
    "log_": (POS, lambda m: ()), "log2_": (POS, lambda m: ()), "log10_": (POS, lambda m: ()),
    "sqrt_": (POS, lambda m: ()), "rsqrt_": (POS, lambda m: ()), "reciprocal_": (POS, lambda m: ()),
}


def _fresh(lib, array):
    return lib.tensor(array.copy())


@pytest.mark.parametrize("name", TORCH_INPLACE)
def test_torch_inplace_function_matches_torch(name):
    array, make_args = INPLACE_ARGS.get(name, (POS, lambda m: ()))
    ours, theirs = _fresh(tl, array), _fresh(torch, array)
    version = ours._version_counter[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = getattr(tl, name)(ours, *make_args(tl))
        getattr(torch, name)(theirs, *make_args(torch))
    assert result is ours
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-10)
    assert ours._version_counter[0] > version or name == "conj_physical_"


@pytest.mark.parametrize("name", ["sqrt_", "tanh_", "sigmoid_", "abs_", "i0_", "square_"])
def test_inplace_function_is_recorded_for_autograd(name):
    grads = []
    for lib in (tl, torch):
        leaf = lib.tensor(POS, requires_grad=True)
        out = getattr(lib, name)(leaf * 1.5)
        (out * lib.tensor(REAL)).sum().backward()
        grads.append(leaf.grad.numpy())
        with pytest.raises(RuntimeError, match="leaf"):
            getattr(lib, name)(leaf)
    np.testing.assert_allclose(*grads, rtol=1e-10)


@pytest.mark.parametrize("name,shapes", [
    ("addmm_", [(3, 4), (3, 2), (2, 4)]), ("addmv_", [(3,), (3, 4), (4,)]),
    ("addr_", [(3, 4), (3,), (4,)]), ("addbmm_", [(3, 4), (2, 3, 5), (2, 5, 4)]),
    ("baddbmm_", [(2, 3, 4), (2, 3, 5), (2, 5, 4)]),
])
def test_add_product_inplace_methods(name, shapes):
    arrays = [rng.standard_normal(s) for s in shapes]
    results = []
    for lib in (tl, torch):
        leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
        target = leaves[0] * 1.0
        out = getattr(target, name)(leaves[1], leaves[2], beta=0.5, alpha=-2.0)
        assert out is target
        out.pow(2).sum().backward()
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in leaves])
    for a, b in zip(*results, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10)


def test_float_power_inplace_needs_float64():
    x = tl.tensor([1.5, 2.0], dtype=tl.float64)
    assert x.float_power_(2).tolist() == [2.25, 4.0]
    assert x.float_power_(tl.tensor(0.5)).tolist() == [1.5, 2.0]
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="the base given to float_power_ has dtype"):
            lib.ones(2).float_power_(2)


SHIFT_CASES = [
    lambda m: m.bitwise_left_shift(m.tensor([1, 2, -3]), 3),
    lambda m: m.bitwise_left_shift(3, m.tensor([1, 2])),
    lambda m: m.bitwise_right_shift(m.tensor([-8, 16]), 2),
    lambda m: m.tensor([1, 2], dtype=m.int8).bitwise_left_shift(m.tensor([1, 2])),
    lambda m: m.tensor([1, 2], dtype=m.int32) >> m.tensor([1, 0], dtype=m.int64),
    lambda m: m.bitwise_left_shift(m.tensor([1], dtype=m.uint8), 8),
    lambda m: m.bitwise_left_shift(m.tensor([1]), 64),
    lambda m: m.bitwise_right_shift(m.tensor([-5]), 70),
    lambda m: m.bitwise_left_shift(m.tensor([True, False]), 1),
    lambda m: m.tensor([1, 2], dtype=m.int8).bitwise_left_shift_(m.tensor([1, 2])),
    lambda m: m.tensor([64, 2], dtype=m.int16).bitwise_right_shift_(3),
]


@pytest.mark.parametrize("case", range(len(SHIFT_CASES)))
def test_bit_shifts_match_torch(case):
    ours, theirs = SHIFT_CASES[case](tl), SHIFT_CASES[case](torch)
    assert ours.tolist() == theirs.tolist()
    assert ours.numpy().dtype == theirs.numpy().dtype


def test_bit_shifts_refuse_floats():
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match="lshift_cpu"):
            lib.bitwise_left_shift(lib.tensor([1.0]), 1)


def _both(fn, *arrays, grad=()):
    """``fn(lib, *tensors)`` with both libraries: outputs and the gradients of ``grad``."""
    results = []
    for lib in (tl, torch):
        tensors = [lib.tensor(a, requires_grad=i in grad) for i, a in enumerate(arrays)]
        out = fn(lib, *tensors)
        if grad:
            (out * lib.tensor(np.arange(out.numel()).reshape(out.shape) % 3 + 1.0)
             ).sum().backward()
        results.append((out.detach().numpy(), [tensors[i].grad.numpy() for i in grad]))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-12)
    for a, b in zip(results[0][1], results[1][1], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-8, atol=1e-12)
    return results[0][0]


@pytest.mark.parametrize("accumulate", [False, True])
def test_put_matches_torch(accumulate):
    index = np.array([0, 5, -1, 3]) if not accumulate else np.array([0, 5, 5, -1])
    _both(lambda m, x, s: m.put(x, m.tensor(index), s, accumulate), REAL[:2, :3], REAL[2, :4],
          grad=(0, 1))
    _both(lambda m, x, s: (x * 1).put_(m.tensor(index), s, accumulate=accumulate),
          REAL[:2, :3], REAL[2, :4], grad=(0, 1))


def test_put_errors_match_torch():
    for lib in (tl, torch):
        x = lib.zeros(2, 3)
        with pytest.raises(IndexError, match="out of range"):
            lib.put(x, lib.tensor([0, 7]), lib.tensor([1.0, 2.0]))
        with pytest.raises(IndexError, match="same number of elements"):
            lib.put(x, lib.tensor([0, 1]), lib.tensor([1.0, 2.0, 3.0]))
        with pytest.raises(RuntimeError, match="Expected a long tensor for index"):
            lib.put(x, lib.tensor([0.0, 1.0]), lib.tensor([1.0, 2.0]))
        with pytest.raises(RuntimeError, match="same dtype"):
            lib.put(x, lib.tensor([0, 1]), lib.tensor([1.0, 2.0], dtype=lib.float64))


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_matches_torch(reduce, include_self):
    index = np.array([0, 2, 0, 3, 0])
    src = rng.standard_normal((5, 3))
    src[2, 1] = src[0, 1]  # a tie between two sources
    base = rng.standard_normal((4, 3))
    base[0, 1] = src[0, 1] if include_self else base[0, 1]  # and one with self
    src[4, 2] = 0.0  # a zero factor for prod
    _both(lambda m, x, s: x.index_reduce(0, m.tensor(index), s, reduce,
                                         include_self=include_self),
          base, src, grad=(0, 1))
    _both(lambda m, x, s: m.index_reduce(x, 1, m.tensor(index[:3]), s, reduce,
                                         include_self=include_self),
          base.T.copy(), src[:3].T.copy(), grad=(0, 1))


def test_index_reduce_integer_zero_dim_inplace_and_errors():
    for dtype in ("int64", "uint8"):
        for reduce in ("prod", "mean", "amax", "amin"):
            call = (lambda m, d=dtype, r=reduce: m.tensor([5, 1, 7], dtype=getattr(m, d))
                    .index_reduce(0, m.tensor([0, 0, 2]), m.tensor([2, 4, 3],
                                                                   dtype=getattr(m, d)), r))
            assert call(tl).tolist() == call(torch).tolist()
    assert tl.tensor(5.0).index_reduce(0, tl.tensor([0]), tl.tensor(2.0), "prod").item() == 10.0
    x = tl.ones(3)
    assert x.index_reduce_(0, tl.tensor([0, 0]), tl.tensor([2.0, 3.0]), "prod") is x
    assert x.tolist() == [6.0, 1.0, 1.0]
    cases = [
        (RuntimeError, "Expected reduce to be one of", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0]), m.ones(1), "sum")),
        (RuntimeError, "same scalar type", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0]), m.ones(1, dtype=m.float64), "mean")),
        (IndexError, "supposed to be a vector", lambda m: m.ones(3).index_reduce(
            0, m.tensor([[0]]), m.ones(1), "mean")),
        (IndexError, "index out of range", lambda m: m.ones(3).index_reduce(
            0, m.tensor([5]), m.ones(1), "mean")),
        (RuntimeError, "Number of indices", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0, 1]), m.ones(3), "mean")),
        (RuntimeError, "must match self tensor shape", lambda m: m.ones(3, 2).index_reduce(
            0, m.tensor([0, 1, 2]), m.ones(3, 3), "mean")),
        (RuntimeError, "int32/int64", lambda m: m.ones(3).index_reduce(
            0, m.tensor([0.0]), m.ones(1), "mean")),
    ]
    for error, message, call in cases:
        for lib in (tl, torch):
            with pytest.raises(error, match=message):
                call(lib)


def test_i0_igamma_angle_match_torch():
    big = np.array([0.0, 1.0, -5.0, 30.0, -0.5])
    _both(lambda m, x: m.i0(x), big, grad=(0,))
    assert tl.i0(tl.tensor([1, 2])).dtype == tl.float32
    a, x = POS * 3, POS[::-1].copy() * 2
    _both(lambda m, a_, x_: m.igamma(a_, x_), a, x, grad=(1,))
    _both(lambda m, a_, x_: a_.igammac(x_), a, x, grad=(1,))
    _both(lambda m, a_, x_: (a_ * 1).igamma_(x_), a, x, grad=(1,))
    _both(lambda m, a_, x_: m.igamma(a_, x_), a[0], x[:, :1], grad=(1,))  # broadcast
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match="igamma"):
            lib.igamma(lib.tensor([1, 2]), lib.tensor([1, 2]))
        with pytest.raises((NotImplementedError, RuntimeError)):
            at = lib.tensor(a, requires_grad=True)
            lib.igamma(at, lib.tensor(x)).sum().backward()
    check_grads(lambda t: tl.igammac(tl.tensor(a), t), x)
    check_second_order(lambda t: tl.igamma(tl.tensor(a), t), x)
    values = np.array([-1.0, 0.0, 2.0, np.nan, -np.inf, np.inf])
    _both(lambda m, t: m.angle(t), values)
    _both(lambda m, t: t.angle(), REAL, grad=(0,))
    assert tl.angle(tl.tensor([-1, 2])).tolist() == pytest.approx([np.pi, 0.0])


def test_polygamma_hardshrink_prelu_methods():
    _both(lambda m, t: (t * 1).polygamma_(2), POS + 0.5, grad=(0,))
    _both(lambda m, t: t.hardshrink(0.4), REAL, grad=(0,))
    _both(lambda m, t, w: t.prelu(w), REAL, np.array([0.1, 0.2, 0.3, -0.4]), grad=(0, 1))
    _both(lambda m, t: m.conj_physical(t) * 2, REAL, grad=(0,))
    for lib in (tl, torch):
        with pytest.raises(NotImplementedError, match="hardshrink_cpu"):
            lib.tensor([1, 2]).hardshrink()
        with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
            lib.ones(2, 3).prelu(lib.ones(2))


def test_conjugate_transpose_real_output_nr_dim_order():
    assert tuple(tl.ones(2, 3).H.shape) == tuple(torch.ones(2, 3).H.shape) == (3, 2)
    with pytest.warns(UserWarning, match="deprecated on 0-D tensors"):  # as PyTorch (once)
        assert tl.tensor(3.0).H.item() == 3.0
    for shape, match in (((2, 3, 4), "mH"), ((3,), "matrices")):
        for lib in (tl, torch):
            with pytest.raises(RuntimeError, match=match):
                _ = lib.ones(*shape).H
    x = tl.ones(3)
    assert x.real is x
    assert tl.ones(3).output_nr == 0 and (tl.ones(3, requires_grad=True) * 2).output_nr == 0
    for make in (lambda m: m.ones(2, 3), lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
                 lambda m: m.ones(2, 2).t(), lambda m: m.ones(2, 1, 4).permute(2, 0, 1)):
        assert make(tl).dim_order() == make(torch).dim_order()
    assert not tl.ones(2).is_inference() and not tl.ones(2).is_distributed()
    if importlib.util.find_spec("ml_dtypes") is None:  # bfloat16 needs it (tests/test_bfloat16.py)
        with pytest.raises(TypeError, match="bfloat16 needs the ml_dtypes package"):
            tl.ones(2).bfloat16()
    else:
        assert tl.ones(2).bfloat16().dtype == tl.bfloat16


def test_resize_family():
    for lib in (tl, torch):
        x = lib.arange(6.0)
        assert x.resize_(2, 3) is x and x.shape == (2, 3)
        y = lib.arange(6.0)
        y.resize_(2, 4)
        assert y[0].tolist() == [0.0, 1.0, 2.0, 3.0] and y.shape == (2, 4)
        z = lib.arange(6.0)
        assert z.resize_((4,)).tolist() == [0.0, 1.0, 2.0, 3.0]
        assert lib.resize_as_(lib.arange(6.0), lib.ones(3, 2)).shape == (3, 2)
        with pytest.raises(RuntimeError, match="cannot resize variables that require grad"):
            lib.ones(2, requires_grad=True).resize_(4)
        w = lib.ones(2, 3, requires_grad=True)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            r = w.resize(3, 2)
        r.sum().backward()
        assert r.shape == (3, 2) and w.grad.shape == (2, 3)
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            assert w.resize_as(lib.ones(6)).shape == (6,)
        with pytest.warns(UserWarning), pytest.raises(RuntimeError, match="resize can only"):
            w.resize(7)


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 1), ((3, 3), (1, 1), 0),
                                                ((2, 3), (3, 1), None), ((4, 2), (0, 1), 2)])
def test_as_strided_matches_torch_with_gradient(size, stride, offset):
    data = rng.standard_normal(12)
    _both(lambda m, t: t.as_strided(size, stride, offset), data, grad=(0,))
    _both(lambda m, t: m.as_strided(t.reshape(3, 4), size, stride, offset), data, grad=(0,))


@pytest.mark.parametrize("size,stride,offset", [((2, 2), (1, 2), 1), ((2, 3), (3, 1), None),
                                                ((2, 2), (6, 2), 3)])
def test_as_strided_scatter_matches_torch(size, stride, offset):
    data, src = rng.standard_normal(12), rng.standard_normal(size)
    # PyTorch 2.13 sends self's gradient to the written positions instead of the kept ones
    # (a bug): the gradient in self is checked numerically, the one in src against PyTorch
    _both(lambda m, t, s: m.as_strided_scatter(t, s, size, stride, offset), data, src,
          grad=(1,))
    check_grads(lambda t, s: tl.as_strided_scatter(t, s, size, stride, offset), data, src)
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="more than one element"):
            lib.as_strided_scatter(lib.zeros(6), lib.ones(2, 2), (2, 2), (0, 1))


def test_as_strided_errors_and_inplace():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="out of bounds for storage"):
            lib.arange(6.0).as_strided((2, 2), (1, 2), 5)
        with pytest.raises(RuntimeError, match="expected src to have a size equal"):
            lib.as_strided_scatter(lib.zeros(6), lib.ones(3), (2, 2), (1, 2))
    x = tl.arange(6.0)
    assert x.as_strided_((2, 2), (1, 2), 1) is x and x.tolist() == [[1.0, 3.0], [2.0, 4.0]]
    with pytest.raises(RuntimeError, match="requires grad"):
        tl.ones(4, requires_grad=True).as_strided_((2,), (1,))
    check_grads(lambda t: t.as_strided((3, 3), (1, 1)), np.arange(6.0))
    check_second_order(lambda t: (t.as_strided((2, 3), (2, 1), 1) ** 2), np.arange(8.0) * 0.3)


def test_unsafe_splits_and_nonzero_static():
    a = np.arange(10.0).reshape(5, 2)
    for call in (lambda m, t: m.unsafe_split(t, 2), lambda m, t: t.unsafe_chunk(3, 1),
                 lambda m, t: m.unsafe_split_with_sizes(t, [2, 3]),
                 lambda m, t: t.unsafe_split(1, dim=1)):
        ours, theirs = call(tl, tl.tensor(a)), call(torch, torch.tensor(a))
        assert [p.tolist() for p in ours] == [p.tolist() for p in theirs]
    for call in (lambda m: m.nonzero_static(m.tensor([0, 1, 0, 2]), size=4),
                 lambda m: m.tensor([[0, 1], [1, 1]]).nonzero_static(size=1, fill_value=7),
                 lambda m: m.nonzero_static(m.tensor([[0, 1], [1, 1]]), size=5, fill_value=9),
                 lambda m: m.nonzero_static(m.zeros(3), size=0)):
        ours, theirs = call(tl), call(torch)
        assert ours.tolist() == theirs.tolist() and ours.dtype == tl.int64
        assert ours.shape == tuple(theirs.shape)


def test_numpy_force_detaches_in_one_call():
    w = tl.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        w.numpy()
    out = w.numpy(force=True)
    assert np.shares_memory(out, w._data) and out.tolist() == [1.0, 1.0, 1.0]
    with tl.no_grad():
        assert w.numpy() is out
