"""Stochastic gradient descent with momentum, dampening, Nesterov and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..ops import kernel_choice
from ..tensor import Tensor
from ._update_inputs import check_implementation_flags, check_lr
from .optimizer import Optimizer, axpy, flat, operand, update_kernels

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's SGD: ``g = grad + wd * p``; ``b = momentum * b + (1 - dampening) * g`` (b = g
    at the first step); ``g = g + momentum * b`` (Nesterov) or ``b``; ``p -= lr * g``."""

    # read per call by tl.compile's replay (a scheduler's changes need no new trace)
    _dynamic_hyperparameters = ("lr", "momentum")

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, momentum: float = 0,
                 dampening: float = 0, weight_decay: float = 0, nesterov: bool = False,
                 *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_lr(lr, allow_nan=True)
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        check_implementation_flags(foreach, fused, differentiable)
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov,
                                      maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        # ``d_p`` starts as the gradient itself (never written to); it is copied into a scratch
        # array only when maximize or weight decay must change it, so the common case (momentum
        # only) runs the same four NumPy calls as a hand-written update.
        if p._data.size >= kernel_choice.MIN_ELEMENTS and self._fused_update(p, grad, group,
                                                                              state):
            return
        d_p = grad
        if group["maximize"]:
            d_p = np.negative(grad, out=self.scratch(p, 0))
        wd, momentum = group["weight_decay"], group["momentum"]
        if wd != 0:
            d_p = self._writable(p, d_p, grad)
            axpy(d_p, p._data, wd, self.scratch(p, 1))
        if momentum != 0:
            held = state.get("momentum_buffer")
            if held is None:
                buf = d_p.copy()  # the algorithm's state, kept as a Tensor as in PyTorch
                state["momentum_buffer"] = Tensor._wrap(buf)
            else:
                buf = held._data
                buf *= operand(momentum, buf.dtype)
                axpy(buf, d_p, 1.0 - group["dampening"], self.scratch(p, 1))
            if group["nesterov"]:
                d_p = self._writable(p, d_p, grad)
                axpy(d_p, buf, momentum, self.scratch(p, 1))
            else:
                d_p = buf
        axpy(p._data, d_p, -group["lr"], self.scratch(p, 1))

    def _fused_update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> bool:
        """The update as one compiled pass (the same operations as ``_update``'s), when the
        kernels apply; False when the NumPy update must run."""
        wd, momentum, lr = group["weight_decay"], group["momentum"], group["lr"]
        held = state.get("momentum_buffer") if momentum != 0 else None
        buffers = () if held is None else (held._data,)
        kernels = update_kernels(p, grad, (lr, momentum, wd, group["dampening"]), *buffers)
        if kernels is None:
            return False
        dt = p._data.dtype.type
        if momentum != 0 and held is None:  # the first step: the kernel writes b = g
            state["momentum_buffer"] = Tensor._wrap(np.empty_like(p._data))
            buffers = (state["momentum_buffer"]._data,)
        buf = flat(buffers[0]) if buffers else np.empty(0, p._data.dtype)
        kernels.sgd(flat(p._data), flat(grad), buf, bool(group["maximize"]), dt(wd),
                    dt(momentum), dt(1.0 - group["dampening"]), bool(group["nesterov"]),
                    held is None, dt(-lr))
        return True

    def _writable(self, p: Tensor, d_p: np.ndarray, grad: np.ndarray) -> np.ndarray:
        """``d_p`` as an array this step may modify: a scratch copy while it is the gradient."""
        if d_p is not grad:
            return d_p
        out = self.scratch(p, 0)
        np.copyto(out, grad)
        return out
