"""The margin, ranking, likelihood and multi-label losses with every reduction against PyTorch
(values and gradients, float64), their modules, errors, and the deprecated NLLLoss2d."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812

torch = pytest.importorskip("torch")
TF = torch.nn.functional
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


def test_nll_loss_2d_is_deprecated_nll_loss():
    with pytest.warns(FutureWarning, match="`NLLLoss2d` has been deprecated"):
        loss = tl.nn.NLLLoss2d(ignore_index=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        ref = torch.nn.NLLLoss2d(ignore_index=1)
    assert isinstance(loss, tl.nn.NLLLoss) and repr(loss) == repr(ref)
    x = np.random.default_rng(6).standard_normal((2, 4, 3, 3))
    t = np.random.default_rng(7).integers(0, 4, (2, 3, 3))
    np.testing.assert_allclose(loss(F.log_softmax(tl.tensor(x), 1), tl.tensor(t)).item(),
                               ref(TF.log_softmax(torch.tensor(x), 1), torch.tensor(t)).item(),
                               rtol=1e-12)
