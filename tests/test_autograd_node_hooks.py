"""Hooks on the graph's nodes: ``grad_fn.register_prehook`` / ``register_hook`` (what they
see, what their return values replace, where they run among tensor hooks) and
``autograd.graph.register_multi_grad_hook`` in both modes, against PyTorch."""

import numpy as np
import pytest

import tinygrad_lite as tl
from tests.oracle import torch


def _node_hooks_run(lib, replace: bool):
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * w
    log = []

    def pre(grad_outputs):
        log.append(("pre", [g.tolist() for g in grad_outputs]))
        return (grad_outputs[0] * 10,) if replace else None

    def post(grad_inputs, grad_outputs):
        log.append(("post", [g.tolist() for g in grad_inputs],
                     [g.tolist() for g in grad_outputs]))
        return (grad_inputs[0] + 1, grad_inputs[1]) if replace else None

    handles = [y.grad_fn.register_prehook(pre), y.grad_fn.register_hook(post)]
    y.register_hook(lambda g: log.append(("tensor", g.tolist())))
    (y * y).sum().backward(retain_graph=True)
    first = (log[:], x.grad.tolist(), w.grad.tolist())
    for handle in handles:
        handle.remove()
    x.grad = w.grad = None
    log.clear()
    (y * y).sum().backward()
    return first, (log, x.grad.tolist(), w.grad.tolist())


@pytest.mark.parametrize("replace", [False, True])
def test_node_pre_and_post_hooks_match_pytorch(replace):
    assert _node_hooks_run(tl, replace) == _node_hooks_run(torch, replace)


def test_node_hooks_under_create_graph_see_tensors_in_the_graph():
    results = []
    for lib in (tl, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.sin()
        y.grad_fn.register_hook(lambda gi, go: (gi[0] * go[0],))
        (g,) = lib.autograd.grad(y.sum() * 3, x, create_graph=True)
        (gg,) = lib.autograd.grad(g.sum(), x)
        results.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


def test_a_node_hook_returning_the_wrong_count_or_shape_raises():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError, match="returned 2 output gradients, expected 1"):
        y.sum().backward()
    y = x * 2
    y.grad_fn.register_hook(lambda gi, go: (gi[0][:1], None))
    with pytest.raises(RuntimeError, match="shape"):
        y.sum().backward()


def _multi_grad(lib, mode, use_b):
    a = lib.tensor([1.0, 2.0], requires_grad=True)
    b = lib.tensor([3.0], requires_grad=True)
    calls = []

    def fn(grads):
        if mode == "all":
            calls.append([None if g is None else g.tolist() for g in grads])
        else:
            calls.append(grads.tolist())

    handle = lib.autograd.graph.register_multi_grad_hook((a, b), fn, mode=mode)
    loss = (a * 2).sum() + ((b * b).sum() if use_b else 0)
    loss.backward()
    (a * 5).sum().backward()  # a second backward: the hook fires again
    handle.remove()
    (a * 7).sum().backward()  # removed: no call
    return calls


@pytest.mark.parametrize("mode", ["all", "any"])
@pytest.mark.parametrize("use_b", [True, False])
def test_multi_grad_hook_matches_pytorch(mode, use_b):
    assert _multi_grad(tl, mode, use_b) == _multi_grad(torch, mode, use_b)


def test_multi_grad_hook_refuses_a_bad_mode_and_tensors_without_grad():
    a = tl.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="mode"):
        tl.autograd.graph.register_multi_grad_hook([a], print, mode="some")
    with pytest.raises(RuntimeError, match="require grad"):
        tl.autograd.graph.register_multi_grad_hook([a, tl.ones(2)], print)
