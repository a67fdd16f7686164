"""Pooling against PyTorch: max and average pooling (ceil_mode, 3-d), adaptive, Lp and
fractional max pooling, max unpooling (float64 values, gradients, indices, errors), plus float64
gradient checks to second order. (The error table also holds the 3-d convolutions' errors.)"""

import numpy as np
import pytest
from helpers import check_grads, check_second_order

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tests.oracle import compare, rng
from tinygrad_lite import nn

torch = pytest.importorskip("torch")
TF = torch.nn.functional


MAX_CASES = [  # nd, shape, kernel, stride, padding, dilation, ceil_mode
    (1, (2, 3, 10), 3, 2, 1, 1, True), (1, (2, 3, 9), 2, None, 0, 1, True),
    (1, (3, 11), 4, 3, 2, 2, True), (2, (2, 2, 7, 6), 3, 2, 1, 1, True),
    (2, (2, 2, 7, 8), (2, 3), (2, 2), (1, 0), 1, True), (2, (2, 2, 9, 8), 2, None, 0, 1, True),
    (2, (1, 2, 8, 7), 3, (3, 2), 1, (1, 2), True), (2, (2, 6, 6), 2, 1, 1, 1, False),
    (3, (2, 2, 5, 6, 7), 2, None, 0, 1, False), (3, (2, 2, 5, 6, 7), 3, 2, 1, 1, True),
    (3, (2, 5, 5, 4), (2, 3, 2), (2, 2, 3), (1, 1, 0), 1, True),
    (3, (1, 2, 6, 7, 5), 2, 2, 0, (2, 1, 1), False), (3, (1, 2, 4, 4, 4), 2, None, 0, 1, True)]


AVG_CASES = [  # nd, shape, kernel, stride, padding, ceil_mode
    (1, (2, 3, 10), 3, 2, 1, True), (1, (3, 9), 2, None, 0, True), (1, (2, 2, 11), 4, 3, 2, True),
    (2, (2, 2, 7, 6), 3, 2, 1, True), (2, (2, 2, 7, 8), (2, 3), (2, 2), (1, 0), True),
    (2, (1, 2, 8, 7), 3, (3, 2), 1, True), (2, (2, 6, 5), 2, 1, 1, False),
    (3, (2, 2, 5, 6, 7), 2, None, 0, False), (3, (2, 2, 5, 6, 7), 3, 2, 1, True),
    (3, (2, 5, 5, 4), (2, 3, 2), (2, 2, 3), (1, 1, 0), True)]


@pytest.mark.parametrize("nd,shape,k,s,p,d,ceil", MAX_CASES)
def test_max_pool_matches_torch_with_indices(nd, shape, k, s, p, d, ceil):
    x = rng(6).integers(-3, 4, shape).astype(np.float64)  # ties inside windows
    x.flat[3] = np.nan
    ours, theirs = getattr(F, f"max_pool{nd}d"), getattr(TF, f"max_pool{nd}d")
    compare(lambda a: ours(a, k, s, p, d, ceil, True), lambda a: theirs(a, k, s, p, d, ceil, True),
             x)
    compare(lambda a: getattr(F, f"max_pool{nd}d_with_indices")(a, k, s, p, d, ceil),
             lambda a: theirs(a, k, s, p, d, ceil, True), x, grad=False)
    module = getattr(nn, f"MaxPool{nd}d")(k, s, p, d, ceil_mode=ceil)
    assert repr(module) == repr(getattr(torch.nn, f"MaxPool{nd}d")(k, s, p, d, ceil_mode=ceil))
    np.testing.assert_array_equal(module(tl.tensor(x)).numpy(),
                                  theirs(torch.tensor(x), k, s, p, d, ceil).numpy())


def test_max_pool_all_minus_inf_window_indices_name_real_elements():
    x = np.full((1, 1, 5, 5), -np.inf)
    compare(lambda a: F.max_pool2d(a, 3, 2, 1, 2, True, True),
             lambda a: TF.max_pool2d(a, 3, 2, 1, 2, True, True), x, grad=False)


