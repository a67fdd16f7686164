"""``NAdam``: Adam with Nesterov momentum and PyTorch's momentum schedule (NAdamW with
``decoupled_weight_decay``); the running ``mu_product`` is a 0-d float32 state Tensor as in
PyTorch."""

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

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """Adam with Nesterov momentum and the momentum schedule ``mu_t = b1 (1 - 0.5 *
    0.96^(t momentum_decay))``; ``decoupled_weight_decay`` makes it NAdamW."""

    def __init__(self, params: Iterable[Any], lr: float = 2e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3,
                 decoupled_weight_decay: bool = False, *, foreach: Any = None,
                 maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_hyperparameters(lr, eps)
        check_betas(betas)
        check_hyperparameters(0.0, 0.0, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, momentum_decay=momentum_decay,
                                      decoupled_weight_decay=decoupled_weight_decay,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = descent_gradient(grad, group)
        (b1, b2), eps, wd, lr = group["betas"], group["eps"], group["weight_decay"], group["lr"]
        if not state:
            state.update(step=state_scalar(0.0), mu_product=state_scalar(1.0),
                         exp_avg=state_like(p), exp_avg_sq=state_like(p))
        t = bump_step(state)
        if wd:
            if group["decoupled_weight_decay"]:
                p._data *= 1 - lr * wd
            else:
                g += wd * p._data
        decay = group["momentum_decay"]
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * decay))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * decay))
        # the running product is kept in the scalar dtype (float32), rounding as PyTorch's does
        # (a float32 product of float32 values is exact in float64, so rounding it on the store
        # gives the float32 multiplication's result, without a ufunc call)
        product = state["mu_product"]._data
        product[()] = product.item() * float(product.dtype.type(mu))
        mu_product = product.item()
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        m += (1 - b1) * (g - m)
        v *= b2
        v += (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2 ** t)) + eps
        p._data -= (lr * (1 - mu) / (1 - mu_product)) * g / denom
        p._data -= (lr * mu_next / (1 - mu_product * mu_next)) * m / denom
