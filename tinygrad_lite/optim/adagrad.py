"""Adagrad with learning-rate decay and weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .._core.tracing import tracing_state
from ..tensor import Tensor
from ._update_inputs import check_hyperparameters, check_implementation_flags
from .optimizer import Optimizer, axpy, bump_step, state_like, state_scalar

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """PyTorch's Adagrad: ``clr = lr / (1 + (t - 1) lr_decay)``, ``s += g^2``,
    ``p -= clr g / (sqrt(s) + eps)``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lr_decay: float = 0,
                 weight_decay: float = 0, initial_accumulator_value: float = 0,
                 eps: float = 1e-10, foreach: bool | None = None, *, maximize: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        check_hyperparameters(lr)  # (PyTorch's order of checks: the first failing one raises)
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        check_hyperparameters(0.0, 0.0, weight_decay)
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: "
                             f"{initial_accumulator_value}")
        check_hyperparameters(0.0, eps)
        check_implementation_flags(foreach, fused, differentiable)
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps,
                                      weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value,
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, fused=fused))
        for group in self.param_groups:  # PyTorch creates the state eagerly
            for p in group["params"]:
                self.state[p]["step"] = state_scalar(0.0)
                self.state[p]["sum"] = state_like(p, group["initial_accumulator_value"])

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g, tmp = self.scratch(p, 0), self.scratch(p, 1)
        if group["maximize"]:
            np.negative(grad, out=g)
        else:
            np.copyto(g, grad)
        if "sum" not in state:
            state["step"] = state_scalar(0.0)
            state["sum"] = state_like(p, group["initial_accumulator_value"])
        step = bump_step(state, traceable=True)
        if group["weight_decay"] != 0:
            axpy(g, p._data, group["weight_decay"], tmp)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        if tracing_state.active:  # tl.compile: an array; cast as NumPy casts a Python float
            clr = clr.astype(p._data.dtype)
        s = state["sum"]._data
        np.multiply(g, g, out=tmp)
        s += tmp
        np.sqrt(s, out=tmp)
        tmp += group["eps"]
        np.divide(g, tmp, out=tmp)
        tmp *= -clr
        p._data += tmp
