"""F.linear_cross_entropy, nn.LinearCrossEntropyLoss and nn.LinearCrossEntropyOptions against
PyTorch: values, gradients, K-dimensional weights, probability targets, argument checks."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's conventional alias

torch = pytest.importorskip("torch")


def _pair(a: np.ndarray, grad: bool = True) -> tuple[tl.Tensor, object]:
    return tl.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("extra", [{}, {"ignore_index": 2}, {"label_smoothing": 0.2},
                                   {"weighted": True}, {"bias": True}])
def test_matches_torch_values_and_grads(reduction: str, extra: dict) -> None:
    rng = np.random.default_rng(0)
    x, xt = _pair(rng.standard_normal((6, 4)))
    w, wt = _pair(rng.standard_normal((5, 4)))
    t = np.array([0, 2, 4, 1, 2, 3])
    kw: dict = {"reduction": reduction}
    kwt: dict = {"reduction": reduction}
    if "ignore_index" in extra or "label_smoothing" in extra:
        kw.update(extra)
        kwt.update(extra)
    if extra.get("weighted"):
        cw = rng.random(5) + 0.5
        kw["weight"], kwt["weight"] = tl.tensor(cw), torch.tensor(cw)
    b = bt = None
    if extra.get("bias"):
        b, bt = _pair(rng.standard_normal(5))
    out = F.linear_cross_entropy(x, w, tl.tensor(t), linear_bias=b, **kw)
    ref = torch.nn.functional.linear_cross_entropy(xt, wt, torch.tensor(t), linear_bias=bt, **kwt)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-10, atol=1e-12)
    out.sum().backward()
    ref.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-9, atol=1e-12)
    if b is not None:
        np.testing.assert_allclose(b.grad.numpy(), bt.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_k_dimensional_weight_and_probability_target() -> None:
    rng = np.random.default_rng(1)
    x, xt = _pair(rng.standard_normal((3, 4)))
    w, wt = _pair(rng.standard_normal((5, 2, 4)))
    b, bt = _pair(rng.standard_normal((5, 2)))
    t = rng.integers(0, 5, (3, 2))
    out = F.linear_cross_entropy(x, w, tl.tensor(t), linear_bias=b)
    ref = torch.nn.functional.linear_cross_entropy(xt, wt, torch.tensor(t), linear_bias=bt)
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-10)
    out.backward()
    ref.backward()
    np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-9, atol=1e-12)
    # probability target of the logits' shape; unbatched input
    p = rng.random((5,))
    p /= p.sum()
    x1, x1t = _pair(rng.standard_normal(4))
    w1, w1t = _pair(rng.standard_normal((5, 4)))
    out = F.linear_cross_entropy(x1, w1, tl.tensor(p), label_smoothing=0.1)
    ref = torch.nn.functional.linear_cross_entropy(x1t, w1t, torch.tensor(p), label_smoothing=0.1)
    np.testing.assert_allclose(out.item(), ref.item(), rtol=1e-10)


def test_argument_errors_match_torch() -> None:
    x, w = tl.zeros(2, 4), tl.zeros(5, 4)
    xt, wt = torch.zeros(2, 4), torch.zeros(5, 4)
    cases = [
        ((tl.zeros(1, 2, 4), w, tl.tensor([0])), (torch.zeros(1, 2, 4), wt, torch.tensor([0])), {}),
        ((x, tl.zeros(4), tl.tensor([0, 1])), (xt, torch.zeros(4), torch.tensor([0, 1])), {}),
        ((x, tl.zeros(5, 3), tl.tensor([0, 1])), (xt, torch.zeros(5, 3), torch.tensor([0, 1])), {}),
        ((x, w, tl.zeros(2, 5)), (xt, wt, torch.zeros(2, 5)), {"ignore_index": 1}),
        ((tl.zeros(4), tl.zeros(5, 2, 4), tl.tensor(0)),
         (torch.zeros(4), torch.zeros(5, 2, 4), torch.tensor(0)), {}),
    ]
    for args, targs, kw in cases:
        with pytest.raises(RuntimeError):
            torch.nn.functional.linear_cross_entropy(*targs, **kw)
        with pytest.raises(RuntimeError):
            F.linear_cross_entropy(*args, **kw)
    with pytest.raises(RuntimeError, match="linear_bias shape"):
        F.linear_cross_entropy(x, w, tl.tensor([0, 1]), linear_bias=tl.zeros(4))


def test_options_validated_and_results_unchanged() -> None:
    for bad in [{"acc_policy": "fast"}, {"chunking_method": "square"},
                {"batch_chunk_size": 0}, {"acc_dtype": tl.int32}]:
        with pytest.raises(ValueError):
            nn.LinearCrossEntropyOptions(**bad)
    for bad_t in [{"acc_policy": "fast"}, {"chunking_method": "square"},
                  {"batch_chunk_size": 0}, {"acc_dtype": torch.int32}]:
        with pytest.raises(ValueError):
            torch.nn.LinearCrossEntropyOptions(**bad_t)
    opts = nn.LinearCrossEntropyOptions(batch_chunk_size=2, chunking_method=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.batch_chunk_size = 3  # frozen, as in PyTorch
    rng = np.random.default_rng(2)
    x, w = tl.tensor(rng.standard_normal((6, 4))), tl.tensor(rng.standard_normal((5, 4)))
    t = tl.tensor([0, 1, 2, 3, 4, 0])
    np.testing.assert_allclose(F.linear_cross_entropy(x, w, t, options=opts).item(),
                               F.linear_cross_entropy(x, w, t).item())
    with pytest.warns(UserWarning, match="options.. ignored"):
        F.linear_cross_entropy(x, w, t, label_smoothing=0.1, options=opts)


def test_module_matches_torch() -> None:
    torch.manual_seed(0)
    ref = torch.nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True,
                                          dtype=torch.float64, ignore_index=1)
    mod = nn.LinearCrossEntropyLoss(4, 3, out_features=(2,), bias=True, dtype=tl.float64,
                                    ignore_index=1)
    assert tuple(mod.linear.weight.shape) == tuple(ref.linear.weight.shape) == (6, 4)
    mod.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    x = np.random.default_rng(3).standard_normal((5, 4))
    t = np.array([[0, 1], [2, 2], [1, 0], [0, 0], [2, 1]])
    out = mod(tl.tensor(x), tl.tensor(t))
    exp = ref(torch.tensor(x), torch.tensor(t))
    np.testing.assert_allclose(out.item(), exp.item(), rtol=1e-10)
    out.backward()
    exp.backward()
    np.testing.assert_allclose(mod.linear.weight.grad.numpy(), ref.linear.weight.grad.numpy(),
                               rtol=1e-9, atol=1e-12)
    assert mod.extra_repr().replace(" ", "") == ref.extra_repr().replace(" ", "")
    with pytest.raises(RuntimeError):
        nn.LinearCrossEntropyLoss(4, 3, weight=tl.ones(4))
    with pytest.raises(RuntimeError):
        nn.LinearCrossEntropyLoss(4, 3, label_smoothing=1.5)
