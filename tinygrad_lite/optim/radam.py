"""``RAdam``: Adam with the variance of its adaptive learning rate rectified, plain
momentum SGD while that variance estimate is unreliable, as PyTorch's single-tensor update."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._update_inputs import (
    check_betas,
    check_hyperparameters,
    check_implementation_flags,
    descent_gradient,
)
from .optimizer import Optimizer, bump_step, state_like, state_scalar

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """Adam with the variance of the adaptive learning rate rectified: plain momentum SGD
    while the variance estimate is unreliable (rho_t <= 5)."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *,
                 foreach: Any = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_hyperparameters(lr, eps)
        check_betas(betas)
        check_hyperparameters(0.0, 0.0, weight_decay)
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, maximize=maximize,
                                      foreach=foreach, capturable=capturable,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      differentiable=differentiable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = descent_gradient(grad, group)
        (b1, b2), eps, wd, lr = group["betas"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), exp_avg=state_like(p), exp_avg_sq=state_like(p))
        t = bump_step(state)
        if wd:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * wd
            else:
                g += wd * p._data
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        bc1, bc2 = 1 - b1 ** t, 1 - b2 ** t
        corrected = m / bc1
        rho_inf = 2 / (1 - b2) - 1
        rho_t = rho_inf - 2 * t * b2 ** t / bc2
        if rho_t > 5.0:
            rect = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf
                             / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
            adaptive = math.sqrt(bc2) / (np.sqrt(v) + eps)
            p._data -= lr * corrected * rect * adaptive
        else:
            p._data -= lr * corrected
