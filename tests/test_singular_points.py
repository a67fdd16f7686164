"""Gradients and second derivatives at the singular points of ops, against PyTorch: zero norms
and standard deviations (where PyTorch's second derivative is NaN, and ours must be too), the
exact thresholds of softplus, smooth L1 and Huber (which side PyTorch's rules take), kl_div's
target gradient, piecewise-linear activations (a recorded zero second derivative), and step
functions under create_graph (a constant zero that does not tie the graph to the upstream)."""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")


def _values(t) -> np.ndarray:
    if t is None:
        return None
    if hasattr(t, "_is_zerotensor") and t._is_zerotensor():
        return np.zeros(tuple(t.shape))
    return np.array(t.detach().numpy())


def first_and_second(lib, fn, *arrays):
    """``fn``'s gradient (weighted upstream) and the derivative of that gradient along fixed
    weights, for float64 inputs."""
    xs = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in arrays]
    out = fn(lib, *xs)
    weight = lib.tensor(np.arange(out.numel()).reshape(tuple(out.shape)) % 3 + 1.0,
                        dtype=lib.float64)
    grads = lib.autograd.grad((out * weight).sum(), xs, create_graph=True, allow_unused=True)
    probe = sum((g * lib.tensor(np.arange(g.numel()).reshape(tuple(g.shape)) + 1.0,
                                dtype=lib.float64)).sum() for g in grads if g is not None)
    second = lib.autograd.grad(probe, xs, allow_unused=True) if probe.requires_grad else None
    return ([_values(g) for g in grads], None if second is None else
            [_values(h) for h in second])


def assert_like_pytorch(fn, *arrays):
    ours, theirs = first_and_second(tl, fn, *arrays), first_and_second(torch, fn, *arrays)
    for mine, ref in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(mine, ref, rtol=1e-10, atol=1e-12, equal_nan=True)
    assert (ours[1] is None) == (theirs[1] is None)
    for mine, ref in zip(ours[1] or [], theirs[1] or []):
        ref = np.zeros_like(mine) if ref is None else ref
        mine = np.zeros_like(ref) if mine is None else mine
        np.testing.assert_array_equal(np.isnan(mine), np.isnan(ref))  # NaN where PyTorch's is
        np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12, equal_nan=True)
    return ours


ZERO = np.zeros((2, 3))
HALF_ZERO = np.array([[0.0, 0.0, 0.0], [1.0, -2.0, 0.5]])


@pytest.mark.parametrize("name,fn", [
    ("normalize", lambda lib, x: lib.nn.functional.normalize(x, dim=1)),
    ("norm", lambda lib, x: x.norm()),
    ("norm-fro-dim-keepdim", lambda lib, x: x.norm(p="fro", dim=1, keepdim=True)),
    ("norm-2-dim", lambda lib, x: x.norm(p=2, dim=0)),
    ("vector_norm", lambda lib, x: lib.linalg.vector_norm(x, dim=1)),
    ("std", lambda lib, x: x.std(dim=1)),
    ("std-times-x", lambda lib, x: x.std(dim=1, keepdim=True) * x),
    ("var-of-norm", lambda lib, x: x.norm(dim=1).var()),
    ("norm-of-var", lambda lib, x: x.var(dim=1).norm()),
    ("std-of-std", lambda lib, x: x.std(dim=1).std()),
])
@pytest.mark.parametrize("data", [ZERO, HALF_ZERO], ids=["zero", "zero-row"])
def test_norm_and_std_at_zero_second_derivative_like_pytorch(name, fn, data):
    _, second = assert_like_pytorch(fn, data)
    if name in ("normalize", "norm", "norm-fro-dim-keepdim", "vector_norm") and data is ZERO:
        assert np.isnan(second[0]).all()  # PyTorch's NaN, not a quiet 0


def test_kl_div_target_gradient_at_equal_large_and_zero_targets():
    big = np.array([1012.76, 1761.09])
    assert_like_pytorch(lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction="sum"), big, big)
    assert_like_pytorch(lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction="sum",
                                                               log_target=True), big, big)
    (grads, _) = assert_like_pytorch(
        lambda lib, x, t: lib.nn.functional.kl_div(x, t, reduction="none"),
        np.array([0.5, -0.2, 0.1]), np.array([0.0, 0.3, 0.7]))
    assert np.isnan(grads[1][0])  # PyTorch's xlogy rule: t / t at t = 0


