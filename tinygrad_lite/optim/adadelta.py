"""``Adadelta``: steps scaled by the ratio of running RMS of past updates to running RMS of
gradients, as PyTorch's single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._update_inputs import check_hyperparameters, check_implementation_flags, descent_gradient
from .optimizer import Optimizer, bump_step, state_like, state_scalar

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """``delta = sqrt(acc_delta + eps) / sqrt(square_avg + eps) * g``, ``p -= lr * delta``."""

    def __init__(self, params: Iterable[Any], lr: float = 1.0, rho: float = 0.9,
                 eps: float = 1e-6, weight_decay: float = 0, foreach: Any = None, *,
                 capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_hyperparameters(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        check_hyperparameters(0.0, eps, weight_decay)
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay,
                                      maximize=maximize, capturable=capturable,
                                      foreach=foreach, differentiable=differentiable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = descent_gradient(grad, group)
        rho, eps, wd, lr = group["rho"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), square_avg=state_like(p),
                         acc_delta=state_like(p))
        bump_step(state, traceable=True)  # (the count itself is not used here)
        if wd:
            g += wd * p._data
        sq, acc = state["square_avg"]._data, state["acc_delta"]._data
        sq *= rho
        sq += (1 - rho) * g * g
        delta = np.sqrt(acc + eps) / np.sqrt(sq + eps) * g
        acc *= rho
        acc += (1 - rho) * delta * delta
        p._data -= lr * delta
