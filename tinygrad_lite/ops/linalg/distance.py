"""The pairwise-distance primitive of ``cdist`` (p-norms between the rows of two batched
matrices) with its backward rule, written with the same ops so it is differentiable again."""

from __future__ import annotations

import math

import numpy as np

from ..._core.grad_mode import grad_state
from ..._core.graph import Node
from ..._core.tensor_base import TensorBase
from ..common import is_array, sum_to, wrap
from ..elementwise import where

__all__ = ["cdist_direct"]


class CdistBackward0(Node):
    """PyTorch's ``_cdist_backward``: per pair ``g * diff |diff|^(p-2) / dist^(p-1)``, 0 where the
    distance is 0 (or, for p < 1, where a coordinate difference is 0); for p = inf every
    coordinate at the maximum gets the full gradient. Under ``create_graph`` the same formula
    is recorded with tensor ops (PyTorch has no second derivative here)."""

    p: float

    def backward(self, grad):
        x1, x2 = self.saved_tensors
        if is_array(grad):
            pair = _pair_gradients_array(x1, x2, self.saved_output(), grad, self.p)
        else:
            pair = _pair_gradients_recorded(x1, x2, grad, self.p)
        edges = self.next_edges
        return (sum_to(pair.sum(-2), tuple(x1.shape)) if edges[0] else None,
                sum_to(-pair.sum(-3), tuple(x2.shape)) if edges[1] else None)


def _pair_gradients_array(x1: np.ndarray, x2: np.ndarray, dist: np.ndarray, grad: np.ndarray,
                          p: float) -> np.ndarray:
    """(..., P, R, M): each pair's gradient with respect to its x1 row."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    g, d = grad[..., None], dist[..., None]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if p == 0:
            pair = np.zeros_like(diff)
        elif p == 1:
            pair = np.sign(diff) * g
        elif p == 2:
            pair = np.where(d == 0, 0.0, diff / d) * g
        elif math.isinf(p):
            pair = np.where(np.abs(diff) == d, np.sign(diff), 0.0) * g
        else:
            zero = (d == 0) | ((diff == 0) & (p < 1))
            pair = np.where(zero, 0.0, diff * np.abs(diff) ** (p - 2) / d ** (p - 1)) * g
    return pair.astype(diff.dtype, copy=False)


def _pair_gradients_recorded(x1: TensorBase, x2: TensorBase, grad: TensorBase,
                             p: float) -> TensorBase:
    """The same formula with tensor ops (create_graph), the masked places kept finite."""
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    d = cdist_direct(x1, x2, p).unsqueeze(-1)
    g = grad.unsqueeze(-1)
    if p == 0:
        return diff * 0.0
    if p == 1:
        return diff.sign() * g
    if math.isinf(p):
        return where(diff.abs() == d, diff.sign(), 0.0) * g
    zero = (d == 0) if p >= 1 else (d == 0) | (diff == 0)
    safe_d = where(zero, 1.0, d)
    if p == 2:
        return where(zero, 0.0, diff / safe_d) * g
    safe_abs = where(zero, 1.0, diff.abs())
    return where(zero, 0.0, diff * safe_abs ** (p - 2) / safe_d ** (p - 1)) * g


def cdist_direct(x1: TensorBase, x2: TensorBase, p: float) -> TensorBase:
    """The p-norm distances between the rows of ``x1`` (..., P, M) and ``x2`` (..., R, M) from
    their differences, with PyTorch's gradient (see ``CdistBackward0``)."""
    a, b = np.broadcast_arrays(x1._data[..., :, None, :], x2._data[..., None, :, :])
    diff = np.abs(a - b)
    if p == 0:
        out = (diff != 0).sum(-1).astype(diff.dtype)
    elif p == 1:
        out = diff.sum(-1)
    elif p == 2:
        out = np.sqrt((diff * diff).sum(-1))
    elif math.isinf(p):
        out = diff.max(-1, initial=0.0)
    else:
        out = (diff ** p).sum(-1) ** (1.0 / p)
    if not (grad_state.enabled and (x1._requires_grad or x2._requires_grad)):
        return wrap(out)
    node = CdistBackward0(x1, x2)
    node.p = float(p)
    node.save_for_backward(x1, x2)
    result = wrap(out, node)
    node.save_output(result)
    return result