@pytest.mark.parametrize("nd,shape,k,s,p,ceil", AVG_CASES)
@pytest.mark.parametrize("include_pad", [True, False])
def test_avg_pool_matches_torch(nd, shape, k, s, p, ceil, include_pad):
    x = rng(7).standard_normal(shape)
    ours, theirs = getattr(F, f"avg_pool{nd}d"), getattr(TF, f"avg_pool{nd}d")
    compare(lambda a: ours(a, k, s, p, ceil, include_pad),
             lambda a: theirs(a, k, s, p, ceil, include_pad), x)
    if nd > 1:
        compare(lambda a: ours(a, k, s, p, ceil, include_pad, 5),
                 lambda a: theirs(a, k, s, p, ceil, include_pad, 5), x)
    module = getattr(nn, f"AvgPool{nd}d")(k, s, p, ceil, include_pad)
    reference = getattr(torch.nn, f"AvgPool{nd}d")(k, s, p, ceil, include_pad)
    assert repr(module) == repr(reference)
    np.testing.assert_allclose(module(tl.tensor(x)).numpy(), reference(torch.tensor(x)).numpy(),
                               rtol=1e-12)


def test_pool_ceil_mode_and_3d_gradients_to_second_order():
    x = rng(8).standard_normal((1, 2, 5, 4, 5))  # distinct values: max is smooth
    for fn in (lambda a: F.max_pool3d(a, 2, 2, 1, ceil_mode=True) ** 2,
               lambda a: F.avg_pool3d(a, 3, 2, 1, True, False) ** 2,
               lambda a: F.max_pool2d(a[0], 3, 2, 1, ceil_mode=True) ** 2,
               lambda a: F.avg_pool1d(a[0, 0], 2, 2, 1, True) ** 2):
        check_grads(fn, x)
        check_second_order(fn, x)


ADAPTIVE_CASES = [  # nd, shape, output_size
    (1, (2, 3, 10), 4), (1, (3, 7), 3), (1, (2, 3, 8), 4), (1, (2, 2, 5), 7),
    (2, (2, 3, 7, 5), (3, 2)), (2, (2, 3, 8, 6), 4), (2, (3, 9, 5), (None, 3)),
    (2, (1, 2, 6, 6), 1), (2, (1, 2, 6, 4), (3, 2)),
    (3, (2, 2, 5, 7, 6), (2, 3, 4)), (3, (2, 5, 4, 3), 2), (3, (1, 2, 4, 6, 5), (None, 3, None)),
    (3, (1, 2, 4, 6, 6), (2, 3, 2))]


@pytest.mark.parametrize("nd,shape,size", ADAPTIVE_CASES)
def test_adaptive_pools_match_torch(nd, shape, size):
    r = rng(10)
    x = r.standard_normal(shape)
    compare(lambda a: getattr(F, f"adaptive_avg_pool{nd}d")(a, size),
             lambda a: getattr(TF, f"adaptive_avg_pool{nd}d")(a, size), x)
    ties = r.integers(-2, 3, shape).astype(np.float64)
    ties.flat[2] = np.nan
    for data in (x, ties):
        compare(lambda a: getattr(F, f"adaptive_max_pool{nd}d")(a, size, True),
                 lambda a: getattr(TF, f"adaptive_max_pool{nd}d")(a, size, True), data)
        compare(lambda a: getattr(F, f"adaptive_max_pool{nd}d_with_indices")(a, size),
                 lambda a: getattr(TF, f"adaptive_max_pool{nd}d")(a, size, True), data,
                 grad=False)
    for cls, args in ((f"AdaptiveAvgPool{nd}d", (size,)), (f"AdaptiveMaxPool{nd}d", (size,))):
        module, reference = getattr(nn, cls)(*args), getattr(torch.nn, cls)(*args)
        assert repr(module) == repr(reference)
        np.testing.assert_allclose(module(tl.tensor(x)).numpy(),
                                   reference(torch.tensor(x)).numpy(), rtol=1e-12)
    vals, idx = nn.AdaptiveMaxPool1d(3, return_indices=True)(tl.tensor(x.reshape(-1, shape[-1])))
    assert tuple(idx.shape) == tuple(vals.shape)


def test_adaptive_gradients_to_second_order():
    x = rng(11).standard_normal((1, 2, 5, 7, 3))
    for fn in (lambda a: F.adaptive_max_pool3d(a, (2, 3, 2)) ** 2,
               lambda a: F.adaptive_avg_pool3d(a, (3, 4, 2)) ** 2,
               lambda a: F.adaptive_max_pool2d(a[0], (3, 2)) ** 2,
               lambda a: F.adaptive_max_pool1d(a[0, 0], 3) ** 2):
        check_grads(fn, x)
        check_second_order(fn, x)


LP_CASES = [  # nd, shape, norm_type, kernel, stride, ceil_mode
    (1, (2, 3, 9), 2, 3, None, False), (1, (3, 10), 3, 3, 2, True),
    (1, (2, 2, 8), 1.5, 2, 1, False),
    (2, (2, 2, 7, 6), 2, 3, 2, True), (2, (2, 2, 6, 8), 3.0, (2, 3), None, False),
    (2, (2, 5, 7), 1, 2, (2, 1), True),
    (3, (2, 2, 5, 4, 6), 2, 2, None, False), (3, (1, 2, 5, 6, 5), 3, (2, 3, 2), 2, True)]


