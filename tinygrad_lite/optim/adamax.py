"""``Adamax``: Adam with the infinity norm in place of the second moment, following
PyTorch's single-tensor update on the parameter's array in place."""

from __future__ import annotations

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

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adam with the infinity norm: ``u = max(b2 u, |g| + eps)``, ``p -= lr / (1 - b1^t) m / u``."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach: Any = None, *, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        check_hyperparameters(lr, eps)
        check_betas(betas)
        check_hyperparameters(0.0, 0.0, weight_decay)
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = descent_gradient(grad, group)
        (b1, b2), eps, wd, lr = group["betas"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), exp_avg=state_like(p), exp_inf=state_like(p))
        step = bump_step(state)
        if wd:
            g += wd * p._data
        m, u = state["exp_avg"]._data, state["exp_inf"]._data
        m += (1 - b1) * (g - m)
        np.maximum(u * b2, np.abs(g) + eps, out=u)
        p._data -= (lr / (1 - b1 ** step)) * m / u
