"""gumbel_softmax: reproducible under the library seed, the hard straight-through form, and
sample frequencies that follow the softmax."""

import numpy as np
import pytest
from helpers import check_second_order

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _rng(seed=0):
    return np.random.default_rng(seed)


def test_gumbel_softmax_reproducible_hard_straight_through():
    logits = _rng(14).standard_normal((5, 4, 3))
    tl.manual_seed(3)
    a = tl.tensor(logits, requires_grad=True)
    soft = F.gumbel_softmax(a, tau=0.5, dim=1)
    tl.manual_seed(3)
    again = F.gumbel_softmax(tl.tensor(logits), tau=0.5, dim=1)
    np.testing.assert_array_equal(soft.detach().numpy(), again.numpy())
    np.testing.assert_allclose(soft.detach().numpy().sum(1), 1.0, rtol=1e-12)
    # recover the noise: softmax((logits + g) / tau) fixes g up to a per-row constant
    noise = np.log(soft.detach().numpy()) * 0.5 - logits
    noise -= noise.mean(1, keepdims=True)
    tl.manual_seed(3)
    b = tl.tensor(logits, requires_grad=True)
    hard = F.gumbel_softmax(b, tau=0.5, hard=True, dim=1)
    h = hard.detach().numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and np.all(h.sum(1) == 1)
    np.testing.assert_array_equal(h.argmax(1), soft.detach().numpy().argmax(1))
    # straight-through: the hard sample's gradient is the soft sample's
    g = _rng(15).standard_normal(h.shape)
    t = torch.tensor(logits, requires_grad=True)
    ref_soft = torch.softmax((t + torch.tensor(noise)) / 0.5, 1)
    ref_soft.backward(torch.tensor(g))
    hard.backward(tl.tensor(g))
    np.testing.assert_allclose(b.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(soft.detach().numpy(), ref_soft.detach().numpy(), rtol=1e-9)
    check_second_order(lambda x: (tl.manual_seed(1), F.gumbel_softmax(x, hard=True))[1],
                       logits[0])


def test_gumbel_max_frequencies_follow_softmax():
    tl.manual_seed(0)
    logits = np.log(np.array([0.6, 0.3, 0.1]))
    hard = F.gumbel_softmax(tl.tensor(np.tile(logits, (4000, 1))), hard=True).numpy()
    np.testing.assert_allclose(hard.mean(0), [0.6, 0.3, 0.1], atol=0.03)