UNPOOL_CASES = [  # nd, shape, kernel, stride, padding, output_size
    (1, (2, 3, 10), 2, None, 0, None), (1, (3, 11), 3, 2, 1, (11,)),
    (2, (2, 2, 6, 8), 2, None, 0, None), (2, (2, 2, 7, 6), 3, 2, 1, (1, 2, 7, 6)),
    (2, (2, 6, 7), 2, None, 0, (7, 7)),
    (3, (2, 2, 4, 6, 6), 2, None, 0, None), (3, (1, 2, 5, 5, 6), 3, 2, 1, (5, 5, 6))]


@pytest.mark.parametrize("nd,shape,norm,k,s,ceil", LP_CASES)
def test_lp_pool_matches_torch(nd, shape, norm, k, s, ceil):
    x = np.abs(rng(12).standard_normal(shape)) + 0.1  # odd/fractional p: positive windows
    compare(lambda a: getattr(F, f"lp_pool{nd}d")(a, norm, k, s, ceil),
             lambda a: getattr(TF, f"lp_pool{nd}d")(a, norm, k, s, ceil), x, rtol=1e-9)
    module, reference = (getattr(m, f"LPPool{nd}d")(norm, k, s, ceil) for m in (nn, torch.nn))
    assert repr(module) == repr(reference)
    np.testing.assert_allclose(module(tl.tensor(x)).numpy(), reference(torch.tensor(x)).numpy(),
                               rtol=1e-10)
    check_second_order(lambda a: getattr(F, f"lp_pool{nd}d")(a, norm, k, s, ceil),
                       x[(0,) * (len(shape) - nd - 1)][:1])


@pytest.mark.parametrize("nd,shape,k,s,p,size", UNPOOL_CASES)
def test_max_unpool_matches_torch(nd, shape, k, s, p, size):
    x = rng(13).standard_normal(shape)
    pooled, idx = getattr(TF, f"max_pool{nd}d")(torch.tensor(x), k, s, p, return_indices=True)
    y, index = pooled.numpy(), idx.numpy()
    compare(lambda a, i: getattr(F, f"max_unpool{nd}d")(a, i, k, s, p, size),
             lambda a, i: getattr(TF, f"max_unpool{nd}d")(a, i, k, s, p, size), y, index)
    module, reference = (getattr(m, f"MaxUnpool{nd}d")(k, s, p) for m in (nn, torch.nn))
    assert repr(module) == repr(reference)
    np.testing.assert_array_equal(module(tl.tensor(y), tl.tensor(index), size).numpy(),
                                  reference(torch.tensor(y), torch.tensor(index), size).numpy())
    # the round trip: pooling with tinygrad_lite's indices, then unpooling; overlapping
    # windows may pick one element twice, where central differences see only the last write
    v, i = getattr(F, f"max_pool{nd}d")(tl.tensor(x), k, s, p, return_indices=True)
    flat = i.numpy().reshape(-1, int(np.prod(i.shape[-nd:])))
    if any(len(set(row)) < len(row) for row in flat):
        return
    check_grads(lambda a: getattr(F, f"max_unpool{nd}d")(a, i, k, s, p, size), v.numpy())
    check_second_order(lambda a: getattr(F, f"max_unpool{nd}d")(a, i, k, s, p, size) ** 2,
                       v.numpy())


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("shape,kernel,size", [((2, 3, 9, 10), 3, (5, 6)),
                                               ((3, 7, 8), (2, 3), (4, 3)),
                                               ((2, 2, 6, 7, 8), 2, (3, 4, 5)),
                                               ((2, 6, 6, 7), (2, 1, 3), (4, 5, 3))])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_fractional_max_pool_matches_pytorch(shape, kernel, size, dtype):
    nd = len(size)
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(dtype)
    x.reshape(-1)[::7] = x.reshape(-1)[1]  # ties: the first maximum wins
    batch = shape[0] if len(shape) == nd + 2 else 1
    samples = rng.random((batch, shape[-nd - 1], nd)).astype(dtype)
    xt = torch.tensor(x, requires_grad=True)
    xo = tl.tensor(x, requires_grad=True)
    fn_t, fn_o = getattr(TF, f"fractional_max_pool{nd}d"), getattr(F, f"fractional_max_pool{nd}d")
    out_t, idx_t = fn_t(xt, kernel, size, return_indices=True,
                        _random_samples=torch.tensor(samples))
    out_o, idx_o = fn_o(xo, kernel, size, return_indices=True, _random_samples=tl.tensor(samples))
    np.testing.assert_array_equal(idx_o.numpy(), idx_t.numpy())
    np.testing.assert_array_equal(_np(out_o), _np(out_t))
    assert idx_o.dtype == tl.int64
    g = rng.standard_normal(out_t.shape).astype(dtype)
    out_t.backward(torch.tensor(g))
    out_o.backward(tl.tensor(g))
    np.testing.assert_allclose(xo.grad.numpy(), xt.grad.numpy(), rtol=1e-6)
    with_idx = getattr(F, f"fractional_max_pool{nd}d_with_indices")(
        xo, kernel, size, _random_samples=tl.tensor(samples))
    np.testing.assert_array_equal(with_idx[1].numpy(), idx_t.numpy())


