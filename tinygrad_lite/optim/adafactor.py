"""Adafactor (Shazeer & Stern, 2018) as PyTorch 2.5+'s ``torch.optim.Adafactor``: a second
moment factored into row and column statistics for parameters of two or more dims (a full one
for vectors and scalars), the step size relative to the parameter's RMS, and the update clipped
to RMS ``d``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..dtypes import finfo_of
from ..tensor import Tensor
from .optimizer import Optimizer, bump_step, state_scalar

__all__ = ["Adafactor"]


def _lerp_(start: np.ndarray, end: np.ndarray, weight: float) -> None:
    """``start.lerp_(end, weight)`` in place, with PyTorch's two-sided formula (exact at
    weight 1)."""
    if weight < 0.5:
        start += weight * (end - start)
    else:
        start[...] = end - (end - start) * (1.0 - weight)


def _norm(a: np.ndarray) -> float:
    return float(np.sqrt(np.sum(np.square(a, dtype=np.float64))))


class Adafactor(Optimizer):
    """PyTorch's Adafactor: with ``t`` the step, ``beta2_t = 1 - t^beta2_decay``,
    ``rho_t = min(lr, 1/sqrt(t))`` and ``alpha_t = max(eps2, RMS(p)) rho_t``; the second moment
    of a matrix-like gradient is ``R C / mean(R)`` from the row and column means of ``g^2``;
    ``p -= alpha_t u / max(1, RMS(u) / d)`` with ``u = g / sqrt(max(v, eps1^2))`` (eps1 None:
    the dtype's machine epsilon). Weight decay is decoupled: ``p *= 1 - lr wd``."""

    def __init__(self, params: Iterable[Any], lr: float | Tensor = 1e-2,
                 beta2_decay: float = -0.8, eps: tuple[float | None, float] = (None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= float(lr):
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach,
                                  "maximize": maximize})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if p._data.dtype.kind == "c":
            raise RuntimeError("Adafactor does not support complex parameters")
        lr = float(group["lr"])
        eps1, eps2 = group["eps"]
        if eps1 is None:
            eps1 = float(finfo_of(p._data.dtype).eps)
        g = -grad if group["maximize"] else grad
        if not state:
            state["step"] = state_scalar(0.0)
            if g.ndim > 1:
                state["row_var"] = Tensor._wrap(np.zeros(g.shape[:-1] + (1,), g.dtype))
                state["col_var"] = Tensor._wrap(
                    np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], g.dtype))
            else:
                state["variance"] = Tensor._wrap(np.zeros_like(g))
        step = bump_step(state)
        one_minus_beta2 = step ** group["beta2_decay"]
        rho = min(lr, 1 / math.sqrt(step))
        data = p._data
        alpha = max(eps2, _norm(data) / math.sqrt(max(data.size, 1))) * rho
        if group["weight_decay"] != 0:
            data *= 1 - lr * group["weight_decay"]
        if g.ndim > 1:
            row_var, col_var = state["row_var"]._data, state["col_var"]._data
            square = np.square(g)
            _lerp_(row_var, square.sum(-1, keepdims=True) / g.shape[-1], one_minus_beta2)
            _lerp_(col_var, square.sum(-2, keepdims=True) / g.shape[-2], one_minus_beta2)
            estimate = row_var @ col_var
            estimate /= np.maximum(row_var.mean(-2, keepdims=True), eps1)
        else:
            variance = state["variance"]._data
            _lerp_(variance, g * g, one_minus_beta2)
            estimate = variance.copy()
        with np.errstate(divide="ignore"):
            update = (1.0 / np.sqrt(np.maximum(estimate, eps1 * eps1))).astype(g.dtype) * g
        denom = max(1.0, _norm(update) / (math.sqrt(max(update.size, 1)) * group["d"]))
        data -= (alpha / denom) * update