@pytest.mark.parametrize("beta,threshold", [(2.0, 4.0), (1.0, 20.0), (0.5, 1.0)])
def test_softplus_exactly_at_threshold(beta, threshold):
    at = threshold / beta
    data = np.array([at, at - 1e-6, at + 1e-6, 0.0])
    _, second = assert_like_pytorch(
        lambda lib, x: lib.nn.functional.softplus(x, beta=beta, threshold=threshold), data)
    assert second[0][0] == 0.0  # PyTorch's double backward: strictly below the threshold


@pytest.mark.parametrize("loss", ["smooth_l1_loss", "huber_loss"])
def test_smooth_l1_and_huber_second_derivative_strictly_inside(loss):
    def fn(lib, x, y):
        kwargs = {"beta": 0.5} if loss == "smooth_l1_loss" else {"delta": 0.5}
        return getattr(lib.nn.functional, loss)(x, y, reduction="none", **kwargs)

    x = np.array([0.5, -0.5, 0.2, 0.0, 1.5])
    y = np.array([0.0, 0.0, 0.0, 0.0, 1.0])  # |x - y| = beta at the first two and the last
    _, second = assert_like_pytorch(fn, x, y)
    assert second[0][0] == second[0][1] == second[0][4] == 0.0


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh", "leaky_relu", "hardshrink",
                                  "softshrink", "threshold", "rrelu", "prelu", "abs", "l1_loss"])
def test_piecewise_linear_second_derivative_is_a_recorded_zero(name):
    functions = {
        "relu": lambda lib, x: lib.relu(x), "abs": lambda lib, x: lib.abs(x),
        "threshold": lambda lib, x: lib.nn.functional.threshold(x, 0.5, -1.0),
        "rrelu": lambda lib, x: lib.nn.functional.rrelu(x, training=False),
        "prelu": lambda lib, x: lib.nn.functional.prelu(x, lib.tensor([0.3], dtype=lib.float64)),
        "l1_loss": lambda lib, x: lib.nn.functional.l1_loss(x, lib.zeros_like(x), reduction="sum"),
    }
    fn = functions.get(name, lambda lib, x: getattr(lib.nn.functional, name)(x))
    data = np.array([-1.3, 0.0, 0.4, 0.5, 1.0, 6.0, 7.0])
    for lib in (tl, torch):
        x = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(fn(lib, x).sum(), x, create_graph=True)
        assert g.requires_grad  # recorded, as PyTorch records it
        (gg,) = lib.autograd.grad(g.sum(), x)
        np.testing.assert_array_equal(_values(gg), np.zeros(data.shape))


