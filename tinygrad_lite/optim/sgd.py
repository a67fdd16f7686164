"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer, axpy

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's SGD: ``g = grad + wd * p``; ``b = momentum * b + (1 - dampening) * g`` (b = g
    at the first step); ``g = g + momentum * b`` (Nesterov) or ``b``; ``p -= lr * g``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0.0,
                 dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False,
                 *, maximize: bool = False) -> None:
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g, tmp = self.scratch(p, 0), self.scratch(p, 1)
        if group["maximize"]:
            np.negative(grad, out=g)
        else:
            np.copyto(g, grad)
        wd, momentum = group["weight_decay"], group["momentum"]
        if wd != 0:
            axpy(g, p.data, wd, tmp)
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = g.copy()  # the algorithm's state
            else:
                buf *= momentum
                axpy(buf, g, 1.0 - group["dampening"], tmp)
            if group["nesterov"]:
                axpy(g, buf, momentum, tmp)
            else:
                np.copyto(g, buf)
        axpy(p.data, g, -group["lr"], tmp)
