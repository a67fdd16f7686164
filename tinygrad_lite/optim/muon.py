"""Muon: momentum SGD whose update is orthogonalised by Newton-Schulz iterations, for 2-D
parameters (the hidden layers' weight matrices), as ``torch.optim.Muon``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from .optimizer import Optimizer

__all__ = ["Muon"]

_LR_ADJUSTMENTS = (None, "original", "match_rms_adamw")


def _bfloat16(a: np.ndarray) -> np.ndarray:
    """``a`` (float32) rounded to the nearest bfloat16 value, ties to even, in place: PyTorch
    runs the iterations in bfloat16, and rounding each result the same way keeps the updates
    within bfloat16's rounding of PyTorch's (without needing the ml_dtypes package)."""
    bits = a.view(np.uint32)
    finite = np.isfinite(a)
    rounded = bits + (np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1)))
    np.copyto(bits, rounded, where=finite)
    bits &= np.uint32(0xFFFF0000)
    return a


def zeropower_via_newtonschulz(update: np.ndarray, coefficients: tuple, steps: int,
                               eps: float) -> np.ndarray:
    """An approximately orthogonal matrix with the singular vectors of ``update`` (2-D): the
    matrix scaled to spectral norm <= 1, then ``steps`` quintic Newton-Schulz iterations
    ``X <- a X + (b G + c G G) X`` with ``G = X X^T``, in bfloat16 arithmetic (float32 products
    rounded to bfloat16), on the wide orientation of the matrix."""
    a, b, c = coefficients
    tall = update.shape[0] > update.shape[1]
    x = _bfloat16(np.array(update.T if tall else update, dtype=np.float32))
    norm = _bfloat16(np.array([np.linalg.norm(x)], np.float32))[0]
    x = _bfloat16(x / np.float32(max(float(norm), eps)))
    for _ in range(steps):
        gram = _bfloat16(x @ x.T)
        poly = _bfloat16(np.float32(b) * gram + np.float32(c) * (gram @ gram))
        x = _bfloat16(np.float32(a) * x + poly @ x)
    return x.T if tall else x


def adjusted_lr(lr: float, adjust_lr_fn: str | None, shape: tuple) -> float:
    """The learning rate for a (A, B) parameter: ``lr * sqrt(max(1, A / B))`` ("original", the
    default) or ``0.2 * lr * sqrt(max(A, B))`` ("match_rms_adamw", an AdamW-like update RMS)."""
    rows, cols = shape[:2]
    if adjust_lr_fn == "match_rms_adamw":
        return lr * 0.2 * math.sqrt(max(rows, cols))
    return lr * math.sqrt(max(1.0, rows / cols))


class Muon(Optimizer):
    """PyTorch's Muon: ``B = lerp(B, g, 1 - momentum)``; the update ``lerp(g, B, momentum)``
    (Nesterov) or ``B``, orthogonalised by ``ns_steps`` Newton-Schulz iterations; then
    decoupled weight decay ``p *= 1 - lr * weight_decay`` and ``p -= adjusted_lr * update``.
    Only 2-D parameters: give the others (biases, norms, embeddings) to another optimizer."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-3, weight_decay: float = 0.1,
                 momentum: float = 0.95, nesterov: bool = True,
                 ns_coefficients: tuple[float, float, float] = (3.4445, -4.775, 2.0315),
                 eps: float = 1e-07, ns_steps: int = 5, adjust_lr_fn: str | None = None) -> None:
        if lr < 0.0:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if momentum < 0.0:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn not in _LR_ADJUSTMENTS:
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        if ns_steps >= 100:
            raise ValueError("Number of steps must be less than 100 for computational "
                             "efficiency")
        if len(ns_coefficients) != 3:
            raise ValueError("Coefficients must be a tuple of exactly 3 values")
        super().__init__(params, dict(lr=lr, weight_decay=weight_decay, momentum=momentum,
                                      nesterov=nesterov, ns_coefficients=ns_coefficients,
                                      eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn))
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a "
                                     f"parameter with size: {p.size()}")

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if grad.ndim != 2:
            raise ValueError("Param gradient must be a 2D matrix")
        momentum = group["momentum"]
        held = state.get("momentum_buffer")
        if held is None:
            held = state["momentum_buffer"] = Tensor._wrap(np.zeros_like(p._data))
        buf = held._data
        buf += (1.0 - momentum) * (grad - buf)  # lerp towards the gradient
        update = grad + momentum * (buf - grad) if group["nesterov"] else buf
        ortho = zeropower_via_newtonschulz(update, group["ns_coefficients"], group["ns_steps"],
                                           group["eps"])
        lr = float(group["lr"])
        p._data *= p._data.dtype.type(1.0 - lr * group["weight_decay"])
        p._data -= (adjusted_lr(lr, group["adjust_lr_fn"], p._data.shape)
                    * ortho).astype(p._data.dtype, copy=False)
