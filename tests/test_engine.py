"""The backward engine: order, accumulation, graph release, grad modes, higher order."""

import gc
import threading
import weakref

import numpy as np
import pytest

import tinygrad_lite as tl


def test_deep_chain_of_100k_ops_has_no_recursion_limit():
    x = tl.ones(16, requires_grad=True)
    y = x
    for i in range(100_000):
        y = y * 1.0001 if i % 2 == 0 else y + 0.0001
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(16, 1.0001 ** 50_000), rtol=1e-3)


def test_diamond_sums_all_paths_before_running_a_node():
    x = tl.tensor([2.0], requires_grad=True)
    calls = []
    u = x * 3.0
    u.register_hook(lambda g: calls.append(g.item()))
    y = u * u + u  # u feeds the graph three times
    y.backward()
    assert calls == [2 * 6.0 + 1]  # the hook sees the complete gradient, once
    assert x.grad.item() == 3 * (2 * 6.0 + 1)


def test_leaf_used_three_times_by_one_op_chain():
    x = tl.tensor([1.5, -2.0], requires_grad=True)
    (x * x * x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * x.detach().numpy() ** 2)


def test_gradients_accumulate_across_backward_calls():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).sum().backward()
    first = x.grad
    (x * 4).sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]
    assert x.grad is first  # accumulated in place after the first call, like PyTorch


def test_first_accumulation_does_not_alias_other_tensors():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    w = tl.tensor([1.0, 1.0], requires_grad=True)
    seed = tl.tensor([1.0, 1.0])
    (x + w).backward(seed)  # add passes the same gradient object to both inputs
    assert not np.shares_memory(x.grad.detach().numpy(), w.grad.detach().numpy())
    assert not np.shares_memory(x.grad.detach().numpy(), seed.detach().numpy())
    x.grad.data += 1
    assert w.grad.tolist() == [1.0, 1.0] and seed.tolist() == [1.0, 1.0]


def test_first_accumulation_does_not_alias_a_gradient_a_hook_kept():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    kept = []
    x.register_hook(kept.append)  # the slow path: hooks see the gradient before .grad does
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0] and not np.shares_memory(
        x.grad.detach().numpy(), kept[0].detach().numpy()
    )
    x.grad.data += 1
    assert kept[0].tolist() == [3.0, 3.0]


def test_leaf_as_root_copies_the_given_gradient():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    g = tl.tensor([5.0, 6.0])
    x.backward(g)
    assert x.grad.tolist() == [5.0, 6.0] and not np.shares_memory(
        x.grad.detach().numpy(), g.detach().numpy()
    )


def test_non_leaf_grad_only_with_retain_grad():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * 2
    h.retain_grad()
    k = x * 3
    (h * k).sum().backward()
    assert h.retains_grad and h.grad.tolist() == (k.detach().numpy()).tolist()
    with pytest.warns(UserWarning, match="not a leaf"):
        assert k.grad is None


def test_released_graph_error_names_the_op_and_retain_graph():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"MulBackward0.*second time.*retain_graph=True"):
        y.backward()


def test_retain_graph_allows_second_backward():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]


def test_saved_tensors_are_released_after_backward():
    x = tl.tensor(np.ones(1000), requires_grad=True)
    h = x.exp()
    y = (h * x).sum()
    ref = weakref.ref(h)
    del h
    assert ref() is not None  # MulBackward0 saved it for backward
    y.backward()
    assert ref() is None  # ...and backward freed it
    with pytest.raises(RuntimeError, match="retain_graph"):
        _ = y.grad_fn.next_functions[0][0].saved_tensors


def test_graph_is_freed_by_refcounting_without_gc():
    gc.disable()
    try:
        x = tl.randn(8, requires_grad=True)
        y = (x.exp() * x).relu().sum()
        node_ref = weakref.ref(y.grad_fn)
        del y
        assert node_ref() is None  # no reference cycles: freed immediately
    finally:
        gc.enable()


