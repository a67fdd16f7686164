"""RMSprop, with momentum and the centered variant."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._update_inputs import check_hyperparameters, check_implementation_flags
from .optimizer import (
    Optimizer,
    axpy,
    bump_step,
    flat,
    state_like,
    state_scalar,
    update_kernels,
)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """PyTorch's RMSprop: ``s = alpha s + (1 - alpha) g^2``; ``avg = sqrt(s - ga^2) + eps``
    (centered, ``ga`` the running mean of g) or ``sqrt(s) + eps``; with momentum
    ``b = momentum b + g / avg``, ``p -= lr b``; else ``p -= lr g / avg``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, alpha: float = 0.99,
                 eps: float = 1e-8, weight_decay: float = 0, momentum: float = 0,
                 centered: bool = False, capturable: bool = False, foreach: bool | None = None,
                 maximize: bool = False, differentiable: bool = False) -> None:
        check_hyperparameters(lr, eps)
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        check_hyperparameters(0.0, 0.0, weight_decay)
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps,
                                      centered=centered, weight_decay=weight_decay,
                                      capturable=capturable, foreach=foreach, maximize=maximize,
                                      differentiable=differentiable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        alpha, eps, momentum = group["alpha"], group["eps"], group["momentum"]
        if not state:
            state["step"] = state_scalar(0.0)
            state["square_avg"] = state_like(p)
            if momentum > 0:
                state["momentum_buffer"] = state_like(p)
            if group["centered"]:
                state["grad_avg"] = state_like(p)
        arrays = [state["square_avg"]._data]
        arrays += [state["grad_avg"]._data] if group["centered"] else []
        arrays += [state["momentum_buffer"]._data] if momentum > 0 else []
        kernels = update_kernels(p, grad, (group["lr"], alpha, eps, momentum,
                                           group["weight_decay"]), *arrays)
        if kernels is not None:  # one pass over memory, the same operations as below
            bump_step(state)
            dt, none = p._data.dtype.type, np.empty(0, p._data.dtype)
            kernels.rmsprop(flat(p._data), flat(grad), flat(arrays[0]),
                            flat(arrays[1]) if group["centered"] else none,
                            flat(arrays[-1]) if momentum > 0 else none,
                            bool(group["maximize"]), dt(group["weight_decay"]), dt(alpha),
                            dt(1 - alpha), dt(eps), dt(momentum), dt(-group["lr"]))
            return
        g, tmp, avg = self.scratch(p, 0), self.scratch(p, 1), self.scratch(p, 2)
        if group["maximize"]:
            np.negative(grad, out=g)
        else:
            np.copyto(g, grad)
        bump_step(state, traceable=True)  # (the count itself is not used here)
        if group["weight_decay"] != 0:
            axpy(g, p._data, group["weight_decay"], tmp)
        sq = state["square_avg"]._data
        sq *= alpha
        np.multiply(g, g, out=tmp)
        tmp *= 1 - alpha
        sq += tmp
        if group["centered"]:
            ga = state["grad_avg"]._data
            np.subtract(g, ga, out=tmp)  # ga.lerp_(g, 1 - alpha)
            tmp *= 1 - alpha
            ga += tmp
            np.multiply(ga, ga, out=avg)
            np.subtract(sq, avg, out=avg)
            np.sqrt(avg, out=avg)
        else:
            np.sqrt(sq, out=avg)
        avg += eps
        if momentum > 0:
            buf = state["momentum_buffer"]._data
            buf *= momentum
            np.divide(g, avg, out=tmp)
            buf += tmp
            axpy(p._data, buf, -group["lr"], tmp)
        else:
            np.divide(g, avg, out=tmp)
            tmp *= -group["lr"]
            p._data += tmp
