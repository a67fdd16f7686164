"""The added activations, losses and distances against PyTorch (values and gradients, float64),
their modules, and the deprecated size_average/reduce spellings of the losses."""

import warnings

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")
rng = np.random.default_rng(0)
X = rng.standard_normal((4, 6)) * 3
X[0, :3] = [0.0, 3.0, -3.0]  # the kinks

ACTIVATIONS = [("relu6", {}), ("hardtanh", {"min_val": -2.0, "max_val": 1.5}),
               ("hardswish", {}), ("hardsigmoid", {}), ("hardshrink", {"lambd": 0.7}),
               ("softshrink", {"lambd": 0.7}), ("mish", {}), ("logsigmoid", {}),
               ("softsign", {}), ("tanhshrink", {}), ("threshold", {"threshold": 0.5,
                                                                    "value": -1.0}),
               ("glu", {"dim": 1}), ("celu", {"alpha": 0.7}), ("selu", {}),
               ("softmin", {"dim": 1}), ("rrelu", {})]


# PyTorch computes these with float32 constants even in float64
LOOSE = {"hardsigmoid": 1e-7, "celu": 1e-6, "hardswish": 1e-7}


def _compare(name, ours, theirs, tl_inputs, torch_inputs):
    tol = LOOSE.get(name, 1e-10)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                               atol=1e-12, err_msg=name)
    ours.sum().backward()
    theirs.sum().backward()
    for a, b in zip(tl_inputs, torch_inputs):
        if b.grad is not None:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=tol, atol=1e-12,
                                       err_msg=f"{name} gradient")


@pytest.mark.parametrize("name,kwargs", ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_activation_matches_pytorch(name, kwargs):
    a = tl.tensor(X, requires_grad=True)
    b = torch.tensor(X, requires_grad=True)
    _compare(name, getattr(tl.nn.functional, name)(a, **kwargs),
             getattr(torch.nn.functional, name)(b, **kwargs), [a], [b])


def test_prelu_and_modules_match_pytorch():
    torch_layer = torch.nn.PReLU(6, init=0.1).double()
    layer = tl.nn.PReLU(6, init=0.1).double()
    a, b = tl.tensor(X, requires_grad=True), torch.tensor(X, requires_grad=True)
    _compare("prelu", layer(a), torch_layer(b), [a, layer.weight], [b, torch_layer.weight])
    for name in ("ReLU6", "Hardswish", "Hardsigmoid", "Mish", "LogSigmoid", "Softsign",
                 "Tanhshrink", "SELU", "Softshrink", "Hardshrink"):
        ours = getattr(tl.nn, name)()(tl.tensor(X)).numpy()
        theirs = getattr(torch.nn, name)()(torch.tensor(X)).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, err_msg=name)
    assert tl.nn.Softmax2d()(tl.tensor(X.reshape(1, 4, 2, 3))).sum(1).numpy() == \
        pytest.approx(np.ones((1, 2, 3)))
    with tl.no_grad():
        layer = tl.nn.RReLU()
        layer.eval()
        np.testing.assert_allclose(layer(tl.tensor(X)).numpy(),
                                   torch.nn.RReLU().eval()(torch.tensor(X)).numpy())


def _pair():
    return rng.standard_normal((5, 4)), rng.standard_normal((5, 4))


LOSSES = {
    "margin_ranking_loss": lambda lib, a, b: lib.nn.functional.margin_ranking_loss(
        a[:, 0], b[:, 0], lib.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=lib.float64), margin=0.3),
    "hinge_embedding_loss": lambda lib, a, b: lib.nn.functional.hinge_embedding_loss(
        a, lib.tensor(np.sign(np.arange(20).reshape(5, 4) % 3 - 0.5), dtype=lib.float64)),
    "soft_margin_loss": lambda lib, a, b: lib.nn.functional.soft_margin_loss(
        a, lib.tensor(np.sign(np.arange(20).reshape(5, 4) % 3 - 0.5), dtype=lib.float64)),
    "cosine_embedding_loss": lambda lib, a, b: lib.nn.functional.cosine_embedding_loss(
        a, b, lib.tensor([1, -1, 1, -1, 1]), margin=0.1),
    "triplet_margin_loss": lambda lib, a, b: lib.nn.functional.triplet_margin_loss(
        a, b, a * 0.5 + 1, margin=0.5, swap=True),
    "poisson_nll_loss": lambda lib, a, b: lib.nn.functional.poisson_nll_loss(
        a, (b.abs() * 3).floor(), full=True),
    "gaussian_nll_loss": lambda lib, a, b: lib.nn.functional.gaussian_nll_loss(
        a, b, (a * b).abs() + 0.1, full=True),
    "multilabel_soft_margin_loss": lambda lib, a, b: lib.nn.functional
    .multilabel_soft_margin_loss(a, (b > 0).double()),
    "multi_margin_loss": lambda lib, a, b: lib.nn.functional.multi_margin_loss(
        a, lib.tensor([0, 3, 1, 2, 3]), p=2, margin=0.7),
    "multilabel_margin_loss": lambda lib, a, b: lib.nn.functional.multilabel_margin_loss(
        a, lib.tensor([[0, 2, -1, 0], [3, -1, 0, 0], [1, 2, 3, -1], [0, 1, 2, 3],
                       [-1, 0, 0, 0]])),
    "cosine_similarity": lambda lib, a, b: lib.nn.functional.cosine_similarity(a, b),
    "pairwise_distance": lambda lib, a, b: lib.nn.functional.pairwise_distance(a, b, p=3),
    "pdist": lambda lib, a, b: lib.nn.functional.pdist(a),
}


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_loss_matches_pytorch(name):
    x, y = _pair()
    a, b = tl.tensor(x, requires_grad=True), tl.tensor(y, requires_grad=True)
    ta, tb = torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)
    _compare(name, LOSSES[name](tl, a, b), LOSSES[name](torch, ta, tb), [a, b], [ta, tb])


def test_loss_modules_and_deprecated_reduction_flags():
    x, y = _pair()
    for size_average, reduce, expected in ((False, None, "sum"), (None, False, "none"),
                                           (True, True, "mean")):
        with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
            loss = tl.nn.MSELoss(size_average=size_average, reduce=reduce)
        assert loss.reduction == expected
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert tl.nn.CrossEntropyLoss(reduction="sum").reduction == "sum"
    ours = tl.nn.TripletMarginLoss(margin=0.2)(*(tl.tensor(v) for v in (x, y, x * 2)))
    theirs = torch.nn.TripletMarginLoss(margin=0.2)(*(torch.tensor(v) for v in (x, y, x * 2)))
    assert ours.item() == pytest.approx(theirs.item(), rel=1e-10)
    wrapped = tl.nn.DataParallel(tl.nn.Linear(4, 2))
    assert list(wrapped.state_dict()) == ["module.weight", "module.bias"]
    assert wrapped(tl.tensor(x, dtype=tl.float32)).shape == (5, 2)