def test_fractional_max_pool_nan_ratio_and_random_samples():
    x = np.arange(64, dtype=np.float32).reshape(1, 1, 8, 8)
    x[0, 0, 0, 0] = x[0, 0, 0, 1] = np.nan
    samples = np.array([[[0.3, 0.6]]], np.float32)
    ours = F.fractional_max_pool2d(tl.tensor(x), 2, output_ratio=(0.5, 0.5), return_indices=True,
                                   _random_samples=tl.tensor(samples))
    theirs = TF.fractional_max_pool2d(torch.tensor(x), 2, output_ratio=(0.5, 0.5),
                                      return_indices=True, _random_samples=torch.tensor(samples))
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())  # the last NaN wins
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    tl.manual_seed(3)
    first = F.fractional_max_pool2d(tl.tensor(x), 3, output_size=4)
    tl.manual_seed(3)
    again = tl.nn.FractionalMaxPool2d(3, output_size=4)(tl.tensor(x))
    np.testing.assert_array_equal(first.numpy(), again.numpy())
    assert tuple(first.shape) == (1, 1, 4, 4)
    pool = tl.nn.FractionalMaxPool3d(2, output_ratio=0.5, return_indices=True)
    out, idx = pool(tl.randn(2, 3, 6, 8, 10))
    assert tuple(out.shape) == tuple(idx.shape) == (2, 3, 3, 4, 5)
    fixed = tl.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=tl.tensor(samples))
    assert list(fixed.buffers())[0] is fixed._random_samples
    assert repr(fixed) == repr(torch.nn.FractionalMaxPool2d(2, output_size=3)) == \
        "FractionalMaxPool2d()"


def test_fractional_max_pool_errors():
    x = tl.randn(2, 3, 8, 9)
    with pytest.raises(ValueError, match="requires specifying either an output_size"):
        F.fractional_max_pool2d(x, 3)
    with pytest.raises(RuntimeError, match="pool height 3 too large relative to input height 8"):
        F.fractional_max_pool2d(x, 3, output_size=(7, 7))
    with pytest.raises(RuntimeError, match="pool time 2 too large relative to input time 6"):
        F.fractional_max_pool3d(tl.randn(1, 1, 6, 7, 8), 2, output_size=(6, 4, 5))
    with pytest.raises(RuntimeError, match="Expected 3D or 4D tensor"):
        F.fractional_max_pool2d(tl.randn(2, 2, 2, 8, 8), 2, output_size=3)
    with pytest.raises(RuntimeError, match=r"_random_samples.size\(2\) equals to 2"):
        F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=tl.rand(2, 3, 3))
    with pytest.raises(RuntimeError, match="no less then input batch size"):
        F.fractional_max_pool2d(x, 3, output_size=4, _random_samples=tl.rand(1, 3, 2))
    with pytest.raises(RuntimeError, match="same dtype as input"):
        F.fractional_max_pool2d(x, 3, output_size=4,
                                _random_samples=tl.rand(2, 3, 2, dtype=tl.float64))
    with pytest.raises(RuntimeError, match="kernel_size must either be a single Int"):
        F.fractional_max_pool2d(x, (3, 3, 3), output_size=4)
    with pytest.raises(ValueError, match="only one of output_size and output_ratio"):
        tl.nn.FractionalMaxPool2d(3, output_size=2, output_ratio=0.5)
    with pytest.raises(ValueError, match=r"output_ratio must be between 0 and 1 \(got 1.5\)"):
        tl.nn.FractionalMaxPool2d(3, output_ratio=1.5)
    with pytest.raises(ValueError, match="kernel_size must be greater than 0"):
        tl.nn.FractionalMaxPool3d(0, output_ratio=0.5)


