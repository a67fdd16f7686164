"""Saved-tensor hooks and activation checkpointing (tl.autograd.graph, tl.utils.checkpoint)."""

import threading
import tracemalloc

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite import nn
from tinygrad_lite.autograd.graph import save_on_cpu, saved_tensors_hooks
from tinygrad_lite.utils.checkpoint import checkpoint, checkpoint_sequential


def test_hooks_see_every_saved_tensor_and_give_it_back():
    packed, unpacked = [], []

    def pack(t):
        packed.append(t.shape)
        return ("box", t)

    def unpack(box):
        unpacked.append(box[1].shape)
        return box[1]

    x = tl.randn(3, 4, dtype=tl.float64, requires_grad=True)
    w = tl.randn(4, 2, dtype=tl.float64, requires_grad=True)
    with saved_tensors_hooks(pack, unpack):
        y = ((x @ w).tanh() * x.sum(1, keepdim=True)).exp().sum()  # inputs and outputs saved
    assert len(packed) >= 4
    y.backward()
    assert sorted(packed) == sorted(unpacked)
    gx, gw = x.grad.numpy().copy(), w.grad.numpy().copy()
    x.grad = w.grad = None
    ((x @ w).tanh() * x.sum(1, keepdim=True)).exp().sum().backward()
    np.testing.assert_array_equal(gx, x.grad.numpy())
    np.testing.assert_array_equal(gw, w.grad.numpy())


def test_innermost_hooks_apply_and_state_is_thread_local():
    calls = []
    x = tl.randn(3, requires_grad=True)
    with saved_tensors_hooks(lambda t: calls.append("outer") or t, lambda t: t):
        with saved_tensors_hooks(lambda t: calls.append("inner") or t, lambda t: t):
            y = x * x
        z = x.sin()
        seen = []
        thread = threading.Thread(target=lambda: seen.append((x * x).grad_fn is not None))
        thread.start()
        thread.join()
    assert calls == ["inner", "inner", "outer"]  # x * x saves x twice; the thread used none
    (y.sum() + z.sum()).backward()
    xs = x.detach().numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2 * xs + np.cos(xs), rtol=1e-6)


def test_save_on_cpu_is_accepted_and_exact():
    x = tl.randn(4, 4, requires_grad=True)
    with save_on_cpu(pin_memory=True):
        (x @ x).relu().sum().backward()
    g = x.grad.numpy().copy()
    x.grad = None
    (x @ x).relu().sum().backward()
    np.testing.assert_array_equal(g, x.grad.numpy())


def _mlp(depth=6, width=16):
    tl.manual_seed(0)
    layers = []
    for _ in range(depth):
        layers += [nn.Linear(width, width), nn.GELU(), nn.Dropout(0.2)]
    return nn.Sequential(*layers)


def _grads(model):
    return [p.grad.numpy().copy() for p in model.parameters()]


@pytest.mark.parametrize("segments", [1, 2, 3, 18])
def test_checkpoint_sequential_gives_identical_gradients(segments):
    model = _mlp()
    x = tl.randn(8, 16, requires_grad=True)
    tl.manual_seed(5)
    model(x).square().mean().backward()
    plain, plain_x = _grads(model), x.grad.numpy().copy()
    model.zero_grad()
    x.grad = None
    tl.manual_seed(5)  # the same dropout masks, drawn again in the recomputation
    checkpoint_sequential(model, segments, x, use_reentrant=False).square().mean().backward()
    for a, b in zip(plain, _grads(model)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(plain_x, x.grad.numpy())


def test_checkpoint_with_kwargs_module_hooks_and_double_backward():
    seen = []
    layer = nn.Linear(3, 3).double()
    layer.register_forward_hook(lambda m, i, o: seen.append(o.shape))

    def f(x, scale=1.0):
        return (layer(x) * scale).tanh() ** 3

    x = tl.randn(2, 3, dtype=tl.float64, requires_grad=True)
    out = checkpoint(f, x, scale=2.0, use_reentrant=False).sum()
    (g,) = tl.autograd.grad(out, x, create_graph=True)
    (h,) = tl.autograd.grad(g.sum(), x)
    (g0,) = tl.autograd.grad(f(x, scale=2.0).sum(), x, create_graph=True)
    (h0,) = tl.autograd.grad(g0.sum(), x)
    np.testing.assert_allclose(g.detach().numpy(), g0.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(h.numpy(), h0.numpy(), rtol=1e-12)
    assert len(seen) == 3  # forward, the recomputation in backward, and the plain call


def test_use_reentrant_must_be_explicit_as_in_pytorch():
    x = tl.randn(2, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant"):
        checkpoint(lambda t: t.sin(), x)


def test_a_function_that_changes_between_runs_is_reported():
    state = {"calls": 0}

    def unstable(x):
        state["calls"] += 1
        return x.sin() if state["calls"] == 1 else x.sin().cos()

    x = tl.randn(3, requires_grad=True)
    y = checkpoint(unstable, x, use_reentrant=False).sum()
    with pytest.raises(RuntimeError, match="must do the same computation"):
        y.backward()


def test_checkpointing_lowers_peak_memory():
    width, depth = 64, 32  # activations (1024 x 64) dominate the weights and their grads
    model = nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(width, width),
                                                              nn.Tanh())])
    x = tl.randn(1024, width)

    def peak(run):
        model.zero_grad(set_to_none=True)
        tracemalloc.start()
        run().sum().backward()
        result = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return result

    plain = peak(lambda: model(x))
    checkpointed = peak(lambda: checkpoint_sequential(model, 6, x, use_reentrant=False))
    assert checkpointed < 0.5 * plain, (plain, checkpointed)


def test_a_pack_hook_that_computes_on_tensors_does_not_pack_its_own_inputs():
    """PyTorch turns the hooks off while the pack hook runs: ``t * 4`` inside it saves its
    operands plainly instead of calling the pack hook again (which recursed)."""
    x = tl.randn(3, requires_grad=True)
    with saved_tensors_hooks(lambda t: t * 4, lambda t: t / 4):
        y = x.pow(2)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)



def test_reentrant_checkpoint_without_inputs_requiring_grad_gives_no_gradients():
    """PyTorch's reentrant variant: when no input requires grad, the result does not either
    (the layer's parameters get no gradient), with its warning; the default variant works."""
    layer = nn.Linear(4, 1)
    x = tl.ones(2, 4)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        out = checkpoint(layer, x, use_reentrant=True)
    assert not out.requires_grad
    checkpoint(layer, x, use_reentrant=False).sum().backward()
    assert layer.weight.grad is not None