def test_nonscalar_backward_needs_gradient():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="implicitly created only for scalar outputs"):
        y.backward()
    y.backward(tl.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [2.0, 20.0]


def test_gradient_shape_mismatch_is_reported():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    message = r"Mismatch in shape: grad_output\[0\] has a shape of \(3,\)"
    with pytest.raises(RuntimeError, match=message):
        (x * 2).backward(tl.ones(3))


def test_backward_on_tensor_without_grad_raises():
    with pytest.raises(RuntimeError, match="does not require grad"):
        tl.ones(2).sum().backward()


def test_one_element_nonscalar_backward_is_implicit():
    x = tl.tensor([3.0], requires_grad=True)
    (x * x).backward()
    assert x.grad.tolist() == [6.0]


def test_no_grad_context_and_decorator():
    x = tl.ones(2, requires_grad=True)
    with tl.no_grad():
        y = x * 2
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()
    assert not y.requires_grad and y.grad_fn is None

    @tl.no_grad()
    def f(t):
        return t * 2

    @tl.no_grad
    def g(t):
        return t * 2

    assert f(x).grad_fn is None and g(x).grad_fn is None
    assert tl.is_grad_enabled()


def test_enable_grad_inside_no_grad():
    x = tl.ones(2, requires_grad=True)
    with tl.no_grad():
        with tl.enable_grad():
            y = x * 2
        z = x * 2
    assert y.requires_grad and not z.requires_grad


def test_set_grad_enabled_as_function_context_and_decorator():
    x = tl.ones(2, requires_grad=True)
    tl.set_grad_enabled(False)
    assert (x * 2).grad_fn is None
    tl.set_grad_enabled(True)
    with tl.set_grad_enabled(False):
        assert not tl.is_grad_enabled()
    assert tl.is_grad_enabled()

    @tl.set_grad_enabled(False)
    def f():
        return tl.is_grad_enabled()

    assert tl.is_grad_enabled() and f() is False and tl.is_grad_enabled()


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with tl.no_grad():
            raise ValueError
    assert tl.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []
    with tl.no_grad():
        t = threading.Thread(target=lambda: seen.append(tl.is_grad_enabled()))
        t.start()
        t.join()
    assert seen == [True]


def test_autograd_grad_does_not_touch_dot_grad():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    w = tl.tensor([3.0, 4.0], requires_grad=True)
    (gx,) = tl.autograd.grad((x * w).sum(), x)
    assert gx.tolist() == [3.0, 4.0] and x.grad is None and w.grad is None


def test_autograd_grad_allow_unused():
    x = tl.tensor([1.0], requires_grad=True)
    unused = tl.tensor([1.0], requires_grad=True)
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        tl.autograd.grad(y, [x, unused], retain_graph=True)
    gx, gu = tl.autograd.grad(y, [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0] and gu is None


def test_autograd_grad_wrt_non_leaf_and_pruning():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    h = x * x
    other = tl.tensor([1.0, 1.0], requires_grad=True)
    branch = (other * 5).sum()
    branch.backward()  # releases the branch's graph: grad must not need to walk it again
    y = (h * 3).sum() + (other * 5).sum()
    (gh,) = tl.autograd.grad(y, h)
    assert gh.tolist() == [3.0, 3.0]


def test_second_derivatives_match_analytic_values():
    x = tl.tensor([0.5, -1.0, 2.0], dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad((x**3).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), 3 * x.detach().numpy() ** 2)
    (h,) = tl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x.detach().numpy())

    x = tl.tensor([0.3, 1.2], dtype=tl.float64, requires_grad=True)
    (g,) = tl.autograd.grad((x.sin() * x.exp()).sum(), x, create_graph=True)
    expected = np.exp(x.detach().numpy()) * (
        np.sin(x.detach().numpy()) + np.cos(x.detach().numpy())
    )
    np.testing.assert_allclose(g.detach().numpy(), expected)
    (h,) = tl.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(
        h.numpy(), 2 * np.exp(x.detach().numpy()) * np.cos(x.detach().numpy())
    )


def test_hessian_vector_product_matches_analytic():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((4, 4))
    x0, v0 = rng.standard_normal(4), rng.standard_normal(4)
    x = tl.tensor(x0, requires_grad=True)
    A = tl.tensor(a)
    f = 0.5 * (x @ A @ x) + (x**3).sum() + x.tanh().sum()
    (g,) = tl.autograd.grad(f, x, create_graph=True)
    (hv,) = tl.autograd.grad(g, x, grad_outputs=tl.tensor(v0))
    t = np.tanh(x0)
    hessian = 0.5 * (a + a.T) + np.diag(6 * x0) + np.diag(-2 * t * (1 - t**2))
    np.testing.assert_allclose(hv.numpy(), hessian @ v0, rtol=1e-10)


def test_backward_with_create_graph_gives_differentiable_grad():
    x = tl.tensor([2.0], dtype=tl.float64, requires_grad=True)
    (x**4).backward(create_graph=True)
    assert x.grad.requires_grad and x.grad.item() == 32.0
    g = x.grad
    x.grad = None
    g.backward()
    assert x.grad.item() == 12 * 4.0


def test_nothing_recorded_during_plain_backward():
    x = tl.tensor([2.0], requires_grad=True)
    seen = []
    (x * x).register_hook(lambda g: seen.append(g.requires_grad))
    y = (x * x * 1.0).sum()
    y.register_hook(lambda g: seen.append(g.grad_fn))
    y.backward()
    assert seen == [None] and x.grad.grad_fn is None


def test_hooks_on_leaf_run_in_order_and_can_replace():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    order = []
    x.register_hook(lambda g: order.append("a"))
    h = x.register_hook(lambda g: g * 10)
    x.register_hook(lambda g: order.append(g.tolist()))
    (x * 1.0).sum().backward()
    assert order == ["a", [10.0, 10.0]] and x.grad.tolist() == [10.0, 10.0]
    h.remove()
    h.remove()  # idempotent
    x.grad = None
    (x * 1.0).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_hook_requires_grad():
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        tl.ones(2).register_hook(lambda g: g)


def test_requires_grad_rules():
    x = tl.ones(2, requires_grad=True)
    y = x * 2
    with pytest.raises(RuntimeError, match="leaf"):
        y.requires_grad = False
    z = tl.ones(2)
    assert z.is_leaf and not z.requires_grad
    assert z.requires_grad_() is z and z.requires_grad
    d = y.detach()
    assert (
        d.is_leaf
        and not d.requires_grad
        and np.shares_memory(d.detach().numpy(), y.detach().numpy())
    )


def test_grad_fn_name_and_next_functions():
    a = tl.ones(2, requires_grad=True)
    b = tl.ones(2)
    y = (a * 2 + b).sum()
    assert y.grad_fn.name() == "SumBackward0"
    ((add_node, idx),) = y.grad_fn.next_functions
    assert add_node.name() == "AddBackward0" and idx == 0
    (mul_node, _), (none, _) = add_node.next_functions
    assert mul_node.name() == "MulBackward0" and none is None
    acc, _ = mul_node.next_functions[0]
    assert acc.name() == "AccumulateGrad" and acc.variable is a


def test_clone_and_to_are_differentiable():
    x = tl.tensor([1.0, 2.0], requires_grad=True)
    y = x.clone().double() * 3
    assert y.dtype == tl.float64
    y.sum().backward()
    assert x.grad.dtype == tl.float32 and x.grad.tolist() == [3.0, 3.0]


def test_mixed_precision_gradient_keeps_leaf_dtype():
    a = tl.ones(3, requires_grad=True)  # float32
    b = tl.ones(3, dtype=tl.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == tl.float32 and b.grad.dtype == tl.float64
