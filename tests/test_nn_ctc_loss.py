"""CTC (ctc_loss / CTCLoss) against PyTorch (values and gradients, float64), errors, and a
numerical check of the gradient."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.helpers import check_grads

torch = pytest.importorskip("torch")
rng = np.random.default_rng(3)
TARGETS = np.array([[1, 2, 2, 3], [3, 1, 0, 0], [2, 2, 2, 0]])
IN_LEN, TG_LEN = np.array([10, 8, 6]), np.array([4, 2, 3])


def _ctc_pair(shape, targets, in_len, tg_len, **kwargs):
    logits = rng.standard_normal(shape)
    lp_t = torch.tensor(logits).log_softmax(-1).detach().requires_grad_()
    lp_o = tl.tensor(lp_t.detach().numpy(), requires_grad=True)
    theirs = torch.nn.functional.ctc_loss(lp_t, torch.tensor(targets), torch.tensor(in_len),
                                          torch.tensor(tg_len), **kwargs)
    ours = tl.nn.functional.ctc_loss(lp_o, tl.tensor(targets), tl.tensor(in_len),
                                     tl.tensor(tg_len), **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    assert tuple(ours.shape) == tuple(theirs.shape)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(lp_o.grad.numpy(), lp_t.grad.numpy(), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_ctc_matches_pytorch_padded_targets(reduction):
    _ctc_pair((10, 3, 5), TARGETS, IN_LEN, TG_LEN, reduction=reduction)


def test_ctc_concatenated_targets_blank_and_empty_targets():
    flat = np.concatenate([TARGETS[i, :n] for i, n in enumerate(TG_LEN)])
    _ctc_pair((10, 3, 5), flat, IN_LEN, TG_LEN, reduction="none")
    _ctc_pair((10, 3, 5), np.where(TARGETS == 2, 4, TARGETS), IN_LEN, TG_LEN, blank=2,
              reduction="none")
    _ctc_pair((5, 3, 5), TARGETS + 1, np.array([5, 4, 2]), np.array([0, 2, 0]),
              reduction="mean")
    _ctc_pair((6, 5), np.array([1, 2, 3]), np.array(6), np.array(3), reduction="mean")


def test_ctc_impossible_alignment_and_zero_infinity():
    _ctc_pair((3, 3, 5), TARGETS + 1, np.array([3, 3, 2]), TG_LEN, reduction="sum",
              zero_infinity=True)
    lp = tl.tensor(rng.standard_normal((3, 3, 5))).log_softmax(-1)
    loss = tl.nn.CTCLoss(reduction="none")(lp, tl.tensor(TARGETS + 1), [3, 3, 2], TG_LEN)
    assert np.isinf(loss.numpy()[[0, 2]]).all() and np.isfinite(loss.numpy()[1])


def test_ctc_gradient_through_log_softmax_is_numerically_right():
    def fn(logits):
        return tl.nn.functional.ctc_loss(logits.log_softmax(-1), tl.tensor(TARGETS),
                                         tl.tensor(IN_LEN - 1), tl.tensor(TG_LEN))
    check_grads(fn, rng.standard_normal((9, 3, 5)))


def test_ctc_module_and_errors():
    module = tl.nn.CTCLoss(blank=4, zero_infinity=True)
    assert (module.blank, module.reduction, module.zero_infinity) == (4, "mean", True)
    lp = tl.tensor(rng.standard_normal((6, 2, 5))).log_softmax(-1)
    with pytest.raises(RuntimeError):  # blank outside the classes
        tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 2]] * 2), [6, 6], [2, 2], blank=5)
    with pytest.raises(RuntimeError):  # input length beyond T
        tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 2]] * 2), [7, 6], [2, 2])
    with pytest.raises(RuntimeError):  # float targets
        tl.nn.functional.ctc_loss(lp, tl.tensor([[1.0, 2.0]] * 2), [6, 6], [2, 2])
    with pytest.raises(ValueError):
        tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 2]] * 2), [6, 6], [2, 2], reduction="x")


def test_ctc_float32_and_unbatched_shapes():
    lp = tl.tensor(rng.standard_normal((6, 2, 4)).astype(np.float32)).log_softmax(-1)
    loss = tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2],
                                     reduction="none")
    assert loss.dtype == tl.float32 and tuple(loss.shape) == (2,)
    one = tl.nn.functional.ctc_loss(lp[:, 0], tl.tensor([1, 2]), 6, 2, reduction="none")
    assert tuple(one.shape) == () and one.item() == pytest.approx(loss.numpy()[0], rel=1e-6)