@pytest.mark.parametrize("call,exc,match", [
    (lambda: F.max_pool2d(tl.randn(1, 2, 3, 3), 4), RuntimeError, "Output size is too small"),
    (lambda: F.avg_pool3d(tl.randn(1, 2, 3, 3, 2), 3), RuntimeError, "Output size is too small"),
    (lambda: F.max_pool3d(tl.randn(2, 3, 3), 2), RuntimeError, "4D.*5D"),
    (lambda: F.max_pool2d(tl.randn(1, 1, 4, 4), 2, padding=2), RuntimeError, "half"),
    (lambda: F.max_pool2d(tl.randn(1, 1, 4, 4), 2, stride=0), RuntimeError, "stride"),
    (lambda: F.avg_pool2d(tl.randn(1, 1, 4, 4), 2, divisor_override=0), RuntimeError, "zero"),
    (lambda: F.adaptive_max_pool2d(tl.randn(3, 3), 2), RuntimeError, "3D or 4D"),
    (lambda: F.adaptive_avg_pool3d(tl.randn(2, 3, 3), 2), RuntimeError, "4D or 5D"),
    (lambda: F.adaptive_max_pool2d(tl.randn(1, 2, 3, 3), (2, 2, 2)), RuntimeError, "must be 2"),
    (lambda: F.adaptive_avg_pool1d(tl.randn(2, 3, 3), (2, 3)), RuntimeError, "must be 1"),
    (lambda: F.adaptive_max_pool1d(tl.randn(2, 3, 3), -1), RuntimeError, "greater than"),
    (lambda: F.conv3d(tl.randn(2, 3, 3), tl.randn(2, 3, 1, 1, 1)), RuntimeError, "4D"),
    (lambda: F.conv3d(tl.randn(1, 3, 2, 2, 2), tl.randn(2, 3, 3, 1, 1)), RuntimeError,
     "Kernel size can't be greater"),
    (lambda: F.conv3d(tl.randn(1, 2, 4, 4, 4), tl.randn(2, 3, 1, 1, 1)), RuntimeError,
     "channels"),
    (lambda: F.conv_transpose3d(tl.randn(1, 2, 4, 4, 4), tl.randn(3, 2, 1, 1, 1)),
     RuntimeError, "do not match"),
    (lambda: F.max_unpool2d(tl.randn(1, 2, 3, 3), tl.tensor(np.full((1, 2, 3, 3), 100)), 2),
     RuntimeError, "invalid max index: 100"),
    (lambda: F.max_unpool2d(tl.randn(1, 2, 3, 3), tl.zeros(1, 2, 3, 3, dtype=tl.int64), 2,
                            output_size=(9, 9)), ValueError, "between 4 and 8"),
    (lambda: F.max_unpool2d(tl.randn(1, 2, 3, 3), tl.zeros(1, 2, 3, 3, dtype=tl.int64), 2,
                            output_size=(1, 2, 6, 6, 6)), ValueError, "2 or 4 elements"),
    (lambda: F.max_unpool1d(tl.randn(1, 2, 3), tl.zeros(1, 2, 2, dtype=tl.int64), 2),
     RuntimeError, "same as that of the input"),
    (lambda: F.lp_pool2d(tl.randn(1, 2, 3, 3), 2, 4), RuntimeError, "Output size is too small"),
])
def test_errors_match_torch(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_torch_raises_the_same_types():
    """The error cases above are errors in PyTorch too (same exception type)."""
    z = torch.zeros
    for call, exc in [
            (lambda: TF.max_pool2d(torch.randn(1, 2, 3, 3), 4), RuntimeError),
            (lambda: TF.max_pool2d(torch.randn(1, 1, 4, 4), 2, stride=0), RuntimeError),
            (lambda: TF.adaptive_max_pool2d(torch.randn(1, 2, 3, 3), (2, 2, 2)), RuntimeError),
            (lambda: TF.max_unpool2d(torch.randn(1, 2, 3, 3), z(1, 2, 3, 3, dtype=torch.long), 2,
                                     output_size=(9, 9)), ValueError),
            (lambda: TF.max_unpool2d(torch.randn(1, 2, 3, 3),
                                     z(1, 2, 3, 3, dtype=torch.long) + 100, 2), RuntimeError)]:
        with pytest.raises(exc):
            call()


def test_adaptive_zero_output_size_is_empty_like_torch():
    x = np.ones((3, 4, 5))
    for name in ("adaptive_max_pool2d", "adaptive_avg_pool2d"):
        out = getattr(F, name)(tl.tensor(x), (0, 2))
        assert tuple(out.shape) == tuple(getattr(TF, name)(torch.tensor(x), (0, 2)).shape)
