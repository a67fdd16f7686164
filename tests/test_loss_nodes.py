"""The common losses as one node with the reduction inside, as PyTorch records them
(``MseLossBackward0``, not ``MeanBackward0``): tutorials print ``loss.grad_fn`` and walk
``next_functions``. Values and gradients to second order, for the input and the target, and
against PyTorch where it is installed."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.autograd import gradgradcheck

F = tl.nn.functional
rng = np.random.default_rng(0)

# (name, call, PyTorch's node, whether the target is differentiable)
LOSSES = [
    ("mse", lambda lib, x, t, r: lib.nn.functional.mse_loss(x, t, reduction=r),
     "MseLossBackward0", True),
    ("smooth_l1", lambda lib, x, t, r: lib.nn.functional.smooth_l1_loss(x, t, reduction=r,
                                                                        beta=0.7),
     "SmoothL1LossBackward0", True),
    ("huber", lambda lib, x, t, r: lib.nn.functional.huber_loss(x, t, reduction=r, delta=0.6),
     "HuberLossBackward0", True),
    ("bce", lambda lib, x, t, r: lib.nn.functional.binary_cross_entropy(x.sigmoid(), t,
                                                                        reduction=r),
     "BinaryCrossEntropyBackward0", True),
    ("bce_logits", lambda lib, x, t, r: lib.nn.functional.binary_cross_entropy_with_logits(
        x, t, reduction=r), "BinaryCrossEntropyWithLogitsBackward0", False),
]
REDUCTIONS = ["mean", "sum", "none"]


def _inputs(lib, shape=(3, 4), target_grad=False):
    x = lib.tensor(rng.standard_normal(shape), requires_grad=True)
    t = lib.tensor(rng.random(shape), requires_grad=target_grad)
    return x, t


@pytest.mark.parametrize("name,call,node,target_grad", LOSSES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_loss_is_one_node_and_differentiates_twice(name, call, node, target_grad, reduction):
    x, t = _inputs(tl, target_grad=target_grad)
    loss = call(tl, x, t, reduction)
    assert loss.grad_fn.name() == node
    assert loss.shape == (() if reduction != "none" else (3, 4))
    inputs = (x, t) if target_grad else (x,)
    assert gradgradcheck(lambda *a: call(tl, a[0], a[1] if target_grad else t, reduction),
                         inputs)


def test_nll_loss_is_one_node_as_in_pytorch():
    logp = F.log_softmax(tl.tensor(rng.standard_normal((5, 3)), requires_grad=True), 1)
    target = tl.tensor([0, 2, 1, 1, 0])
    for reduction in ("mean", "sum"):
        loss = F.nll_loss(logp, target, reduction=reduction)
        assert loss.grad_fn.name() == "NllLossBackward0"
        assert gradgradcheck(lambda p, r=reduction: F.nll_loss(p, target, reduction=r), (logp,))
    seq = tl.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)  # (N, C, T)
    seq_target = tl.tensor(rng.integers(0, 3, (2, 4)))
    assert gradgradcheck(lambda p: F.nll_loss(p, seq_target), (seq,))
    # weights and ignored entries keep the general path, with the same values
    weighted = F.nll_loss(logp, target, weight=tl.tensor([1.0, 2.0, 0.5], dtype=tl.float64))
    picked = logp.detach().numpy()[np.arange(5), target.numpy()]
    w = np.array([1.0, 2.0, 0.5])[target.numpy()]
    np.testing.assert_allclose(weighted.item(), -(picked * w).sum() / w.sum(), rtol=1e-12)


def test_empty_mean_loss_is_nan_without_warnings():
    x = tl.zeros(0, 3, requires_grad=True)
    with np.errstate(all="raise"):
        loss = F.mse_loss(x, tl.zeros(0, 3))
        assert np.isnan(loss.item())
        loss.backward()
    assert x.grad.shape == (0, 3)


@pytest.mark.parametrize("name,call,node,target_grad", LOSSES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_losses_match_pytorch(name, call, node, target_grad, reduction):
    torch = pytest.importorskip("torch")
    xs, ts = rng.standard_normal((4, 5)), rng.random((4, 5))
    results = []
    for lib in (tl, torch):
        x = lib.tensor(xs, requires_grad=True)
        t = lib.tensor(ts, requires_grad=target_grad)
        loss = call(lib, x, t, reduction)
        assert type(loss.grad_fn).__name__ == node or loss.grad_fn.name() == node
        loss.backward(lib.ones_like(loss))
        results.append((loss.detach().numpy(), x.grad.numpy(),
                        t.grad.numpy() if target_grad else None))
    for mine, theirs in zip(*results):
        if theirs is not None:
            np.testing.assert_allclose(mine, theirs, rtol=1e-12, atol=1e-14)


def test_nll_loss_matches_pytorch():
    torch = pytest.importorskip("torch")
    logits, target = rng.standard_normal((6, 4)), rng.integers(0, 4, 6)
    results = []
    for lib in (tl, torch):
        x = lib.tensor(logits, requires_grad=True)
        loss = lib.nn.functional.nll_loss(lib.nn.functional.log_softmax(x, 1),
                                          lib.tensor(target))
        loss.backward()
        results.append((loss.item(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-10, atol=1e-14)