def test_hardsigmoid_second_derivative_raises_as_in_pytorch():
    for lib in (tl, torch):
        x = lib.tensor([-4.0, 0.5, 4.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="hardsigmoid_backward is not implemented"):
            lib.autograd.grad(g.sum(), x)


@pytest.mark.parametrize("step", ["round", "floor", "ceil", "trunc", "sign"])
def test_step_function_after_std_at_zero_second_derivative_is_finite(step):
    """round (or floor, ...) of a value derived from std at 0: its gradient is a constant
    zero in PyTorch, so the second derivative never reaches std's 0/0 (found by the fuzzer)."""
    def fn(lib, v):
        s = lib.broadcast_to(v, (3, 4)).std(dim=1, keepdim=True) + lib.broadcast_to(v, (3, 4))
        return getattr(lib, step)(s * 2) * s

    (_, second) = assert_like_pytorch(fn, np.array([[1.7], [0.99], [1.5]]))
    assert np.isfinite(second[0]).all()


def test_cumsum_stack_chain_with_std_at_zero_like_pytorch():
    def fn(lib, a, c):
        s = lib.broadcast_to(c, (3, 4)).std(dim=1, keepdim=True)
        stacked = lib.stack([lib.cumsum(a, dim=1), lib.broadcast_to(s, (3, 4))], dim=2).sum(dim=2)
        return lib.round(stacked * 3) / 3 + stacked * stacked

    assert_like_pytorch(fn, np.arange(12.0).reshape(3, 4) / 4 - 1, np.array([[0.5], [0.0],
                                                                              [-1.5]]))


def test_layer_norm_refuses_an_empty_normalized_shape_as_pytorch():
    """(with a 0-d input it used to reach the node's in-place passes: a TypeError)"""
    for shape in ((), (3,)):
        for lib in (tl, torch):
            with pytest.raises(RuntimeError, match="at least 1-dimensional"):
                lib.nn.functional.layer_norm(lib.ones(shape, dtype=lib.float64), ())


@pytest.mark.parametrize("name", ["sinc", "copysign"])
def test_sinc_and_copysign_at_zero_like_pytorch(name):
    """PyTorch masks their 0/0 after the division: first derivative finite, second NaN at 0."""
    data = np.array([0.0, 0.5, -1.5, 2.0])
    if name == "sinc":
        _, second = assert_like_pytorch(lambda lib, x: lib.sinc(x), data)
    else:
        _, second = assert_like_pytorch(lambda lib, x, y: lib.copysign(x, y), data,
                                        np.array([-1.0, 2.0, 0.0, -0.0]))
    assert np.isnan(second[0][0]) and np.isfinite(second[0][1:]).all()


@pytest.mark.parametrize("row", [[0.0, -0.5, 2.0, 0.7], [1.5, 0.0, 2.0, 0.0], [0.5, -2.0, 3.0, 0.0],
                                 [0.0, 0.0, 1.0, 1.0]])
def test_cumprod_gradient_with_zeros_like_pytorch(row):
    """PyTorch's zero-aware rule: exactly 0 after a slice's first zero, even where the upstream
    gradient is NaN or infinite there (the fuzzer found cumprod then normalize of a zero row)."""
    x0 = np.array([row, [0.3, -1.2, 0.8, 2.0]])
    upstream = np.array([[np.nan, 1.0, np.inf, -2.0], [1.0, 2.0, -1.0, 0.5]])
    results = []
    for lib in (tl, torch):
        x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
        x.cumprod(1).backward(lib.tensor(upstream, dtype=lib.float64))
        results.append(x.grad.numpy())
    np.testing.assert_array_equal(np.isnan(results[0]), np.isnan(results[1]))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12, equal_nan=True)
    _, second = assert_like_pytorch(lambda lib, x: lib.cumprod(x, 1), x0)
    assert all(np.isfinite(h).all() for h in second)


def test_cumprod_second_derivative_keeps_nan_through_zero_products_like_pytorch():
    """kl_div at a zero target sends an infinite slope back into cumprod's gradient; PyTorch's
    double backward multiplies it by the zero product of the others (prod of x before k times
    cumprod after k), so the Hessian-vector product is NaN along the whole row, also at the
    positions after the zeros (the fuzzer's seed 1018488: ours was 0 at the last one)."""
    def run(lib):
        v0 = lib.tensor([[-1.0, -0.0, 0.0, 0.5], [0.3, 1.0, -2.0, 0.5]], dtype=lib.float64,
                        requires_grad=True)
        v1 = lib.tensor([[1.0, -2.0, -2.0, -0.5]], dtype=lib.float64)
        x = lib.nn.functional.kl_div(v1.expand(2, 4), v0 * v0, reduction="none")
        out = (lib.cumprod(x, dim=1) * lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64)).sum()
        (g,) = lib.autograd.grad(out, v0, create_graph=True)
        u = lib.tensor([[0.3, -0.7, 1.1, 0.9]], dtype=lib.float64)
        (h,) = lib.autograd.grad((g * u).sum(), v0)
        return g.detach().numpy(), h.detach().numpy()

    (g, h), (g_ref, h_ref) = run(tl), run(torch)
    np.testing.assert_allclose(g, g_ref, rtol=1e-12, equal_nan=True)
    np.testing.assert_allclose(h, h_ref, rtol=1e-10, equal_nan=True)
    assert np.isnan(h[0]).all() and np.isfinite(h[1]).all()
