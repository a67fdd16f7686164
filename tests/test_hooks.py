"""Tensor hooks: register_hook and register_post_accumulate_grad_hook."""

import numpy as np
import pytest

import tinygrad_lite as tl


def test_leaf_hook_fires_once_on_the_summed_gradient_before_accumulation():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    seen = []

    def hook(g):
        seen.append((g.tolist(), None if x.grad is None else x.grad.tolist()))

    x.register_hook(hook)
    (x * 2 + x * 3).sum().backward()
    assert seen == [([5.0, 5.0], None)]  # once, with both paths summed, before .grad is set
    assert x.grad.tolist() == [5.0, 5.0]


def test_non_leaf_hook_sees_complete_gradient_and_can_replace_it():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 3
    seen = []
    h.register_hook(lambda g: seen.append(g.tolist()))
    h.register_hook(lambda g: g * 0)  # replace: nothing flows on to x
    h.register_hook(lambda g: seen.append(g.tolist()))  # sees the replacement
    (h * h + h).sum().backward()
    assert seen == [[7.0, 13.0], [0.0, 0.0]]
    assert x.grad.tolist() == [0.0, 0.0]


def test_hooks_run_in_registration_order_and_removal_is_idempotent():
    x = tl.tensor([1.0], requires_grad=True)
    order = []
    handles = [x.register_hook(lambda g, i=i: order.append(i)) for i in range(3)]
    handles[1].remove()
    handles[1].remove()
    (x * 1.0).sum().backward()
    assert order == [0, 2]


def test_handle_is_a_context_manager():
    x = tl.tensor([1.0], requires_grad=True)
    with x.register_hook(lambda g: g * 10):
        (x * 1.0).sum().backward()
    assert x.grad.tolist() == [10.0]
    (x * 1.0).sum().backward()
    assert x.grad.tolist() == [11.0]


def test_hooks_need_requires_grad():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tl.ones(2).register_hook(lambda g: g)
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tl.ones(2).register_post_accumulate_grad_hook(lambda t: None)


def test_hook_returning_wrong_shape_is_an_error():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match=r"MulBackward0 returned shape \(\), expected \(2,\)"):
        h.sum().backward()


def test_post_accumulate_grad_hook_sees_updated_grad():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    seen = []
    handle = w.register_post_accumulate_grad_hook(lambda t: seen.append((t is w,
                                                                          t.grad.tolist())))
    (w * 3).sum().backward()
    (w * 3).sum().backward()
    assert seen == [(True, [3.0, 3.0]), (True, [6.0, 6.0])]
    handle.remove()
    (w * 3).sum().backward()
    assert len(seen) == 2


def test_post_accumulate_hook_as_optimizer_step():
    w = tl.tensor([1.0, 2.0], requires_grad=True)

    def sgd_step(t):
        t.data -= 0.5 * t.grad.data
        t.grad = None

    w.register_post_accumulate_grad_hook(sgd_step)
    (w * w).sum().backward()
    assert w.tolist() == [0.0, 0.0] and w.grad is None


def test_post_accumulate_hook_rejected_on_non_leaf():
    h = tl.tensor([1.0], requires_grad=True) * 2
    with pytest.raises(RuntimeError, match="non-leaf.*MulBackward0"):
        h.register_post_accumulate_grad_hook(lambda t: None)


def test_post_accumulate_hook_not_run_by_autograd_grad():
    w = tl.tensor([1.0], requires_grad=True)
    seen = []
    w.register_post_accumulate_grad_hook(seen.append)
    (g,) = tl.autograd.grad((w * 4).sum(), w)
    assert g.tolist() == [4.0] and seen == [] and w.grad is None


def test_hooks_fire_during_autograd_grad_and_change_the_result():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    seen = []
    h.register_hook(lambda g: seen.append(("h", g.tolist())))
    x.register_hook(lambda g: g + 1)
    (gx,) = tl.autograd.grad(h.sum(), x)
    assert seen == [("h", [1.0, 1.0])]
    assert gx.tolist() == [3.0, 5.0] and x.grad is None


def test_hooks_fire_with_create_graph_and_stay_differentiable():
    x = tl.tensor([1.5], dtype=tl.float64, requires_grad=True)
    h = x ** 2
    seen = []

    def hook(g):
        seen.append(g.requires_grad)
        return g * x  # a hook written in tensor ops is part of the new graph

    h.register_hook(hook)
    (g,) = tl.autograd.grad((h * x).sum(), x, create_graph=True)
    # d/dx [x^2 * x] with the hook: grad_h = x * x (scaled by hook) -> 2x * x*x + x^2
    np.testing.assert_allclose(g.item(), 2 * 1.5 ** 3 + 1.5 ** 2)
    assert seen == [True]
    (h2,) = tl.autograd.grad(g, x)
    # The second backward flows through h again (g contains h, saved by MulBackward0), so the
    # hook fires again, as in PyTorch: 6x^2 from 2x^3, and (1 * x) * 2x instead of 2x from x^2.
    assert seen == [True, False]
    np.testing.assert_allclose(h2.item(), 6 * 1.5 ** 2 + 2 * 1.5 ** 2)
