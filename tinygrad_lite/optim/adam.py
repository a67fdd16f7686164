"""``Adam``, with amsgrad, maximize and (``decoupled_weight_decay``) AdamW's weight decay."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from .._core.tracing import tracing_state
from ..tensor import Tensor
from ._update_inputs import check_betas, check_hyperparameters, check_implementation_flags
from .optimizer import (
    Optimizer,
    axpy,
    bump_step,
    flat,
    operand,
    state_like,
    state_scalar,
    update_kernels,
)

__all__ = ["Adam"]


class Adam(Optimizer):
    """PyTorch's Adam: ``m = b1 m + (1 - b1) g``, ``v = b2 v + (1 - b2) g^2``,
    ``p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)`` (``v`` replaced by its
    running max with amsgrad); weight decay adds ``wd * p`` to the gradient."""

    _decoupled = False
    # read per call by tl.compile's replay (a scheduler's changes need no new trace)
    _dynamic_hyperparameters = ("lr",)

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False,
                 fused: bool | None = None, decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and "
                             "foreach=True")
        check_hyperparameters(lr, eps)
        check_betas(betas)
        check_hyperparameters(0.0, 0.0, weight_decay)
        check_implementation_flags(foreach, fused, differentiable)
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps,
                                      weight_decay=weight_decay, amsgrad=amsgrad,
                                      maximize=maximize, foreach=foreach, capturable=capturable,
                                      differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=(
                                          decoupled_weight_decay or self._decoupled)))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        if not state:
            state["step"] = state_scalar(0.0)
            state["exp_avg"] = state_like(p)
            state["exp_avg_sq"] = state_like(p)
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = state_like(p)
        moments = [state["exp_avg"]._data, state["exp_avg_sq"]._data]
        if group["amsgrad"]:
            moments.append(state["max_exp_avg_sq"]._data)
        kernels = update_kernels(p, grad, (lr, b1, b2, eps, wd), *moments)
        if kernels is not None:  # one pass over memory, the same operations as below
            step = bump_step(state)
            dt = p._data.dtype.type
            decoupled = wd != 0 and group["decoupled_weight_decay"]
            vmax = flat(moments[2]) if group["amsgrad"] else np.empty(0, p._data.dtype)
            kernels.adam(flat(p._data), flat(grad), flat(moments[0]), flat(moments[1]), vmax,
                         bool(group["maximize"]), decoupled, dt(1 - lr * wd),
                         wd != 0 and not decoupled, dt(wd), dt(1 - b1), dt(b2), dt(1 - b2),
                         dt(math.sqrt(1 - b2 ** step)), dt(eps), dt(-(lr / (1 - b1 ** step))))
            return
        tmp = self.scratch(p, 1)
        if group["maximize"]:
            g = self.scratch(p, 0)
            np.negative(grad, out=g)
        elif (wd != 0 and not group["decoupled_weight_decay"]) or grad.dtype != p._data.dtype:
            g = self.scratch(p, 0)  # a copy the weight decay is added to (or in p's dtype)
            np.copyto(g, grad)
        else:
            g = grad  # only read below: no copy
        step = bump_step(state, traceable=True)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p._data *= operand(1 - lr * wd, p._data.dtype)
            else:
                axpy(g, p._data, wd, tmp)
        m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
        # m.lerp_(g, 1 - b1) == m + (1 - b1) * (g - m)
        np.subtract(g, m, out=tmp)
        tmp *= 1 - b1
        m += tmp
        v *= b2
        np.multiply(g, g, out=tmp)
        tmp *= 1 - b2
        v += tmp
        bias_correction1 = 1 - b1 ** step
        if tracing_state.active:  # tl.compile: ``step`` is an array; so are these, cast to the
            # parameter's dtype as NumPy casts a Python float operand (bit-identical to eager)
            bias_correction2_sqrt = np.sqrt(1 - b2 ** step).astype(p._data.dtype)
            step_size = (lr / bias_correction1).astype(p._data.dtype)
        else:
            bias_correction2_sqrt = math.sqrt(1 - b2 ** step)
            step_size = lr / bias_correction1
        if group["amsgrad"]:
            vmax = state["max_exp_avg_sq"]._data
            np.maximum(vmax, v, out=vmax)
            np.sqrt(vmax, out=tmp)
        else:
            np.sqrt(v, out=tmp)
        tmp /= bias_correction2_sqrt
        tmp += eps
        np.divide(m, tmp, out=tmp)
        tmp *= -step_size
        p._data += tmp

