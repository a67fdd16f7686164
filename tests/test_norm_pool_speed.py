"""The fast batch-norm and pooling paths (issue #22): training-mode batch norm as per-channel
sums and a saved centred copy, eval mode as one affine map, adaptive average pooling as means,
max-pool backward exact for non-finite gradients. Float64 gradient checks (first and second
order) and comparisons with PyTorch, running statistics included."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812
from tinygrad_lite import nn

torch = pytest.importorskip("torch")

_CLASSES = {2: "BatchNorm1d", 3: "BatchNorm1d", 4: "BatchNorm2d", 5: "BatchNorm3d"}
_SHAPES = [(8, 4), (6, 3, 5), (4, 3, 5, 6), (3, 2, 3, 4, 5)]


def _pair(shape: tuple, dtype: type, **options):
    """A tinygrad_lite and a PyTorch batch-norm module with the same random affine parameters
    and running statistics."""
    rng = np.random.default_rng(len(shape))
    name = _CLASSES[len(shape)]
    tdt = torch.float32 if dtype is np.float32 else torch.float64
    ours = getattr(nn, name)(shape[1], dtype=dtype, **options)
    theirs = getattr(torch.nn, name)(shape[1], dtype=tdt, **options)
    if ours.weight is not None:
        w = rng.standard_normal(shape[1]).astype(dtype)
        b = rng.standard_normal(shape[1]).astype(dtype)
        ours.weight._data[...], ours.bias._data[...] = w, b
        with torch.no_grad():
            theirs.weight.copy_(torch.from_numpy(w))
            theirs.bias.copy_(torch.from_numpy(b))
    if ours.running_mean is not None:
        rm = rng.standard_normal(shape[1]).astype(dtype)
        rv = (rng.random(shape[1]) + 0.5).astype(dtype)
        ours.running_mean._data[...], ours.running_var._data[...] = rm, rv
        theirs.running_mean.copy_(torch.from_numpy(rm))
        theirs.running_var.copy_(torch.from_numpy(rv))
    return ours, theirs


def _close(ours, theirs, dtype) -> None:
    tol = dict(rtol=2e-5, atol=2e-5) if dtype is np.float32 else dict(rtol=1e-11, atol=1e-11)
    a = ours.detach().numpy() if isinstance(ours, tl.Tensor) else np.asarray(ours)
    b = theirs.detach().numpy()
    assert a.dtype == b.dtype
    np.testing.assert_allclose(a, b, equal_nan=True, **tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", _SHAPES)
@pytest.mark.parametrize("options", [
    {}, {"affine": False}, {"momentum": None}, {"track_running_stats": False},
    {"momentum": 0.3, "eps": 1e-3},
])
def test_batch_norm_training_matches_pytorch(dtype, shape, options):
    ours, theirs = _pair(shape, dtype, **options)
    rng = np.random.default_rng(7)
    for step in range(3):  # the running statistics over several steps
        x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
        g = rng.standard_normal(shape).astype(dtype)
        tx = tl.tensor(x, requires_grad=True)
        px = torch.from_numpy(x).requires_grad_()
        out, ref = ours(tx), theirs(px)
        assert out.dtype == tl.float32 if dtype is np.float32 else out.dtype == tl.float64
        assert out.grad_fn.name() == "NativeBatchNormBackward0"
        _close(out, ref, dtype)
        out.backward(tl.tensor(g))
        ref.backward(torch.from_numpy(g))
        _close(tx.grad, px.grad, dtype)
        if ours.weight is not None:
            _close(ours.weight.grad, theirs.weight.grad, dtype)
            _close(ours.bias.grad, theirs.bias.grad, dtype)
            ours.weight.grad = ours.bias.grad = None
            theirs.weight.grad = theirs.bias.grad = None
        if ours.running_mean is not None:
            _close(ours.running_mean, theirs.running_mean, dtype)
            _close(ours.running_var, theirs.running_var, dtype)
            assert int(ours.num_batches_tracked.item()) == step + 1


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", _SHAPES)
@pytest.mark.parametrize("affine", [True, False])
def test_batch_norm_eval_matches_pytorch(dtype, shape, affine):
    ours, theirs = _pair(shape, dtype, affine=affine)
    ours.eval()
    theirs.eval()
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(shape) * 2 + 3).astype(dtype)
    g = rng.standard_normal(shape).astype(dtype)
    tx = tl.tensor(x, requires_grad=True)
    px = torch.from_numpy(x).requires_grad_()
    out, ref = ours(tx), theirs(px)
    _close(out, ref, dtype)
    out.backward(tl.tensor(g))
    ref.backward(torch.from_numpy(g))
    _close(tx.grad, px.grad, dtype)
    if affine:
        _close(ours.weight.grad, theirs.weight.grad, dtype)
        _close(ours.bias.grad, theirs.bias.grad, dtype)
    with tl.no_grad():  # no graph, the same values
        _close(ours(tx), ref, dtype)
    # the statistics the forward used are copies: a later change does not move the gradient
    out = ours(tx)
    ours.running_mean._data += 1.0
    tx.grad = None
    out.backward(tl.tensor(g))
    _close(tx.grad, px.grad, dtype)


def test_batch_norm_non_contiguous_and_nan():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 6, 4, 3))
    x[1, 2, 0, 0] = np.nan  # one channel's statistics are NaN, the others are not
    base = torch.from_numpy(x).permute(0, 3, 2, 1)  # channel dim 1 of size 3, strided
    ours, theirs = _pair(tuple(base.shape), np.float64)
    tx = tl.tensor(x, requires_grad=True)
    tb = tx.permute(0, 3, 2, 1)
    px = base.clone().requires_grad_()
    out, ref = ours(tb), theirs(px)
    _close(out, ref, np.float64)
    g = rng.standard_normal(tuple(base.shape))
    out.backward(tl.tensor(g))
    ref.backward(torch.from_numpy(g))
    _close(tx.grad.permute(0, 3, 2, 1), px.grad, np.float64)
    _close(ours.weight.grad, theirs.weight.grad, np.float64)
    _close(ours.running_mean, theirs.running_mean, np.float64)


def test_batch_norm_functional_matches_pytorch():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((6, 4, 5)).astype(np.float32)
    w, b = rng.standard_normal(4).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    rm, rv = np.zeros(4, np.float32), np.ones(4, np.float32)
    trm, trv = torch.zeros(4), torch.ones(4)
    out = F.batch_norm(tl.tensor(x), tl.tensor(rm), tl.tensor(rv), tl.tensor(w), tl.tensor(b),
                       training=True, momentum=0.2)
    ref = torch.nn.functional.batch_norm(torch.from_numpy(x), trm, trv, torch.from_numpy(w),
                                         torch.from_numpy(b), training=True, momentum=0.2)
    _close(out, ref, np.float32)
    rmt, rvt = tl.tensor(rm), tl.tensor(rv)
    F.batch_norm(tl.tensor(x), rmt, rvt, training=True, momentum=0.2)
    _close(rmt, trm, np.float32)
    _close(rvt, trv, np.float32)


@pytest.mark.parametrize("shape", [(5, 3), (4, 2, 3), (3, 2, 2, 3), (2, 2, 2, 2, 3)])
def test_batch_norm_training_gradcheck(shape):
    rng = np.random.default_rng(4)
    x = tl.tensor(rng.standard_normal(shape), requires_grad=True)
    w = tl.tensor(rng.standard_normal(shape[1]), requires_grad=True)
    b = tl.tensor(rng.standard_normal(shape[1]), requires_grad=True)

    def fn(x, w, b):
        return F.batch_norm(x, None, None, w, b, training=True)

    def fn_plain(x):
        return F.batch_norm(x, None, None, training=True)

    assert tl.autograd.gradcheck(fn, (x, w, b))
    assert tl.autograd.gradgradcheck(fn, (x, w, b))
    assert tl.autograd.gradcheck(fn_plain, (x,))
    assert tl.autograd.gradgradcheck(fn_plain, (x,))


@pytest.mark.parametrize("shape", [(5, 3), (3, 2, 2, 3)])
def test_batch_norm_eval_gradcheck(shape):
    rng = np.random.default_rng(5)
    x = tl.tensor(rng.standard_normal(shape), requires_grad=True)
    w = tl.tensor(rng.standard_normal(shape[1]), requires_grad=True)
    b = tl.tensor(rng.standard_normal(shape[1]), requires_grad=True)
    rm = tl.tensor(rng.standard_normal(shape[1]))
    rv = tl.tensor(rng.random(shape[1]) + 0.5)

    def fn(x, w, b):
        return F.batch_norm(x, rm, rv, w, b, training=False)

    assert tl.autograd.gradcheck(fn, (x, w, b))
    assert tl.autograd.gradgradcheck(fn, (x, w, b))


def test_batch_norm_float16_keeps_general_rule():
    x = tl.tensor(np.random.default_rng(0).standard_normal((4, 3, 2)).astype(np.float16))
    out = nn.BatchNorm1d(3, dtype=np.float16)(x)
    assert out.dtype == tl.float16
    ref = torch.nn.BatchNorm1d(3).float()(torch.from_numpy(x.numpy().astype(np.float32)))
    np.testing.assert_allclose(out.detach().numpy().astype(np.float32), ref.detach().numpy(),
                               atol=1e-2)


@pytest.mark.parametrize("nd,shape,size", [
    (1, (2, 3, 10), 1), (1, (2, 3, 10), 5), (1, (2, 3, 10), 3), (1, (3, 7), 2),
    (2, (2, 3, 8, 8), 1), (2, (2, 3, 8, 6), (2, 3)), (2, (2, 3, 7, 9), (3, 4)),
    (2, (2, 3, 7, 9), (None, 2)), (2, (3, 5, 5), (4, 4)), (2, (2, 2, 3, 3), 5),
    (3, (2, 2, 4, 6, 5), 1), (3, (2, 2, 4, 6, 5), (2, 3, 2)),
])
def test_adaptive_avg_pool_matches_pytorch_with_nan(nd, shape, size):
    rng = np.random.default_rng(6)
    x = rng.standard_normal(shape)
    x[(0,) * (len(shape) - 1) + (1,)] = np.nan  # stays in its own windows
    x[(-1,) * len(shape)] = np.inf
    name = f"adaptive_avg_pool{nd}d"
    px = torch.from_numpy(x).requires_grad_()
    ref = getattr(torch.nn.functional, name)(px, size)
    tx = tl.tensor(x, requires_grad=True)
    out = getattr(F, name)(tx, size)
    assert tuple(out.shape) == tuple(ref.shape)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12,
                               atol=1e-12, equal_nan=True)
    g = rng.standard_normal(tuple(ref.shape))
    out.backward(tl.tensor(g))
    ref.backward(torch.from_numpy(g))
    np.testing.assert_allclose(tx.grad.numpy(), px.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("size", [1, (2, 3), (2, 2)])
def test_adaptive_avg_pool_gradcheck(size):
    x = tl.tensor(np.random.default_rng(8).standard_normal((2, 2, 4, 5)), requires_grad=True)
    assert tl.autograd.gradcheck(lambda t: F.adaptive_avg_pool2d(t, size), (x,))
    assert tl.autograd.gradgradcheck(lambda t: F.adaptive_avg_pool2d(t * t, size), (x,))


def test_adaptive_avg_pool_float32_stays_float32():
    x = tl.tensor(np.ones((2, 3, 4, 4), np.float32), requires_grad=True)
    out = F.adaptive_avg_pool2d(x, 1)
    assert out.dtype == tl.float32 and tuple(out.shape) == (2, 3, 1, 1)
    out.sum().backward()
    assert x.grad.dtype == tl.float32
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 3, 4, 4), 1 / 16, np.float32))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_pool_blocks_backward_non_finite_gradient(nd):
    rng = np.random.default_rng(9)
    shape = (2, 3) + (4,) * nd
    x = rng.standard_normal(shape).astype(np.float32)
    x[0, 0] = 0.0  # ties: the first maximum of each window takes the gradient
    name = f"max_pool{nd}d"
    out_shape = (2, 3) + (2,) * nd
    g = rng.standard_normal(out_shape).astype(np.float32)
    g.reshape(-1)[:3] = [np.inf, -np.inf, np.nan]
    px = torch.from_numpy(x).requires_grad_()
    getattr(torch.nn.functional, name)(px, 2).backward(torch.from_numpy(g))
    tx = tl.tensor(x, requires_grad=True)
    getattr(F, name)(tx, 2).backward(tl.tensor(g))
    np.testing.assert_array_equal(tx.grad.numpy(), px.grad.numpy())


def test_resnet_style_step_matches_pytorch():
    """conv + BN + ReLU + global average pool + linear: a few SGD steps agree with PyTorch."""
    rng = np.random.default_rng(10)
    x = rng.standard_normal((8, 3, 8, 8)).astype(np.float32)
    y = rng.integers(0, 5, 8)

    def build(lib):
        lib.manual_seed(0)
        return lib.nn.Sequential(
            lib.nn.Conv2d(3, 4, 3, padding=1, bias=False), lib.nn.BatchNorm2d(4), lib.nn.ReLU(),
            lib.nn.MaxPool2d(2), lib.nn.Conv2d(4, 6, 3, padding=1, bias=False),
            lib.nn.BatchNorm2d(6), lib.nn.ReLU(), lib.nn.AdaptiveAvgPool2d(1), lib.nn.Flatten(),
            lib.nn.Linear(6, 5))

    ours, theirs = build(tl), build(torch)
    with torch.no_grad():
        for (_, p), (_, q) in zip(ours.state_dict().items(), theirs.state_dict().items()):
            q.copy_(torch.from_numpy(np.array(p.numpy())))
    opt_a = tl.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    opt_b = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    for _ in range(3):
        for model, opt, lib, xin, yin in (
                (ours, opt_a, tl, tl.tensor(x), tl.tensor(y)),
                (theirs, opt_b, torch, torch.from_numpy(x), torch.from_numpy(y))):
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(xin), yin).backward()
            opt.step()
    for (name, p), (_, q) in zip(ours.state_dict().items(), theirs.state_dict().items()):
        np.testing.assert_allclose(np.asarray(p.numpy(), np.float64),
                                   q.numpy().astype(np.float64), rtol=1e-4, atol=1e-5,
                                   err_msg=name)
    ours.eval()
    theirs.eval()
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(),
                               theirs(torch.from_numpy(x)).detach().numpy(), rtol=1e-4,
                               atol=1e-5)
