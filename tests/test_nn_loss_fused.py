"""The fused cross_entropy node agrees with the general log_softmax + nll_loss path."""

import numpy as np
import pytest

import tinygrad_lite as tl

F = tl.nn.functional


@pytest.mark.parametrize("shape", [(8, 5), (4, 5, 6), (2, 5, 3, 2)])
@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_fused_cross_entropy_equals_general_path(reduction, shape):
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(shape).astype(np.float32) * 4
    target = tl.tensor(rng.integers(0, 5, shape[:1] + shape[2:]))
    fused_in, general_in = tl.tensor(x0, requires_grad=True), tl.tensor(x0, requires_grad=True)
    fused = F.cross_entropy(fused_in, target, reduction=reduction)
    general = F.nll_loss(F.log_softmax(general_in, 1), target, reduction=reduction)
    assert fused.grad_fn.name() == "NllLossBackward0" and fused.dtype == tl.float32
    np.testing.assert_allclose(fused.item(), general.item(), rtol=1e-6)
    fused.backward()
    general.backward()
    np.testing.assert_allclose(fused_in.grad.numpy(), general_in.grad.numpy(), rtol=1e-5,
                               atol=1e-7)


def test_general_path_still_serves_ignore_index_weight_and_bad_targets():
    x = tl.randn(4, 3, requires_grad=True)
    assert F.cross_entropy(x, tl.tensor([0, -100, 1, 2])).grad_fn.name() != "NllLossBackward0"
    assert F.cross_entropy(x, tl.tensor([0, 1, 1, 2]), weight=tl.ones(3)).grad_fn.name() \
        != "NllLossBackward0"
    with pytest.raises(IndexError, match="out of bounds"):
        F.cross_entropy(x, tl.tensor([0, 1, 3, 2]))


def test_huge_logits_stay_finite():
    x = tl.tensor([[1e4, 0.0, -1e4], [0.0, 1e4, 0.0]], requires_grad=True)
    loss = F.cross_entropy(x, tl.tensor([0, 2]))
    loss.backward()
    assert np.isfinite(loss.item()) and np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(loss.item(), 5e3, rtol=1e-6)


@pytest.mark.parametrize("shape", [(6, 4), (3, 4, 5)])
def test_fused_cross_entropy_second_order(shape):
    rng = np.random.default_rng(1)
    x = tl.tensor(rng.standard_normal(shape), requires_grad=True)
    target = tl.tensor(rng.integers(0, 4, shape[:1] + shape[2:]))
    assert F.cross_entropy(x, target).grad_fn.name() == "NllLossBackward0"
    assert tl.autograd.gradcheck(lambda t: F.cross_entropy(t, target), (x,))
    assert tl.autograd.gradgradcheck(lambda t: F.cross_entropy(t, target), (x,))
