"""Higher-order gradients: Hessian-vector products and a gradient penalty, checked numerically.

    python examples/higher_order.py

``create_graph=True`` records the backward pass itself, so its result can be differentiated
again: ``hvp = d/dx (grad f(x) . v)``, compared here with central differences of the gradient,
and a WGAN-GP style penalty ``(|d critic / d x| - 1)^2`` whose gradient reaches the critic's
weights, compared with central differences of the penalty.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402


def f(x: tl.Tensor) -> tl.Tensor:
    """A smooth non-quadratic function (Rosenbrock-like)."""
    return ((1 - x[:-1]) ** 2 + 10 * (x[1:] - x[:-1] ** 2) ** 2).sum() + x.sin().sum()


def grad_f(x: np.ndarray) -> np.ndarray:
    xt = tl.tensor(x, requires_grad=True)
    f(xt).backward()
    return xt.grad.numpy()


def penalty(w: tl.Tensor, points: tl.Tensor) -> tl.Tensor:
    """Gradient penalty of the critic ``tanh(points @ w).sum()`` at ``points``."""
    pts = points.detach().requires_grad_()
    (g,) = tl.autograd.grad(tl.tanh(pts @ w).sum(), pts, create_graph=True)
    return ((g.square().sum(dim=1).sqrt() - 1) ** 2).mean()


def main(argv: list[str] | None = None) -> float:
    """Return the largest relative error of both checks."""
    rng = np.random.default_rng(0)
    x0, v0 = rng.normal(size=6), rng.normal(size=6)
    x = tl.tensor(x0, requires_grad=True)
    (g,) = tl.autograd.grad(f(x), x, create_graph=True)
    (hvp,) = tl.autograd.grad((g * tl.tensor(v0)).sum(), x)
    eps = 1e-5
    numeric = (grad_f(x0 + eps * v0) - grad_f(x0 - eps * v0)) / (2 * eps)
    err1 = float(np.abs(hvp.numpy() - numeric).max() / np.abs(numeric).max())
    print(f"Hessian-vector product: max relative error vs finite differences {err1:.1e}")

    w0, pts = rng.normal(size=(3, 2)), tl.tensor(rng.normal(size=(5, 3)))
    w = tl.tensor(w0, requires_grad=True)
    penalty(w, pts).backward()
    numeric = np.zeros_like(w0)
    for i in np.ndindex(w0.shape):
        d = np.zeros_like(w0)
        d[i] = eps
        numeric[i] = (penalty(tl.tensor(w0 + d), pts).item()
                      - penalty(tl.tensor(w0 - d), pts).item()) / (2 * eps)
    err2 = float(np.abs(w.grad.numpy() - numeric).max() / np.abs(numeric).max())
    print(f"gradient penalty: d penalty / d w max relative error {err2:.1e}")
    return max(err1, err2)


if __name__ == "__main__":
    main()
