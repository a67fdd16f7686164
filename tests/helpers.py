"""Test helpers: a float64 central-difference gradient check used by the op catalogue, and the
plain training step the compile tests run eagerly and compiled."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

import tinygrad_lite as tl


def numerical_grads(fn: Callable, inputs: Sequence[tl.Tensor], upstream: np.ndarray,
                    eps: float = 1e-6) -> list[np.ndarray]:
    """d(sum(fn(*inputs) * upstream)) / d(input) for every input, by central differences."""
    grads = []
    for t in inputs:
        flat = t.detach().numpy().reshape(-1)  # a view: perturbing it perturbs the input
        g = np.zeros(flat.size)
        for k in range(flat.size):
            orig = flat[k]
            flat[k] = orig + eps
            plus = float((fn(*inputs).detach().numpy() * upstream).sum())
            flat[k] = orig - eps
            minus = float((fn(*inputs).detach().numpy() * upstream).sum())
            flat[k] = orig
            g[k] = (plus - minus) / (2 * eps)
        grads.append(g.reshape(t.detach().numpy().shape))
    return grads


def check_grads(fn: Callable, *arrays: np.ndarray, atol: float = 1e-6, rtol: float = 1e-5,
                upstream_seed: int = 1) -> None:
    """Assert that autograd's gradients of ``fn`` match central differences (float64)."""
    inputs = [tl.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = fn(*inputs)
    upstream = np.random.default_rng(upstream_seed).standard_normal(out.detach().numpy().shape)
    analytic = tl.autograd.grad(out, inputs, grad_outputs=tl.tensor(upstream), allow_unused=True)
    with tl.no_grad():
        numeric = numerical_grads(fn, inputs, upstream)
    for i, (a, n) in enumerate(zip(analytic, numeric)):
        a = np.zeros_like(n) if a is None else a.detach().numpy()
        assert a.shape == n.shape, f"input {i}: gradient shape {a.shape}, expected {n.shape}"
        assert a.dtype == np.float64, f"input {i}: gradient dtype {a.dtype}"
        np.testing.assert_allclose(a, n, atol=atol, rtol=rtol, err_msg=f"gradient of input {i}")


def check_second_order(fn: Callable, *arrays: np.ndarray, atol: float = 1e-5,
                       rtol: float = 1e-4) -> None:
    """Assert that differentiating the gradient (create_graph=True, where backward rules run on
    Tensors) matches central differences of the gradient computed by a plain backward (where the
    same rules run on arrays)."""
    inputs = [tl.tensor(np.asarray(a, dtype=np.float64), requires_grad=True) for a in arrays]
    rng = np.random.default_rng(2)
    out = fn(*inputs)
    upstream = tl.tensor(rng.standard_normal(out.detach().numpy().shape))
    weights = [rng.standard_normal(t.detach().numpy().shape) for t in inputs]
    grads = tl.autograd.grad(out, inputs, grad_outputs=upstream, create_graph=True,
                             allow_unused=True)
    pairs = [(g, w) for g, w in zip(grads, weights) if g is not None and g.requires_grad]
    if not pairs:  # the gradient does not depend on the inputs (a linear op): nothing to check
        return
    total = sum((g * tl.tensor(w)).sum() for g, w in pairs)
    analytic = tl.autograd.grad(total, inputs, allow_unused=True)

    def first_order(*xs):
        gs = tl.autograd.grad(fn(*xs), xs, grad_outputs=upstream, allow_unused=True)
        return tl.tensor(sum(float((g.detach().numpy() * w).sum()) for g, w in zip(gs, weights)
                             if g is not None), dtype=tl.float64)

    with tl.enable_grad():
        numeric = numerical_grads(first_order, inputs, np.ones(()))
    for i, (a, n) in enumerate(zip(analytic, numeric)):
        a = np.zeros_like(n) if a is None else a.detach().numpy()
        np.testing.assert_allclose(a, n, atol=atol, rtol=rtol,
                                   err_msg=f"second-order gradient of input {i}")


def train_step(model: Callable, opt: tl.optim.Optimizer,
               loss_fn: Callable = tl.nn.functional.cross_entropy) -> Callable:
    """``step(x, y)``: zero the gradients, the loss, backward, the optimizer's step; the loss."""
    def step(x: tl.Tensor, y: tl.Tensor) -> tl.Tensor:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss
    return step
