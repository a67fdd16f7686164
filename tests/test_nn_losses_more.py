"""The margin, ranking, likelihood and multi-label losses with every reduction, and CTC
(ctc_loss / CTCLoss) against PyTorch (values and gradients, float64) and a numerical check."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.helpers import check_grads

torch = pytest.importorskip("torch")
rng = np.random.default_rng(3)
X, Y, Z = (rng.standard_normal((4, 5)) for _ in range(3))
SIGN = np.array([1.0, -1.0, 1.0, -1.0])
LABELS = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0], [4, 4, -1, 0, 0]])

# name -> (call(lib, tensors, reduction), arrays, indices of arrays that get no gradient)
CASES = {
    "cosine_embedding": (lambda lib, a, r: lib.nn.functional.cosine_embedding_loss(
        a[0], a[1], a[2], margin=0.2, reduction=r), (X, Y, SIGN), (2,)),
    "cosine_embedding_1d": (lambda lib, a, r: lib.nn.functional.cosine_embedding_loss(
        a[0], a[1], a[2], reduction=r), (X[0], Y[0], np.array(-1.0)), (2,)),
    "margin_ranking": (lambda lib, a, r: lib.nn.functional.margin_ranking_loss(
        a[0], a[1], a[2], margin=0.3, reduction=r), (X[:, 0], Y[:, 0], SIGN), (2,)),
    "triplet_p1_swap": (lambda lib, a, r: lib.nn.functional.triplet_margin_loss(
        a[0], a[1], a[2], margin=0.5, p=1, swap=True, reduction=r), (X, Y, Z), ()),
    "triplet_1d": (lambda lib, a, r: lib.nn.functional.triplet_margin_loss(
        a[0], a[1], a[2], reduction=r), (X[0], Y[0], Z[0]), ()),
    "triplet_distance": (lambda lib, a, r: lib.nn.functional.triplet_margin_with_distance_loss(
        a[0], a[1], a[2], distance_function=lambda u, v: 1 - lib.nn.functional.cosine_similarity(
            u, v), swap=True, reduction=r), (X, Y, Z), ()),
    "poisson_full": (lambda lib, a, r: lib.nn.functional.poisson_nll_loss(
        a[0], a[1], full=True, reduction=r), (X, np.abs(Y) * 3), (1,)),
    "poisson_no_log": (lambda lib, a, r: lib.nn.functional.poisson_nll_loss(
        a[0], a[1], log_input=False, full=True, reduction=r), (np.abs(X), np.abs(Y) * 3), (1,)),
    "gaussian_full": (lambda lib, a, r: lib.nn.functional.gaussian_nll_loss(
        a[0], a[1], a[2], full=True, reduction=r), (X, Y, np.abs(Z)), ()),
    "gaussian_var_column": (lambda lib, a, r: lib.nn.functional.gaussian_nll_loss(
        a[0], a[1], a[2], reduction=r), (X, Y, np.abs(Z[:, :1])), ()),
    "gaussian_var_per_row": (lambda lib, a, r: lib.nn.functional.gaussian_nll_loss(
        a[0], a[1], a[2], reduction=r), (X, Y, np.abs(Z[:, 0])), ()),
    "gaussian_var_clamped": (lambda lib, a, r: lib.nn.functional.gaussian_nll_loss(
        a[0], a[1], a[2], reduction=r), (X, Y, np.abs(Z) * 1e-8), ()),
    "multilabel_soft_margin": (lambda lib, a, r: lib.nn.functional.multilabel_soft_margin_loss(
        a[0], a[1], weight=a[2], reduction=r), (X, (Y > 0) * 1.0, np.abs(Z[0])), (1, 2)),
    "multilabel_margin": (lambda lib, a, r: lib.nn.functional.multilabel_margin_loss(
        a[0], a[1], reduction=r), (X, LABELS), (1,)),
    "multilabel_margin_1d": (lambda lib, a, r: lib.nn.functional.multilabel_margin_loss(
        a[0], a[1], reduction=r), (X[0], LABELS[0]), (1,)),
    "multi_margin_p2_weight": (lambda lib, a, r: lib.nn.functional.multi_margin_loss(
        a[0], a[1], p=2, margin=0.7, weight=a[2], reduction=r),
        (X, np.array([0, 3, 4, 1]), np.abs(Z[0])), (1, 2)),
    "multi_margin_1d": (lambda lib, a, r: lib.nn.functional.multi_margin_loss(
        a[0], a[1], reduction=r), (X[0], np.array(2)), (1,)),
    "soft_margin": (lambda lib, a, r: lib.nn.functional.soft_margin_loss(
        a[0], a[1], reduction=r), (X, np.sign(Y)), (1,)),
    "hinge_embedding": (lambda lib, a, r: lib.nn.functional.hinge_embedding_loss(
        a[0], a[1], margin=0.5, reduction=r), (X, np.sign(Y)), (1,)),
    "hinge_embedding_other_targets": (lambda lib, a, r: lib.nn.functional.hinge_embedding_loss(
        a[0], a[1], reduction=r), (X, Y), (1,)),
}


def _pair(arrays, frozen):
    ours = [tl.tensor(a, requires_grad=i not in frozen) for i, a in enumerate(arrays)]
    theirs = [torch.tensor(a, requires_grad=i not in frozen) for i, a in enumerate(arrays)]
    return ours, theirs


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("name", list(CASES))
def test_loss_matches_pytorch(name, reduction):
    call, arrays, frozen = CASES[name]
    ours, theirs = _pair(arrays, frozen)
    a, b = call(tl, ours, reduction), call(torch, theirs, reduction)
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    (a * a).sum().backward()
    (b * b).sum().backward()
    for x, y in zip(ours, theirs):
        if y.grad is not None:
            np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_bad_reduction_and_pdist():
    with pytest.raises(ValueError):
        tl.nn.functional.soft_margin_loss(tl.tensor(X), tl.tensor(Y), reduction="avg")
    a, b = tl.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    ours, theirs = tl.nn.functional.pdist(a, p=3), torch.nn.functional.pdist(b, p=3)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9)
    with pytest.raises(RuntimeError):
        tl.nn.functional.pdist(tl.tensor(X[0]))


def test_modules_match_functional():
    x, y = tl.tensor(X), tl.tensor(np.sign(Y))
    assert tl.nn.SoftMarginLoss(reduction="sum")(x, y).item() == pytest.approx(
        torch.nn.SoftMarginLoss(reduction="sum")(torch.tensor(X), torch.tensor(np.sign(Y))).item())
    assert tl.nn.HingeEmbeddingLoss(margin=0.5)(x, y).item() == pytest.approx(
        torch.nn.HingeEmbeddingLoss(margin=0.5)(torch.tensor(X), torch.tensor(np.sign(Y))).item())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tl.nn.MultiLabelMarginLoss(reduce=False).reduction == "none"


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


def test_shape_and_target_errors_match_pytorch_types():
    f = tl.nn.functional
    x = tl.tensor(X)
    with pytest.raises(RuntimeError):  # class index out of range
        f.multi_margin_loss(x, tl.tensor([0, 1, 2, 5]))
    with pytest.raises(RuntimeError):
        f.multilabel_margin_loss(x, tl.tensor([[0, 1, 2, -1, 0]]))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        f.gaussian_nll_loss(x, x, tl.ones(4, 2))
    with pytest.raises(ValueError):
        f.gaussian_nll_loss(x, x, -tl.ones(4, 5))


def test_ctc_float32_and_unbatched_shapes():
    lp = tl.tensor(rng.standard_normal((6, 2, 4)).astype(np.float32)).log_softmax(-1)
    loss = tl.nn.functional.ctc_loss(lp, tl.tensor([[1, 2], [3, 3]]), [6, 5], [2, 2],
                                     reduction="none")
    assert loss.dtype == tl.float32 and tuple(loss.shape) == (2,)
    one = tl.nn.functional.ctc_loss(lp[:, 0], tl.tensor([1, 2]), 6, 2, reduction="none")
    assert tuple(one.shape) == () and one.item() == pytest.approx(loss.numpy()[0], rel=1e-6)
