"""``nn.utils.prune``: masks, the reparametrisation (``<name>_orig`` parameter, ``<name>_mask``
buffer, the recomputing forward pre-hook), iterative and global pruning, ``remove``; against
PyTorch where installed (float64, the same weights)."""

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.utils.prune as prune

RNG = np.random.default_rng(7)
W = RNG.standard_normal((6, 4, 3, 3))
B = RNG.standard_normal(6)


def _conv(lib):
    conv = lib.nn.Conv2d(4, 6, 3).double()
    conv.weight.data = lib.tensor(W.copy())
    conv.bias.data = lib.tensor(B.copy())
    return conv


def test_l1_unstructured_reparametrises_and_masks_the_gradient():
    conv = prune.l1_unstructured(_conv(tl), "weight", amount=0.25)
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight_orig"]
    assert [n for n, _ in conv.named_buffers()] == ["weight_mask"]
    assert list(conv.state_dict()) == ["bias", "weight_orig", "weight_mask"]
    mask = conv.weight_mask.numpy()
    assert mask.sum() == W.size - round(0.25 * W.size)
    assert np.abs(W[mask == 0]).max() <= np.abs(W[mask == 1]).min()  # the smallest went
    np.testing.assert_array_equal(conv.weight.detach().numpy(), W * mask)
    conv(tl.randn(2, 4, 5, 5, dtype=tl.float64)).sum().backward()
    grad = conv.weight_orig.grad.numpy()
    assert np.all(grad[mask == 0] == 0) and np.any(grad[mask == 1] != 0)
    assert prune.is_pruned(tl.nn.Sequential(conv)) and not prune.is_pruned(_conv(tl))


def test_iterative_pruning_chooses_among_what_is_left_and_remove_makes_it_permanent():
    conv = _conv(tl)
    prune.l1_unstructured(conv, "weight", amount=10)
    prune.ln_structured(conv, "weight", amount=2, n=2, dim=0)
    hook = next(iter(conv._forward_pre_hooks.values()))
    assert isinstance(hook, prune.PruningContainer) and len(hook) == 2
    mask = conv.weight_mask.numpy()
    assert (mask.reshape(6, -1).sum(1) == 0).sum() == 2  # two output channels gone
    prune.remove(conv, "weight")
    assert [n for n, _ in conv.named_parameters()] == ["bias", "weight"]
    assert isinstance(conv.weight, tl.nn.Parameter) and not conv._forward_pre_hooks
    np.testing.assert_array_equal(conv.weight.detach().numpy(), W * mask)
    with pytest.raises(ValueError, match="has to be pruned"):
        prune.remove(conv, "weight")


def test_amounts_and_shapes_are_checked():
    with pytest.raises(ValueError, match="amount"):
        prune.l1_unstructured(_conv(tl), "weight", amount=1.5)
    with pytest.raises(TypeError, match="amount"):
        prune.l1_unstructured(_conv(tl), "weight", amount="half")
    with pytest.raises(ValueError, match="smaller than the number"):
        prune.l1_unstructured(_conv(tl), "bias", amount=7)
    with pytest.raises(ValueError, match="multidimensional"):
        prune.ln_structured(_conv(tl), "bias", amount=1, n=1, dim=0)
    with pytest.raises(ValueError, match="same shape"):
        prune.l1_unstructured(_conv(tl), "weight", amount=1, importance_scores=tl.ones(3))


def test_random_methods_prune_the_asked_number():
    conv = prune.random_unstructured(_conv(tl), "weight", amount=0.4)
    assert conv.weight_mask.numpy().sum() == W.size - round(0.4 * W.size)
    conv = prune.random_structured(_conv(tl), "weight", amount=1, dim=1)
    kept = conv.weight_mask.numpy().sum(axis=(0, 2, 3))
    assert sorted(kept.tolist()) == [0.0, 54.0, 54.0, 54.0]
    conv = prune.identity(_conv(tl), "weight")
    assert conv.weight_mask.numpy().all()


@pytest.mark.parametrize("steps", [
    [("l1_unstructured", {"amount": 0.3})],
    [("l1_unstructured", {"amount": 11}), ("l1_unstructured", {"amount": 0.5})],
    [("ln_structured", {"amount": 0.5, "n": 2, "dim": 0})],
    [("ln_structured", {"amount": 1, "n": 1, "dim": 1}),
     ("ln_structured", {"amount": 2, "n": float("inf"), "dim": 0})],
    [("l1_unstructured", {"amount": 0.2}), ("ln_structured", {"amount": 0.5, "n": 2, "dim": 0})],
], ids=["l1", "l1-twice", "ln", "ln-twice", "l1-then-ln"])
def test_masks_outputs_and_gradients_agree_with_pytorch(steps):
    torch = pytest.importorskip("torch")
    tprune = pytest.importorskip("torch.nn.utils.prune")
    ours, theirs = _conv(tl), _conv(torch)
    for fn, kwargs in steps:
        getattr(prune, fn)(ours, "weight", **kwargs)
        getattr(tprune, fn)(theirs, "weight", **kwargs)
        np.testing.assert_array_equal(ours.weight_mask.numpy(), theirs.weight_mask.numpy())
    x = RNG.standard_normal((2, 4, 5, 5))
    out_o, out_t = ours(tl.tensor(x)), theirs(torch.tensor(x))
    np.testing.assert_allclose(out_o.detach().numpy(), out_t.detach().numpy(), rtol=1e-12)
    out_o.square().sum().backward()
    out_t.square().sum().backward()
    np.testing.assert_allclose(ours.weight_orig.grad.numpy(), theirs.weight_orig.grad.numpy(),
                               rtol=1e-10)


def test_global_and_custom_masks_agree_with_pytorch():
    torch = pytest.importorskip("torch")
    tprune = pytest.importorskip("torch.nn.utils.prune")
    a, b = _conv(tl), _conv(tl)
    ta, tb = _conv(torch), _conv(torch)
    prune.l1_unstructured(a, "weight", amount=5)
    tprune.l1_unstructured(ta, "weight", amount=5)
    prune.global_unstructured([(a, "weight"), (b, "bias")], pruning_method=prune.L1Unstructured,
                              amount=0.3)
    tprune.global_unstructured([(ta, "weight"), (tb, "bias")],
                               pruning_method=tprune.L1Unstructured, amount=0.3)
    np.testing.assert_array_equal(a.weight_mask.numpy(), ta.weight_mask.numpy())
    np.testing.assert_array_equal(b.bias_mask.numpy(), tb.bias_mask.numpy())
    mask = RNG.integers(0, 2, (6, 4, 3, 3))
    prune.custom_from_mask(b, "weight", tl.tensor(mask))
    tprune.custom_from_mask(tb, "weight", torch.tensor(mask))
    np.testing.assert_array_equal(b.weight_mask.numpy(), tb.weight_mask.numpy())
