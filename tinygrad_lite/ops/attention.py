"""Scaled dot-product attention over short sequences as one primitive, PyTorch's CPU node
``ScaledDotProductFlashAttentionForCpuBackward0``.

Composed (a batched product, a scale, a causal ``where``, softmax, a product), one attention call
records five nodes, and each of the scale, the mask and the softmax makes a fresh score-sized
array forward and again backward. Here the scores are one buffer, scaled, masked and
normalised in place, and only the probabilities ``P`` are kept; backward is
``dV = P^T dO``, ``dS = P * (dO V^T - rowsum(P * dO V^T)) * scale``, ``dQ = dS K``,
``dK = dS^T Q``, again in one score-sized buffer. No mask or the causal one, no dropout, float32
or float64 operands of one batch shape (``nn.functional.scaled_dot_product_attention`` sends
the rest to the composite). Under ``create_graph`` the backward recomputes ``P`` with recorded
operations and applies the same formulas to tensors, so it differentiates again.
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import FAST_FLOATS, array_sum, is_array, last_axis_dot, swap_last_dims, wrap
from .elementwise import where
from .reduce import mm
from .softmax import last_dim_softmax_grad_kernel, last_dim_softmax_kernel, softmax

__all__ = ["attention", "fused_attention_ok"]

def fused_attention_ok(query: TensorBase, key: TensorBase, value: TensorBase) -> bool:
    """Whether ``attention`` takes these operands: float32 or float64 alike, at least 2-D, one
    batch shape, no empty dimension."""
    q, k, v = query._data, key._data, value._data
    return (q.dtype in FAST_FLOATS and q.dtype == k.dtype == v.dtype and q.ndim >= 2
            and q.ndim == k.ndim == v.ndim and q.shape[:-2] == k.shape[:-2] == v.shape[:-2]
            and q.size > 0 and k.size > 0 and v.size > 0)


def _above_diagonal(n_q: int, n_k: int) -> np.ndarray:
    """The positions a causal mask hides: key after query (top-left aligned, as PyTorch)."""
    return np.arange(n_k)[None, :] > np.arange(n_q)[:, None]


class AttentionBackward(Node):
    """The gradients of ``attention`` for query, key and value (see the module)."""

    scale: float
    causal: bool

    def name(self) -> str:
        """PyTorch's name for its CPU attention node."""
        return "ScaledDotProductFlashAttentionForCpuBackward0"

    def backward(self, grad):
        q, k, v, probs = self.saved_tensors
        edges = self.next_edges
        if not (is_array(grad) and is_array(q)):
            return self._backward_tensors(grad, q, k, v)
        dv = mm(swap_last_dims(probs), grad) if edges[2] else None
        if not (edges[0] or edges[1]):
            return None, None, dv
        ds = mm(grad, swap_last_dims(v))  # dP, then dS in the same buffer
        fused = last_dim_softmax_grad_kernel(ds, probs)  # (the compiled kernel: one pass)
        if fused is not None:
            ds = fused
        else:
            ds -= last_axis_dot(ds, probs)
            ds *= probs
        ds *= self.scale
        return (mm(ds, k) if edges[0] else None,
                mm(swap_last_dims(ds), q) if edges[1] else None, dv)

    def _backward_tensors(self, grad, q, k, v):
        """The same formulas in recorded tensor operations (``create_graph``), ``P`` rebuilt
        from the inputs so that it is differentiable too."""
        scores = mm(q, swap_last_dims(k)) * self.scale
        if self.causal:
            hidden = _above_diagonal(q.shape[-2], k.shape[-2])
            scores = where(wrap(~hidden), scores, -np.inf)
        probs = softmax(scores, -1)
        ds = mm(grad, swap_last_dims(v))
        ds = probs * (ds - (ds * probs).sum(-1, keepdim=True)) * self.scale
        return mm(ds, k), mm(swap_last_dims(ds), q), mm(swap_last_dims(probs), grad)


def attention(query: TensorBase, key: TensorBase, value: TensorBase, scale: float,
              causal: bool) -> TensorBase:
    """``softmax(q k^T * scale [causal]) v`` for ``fused_attention_ok`` operands."""
    q, k, v = query._data, key._data, value._data
    probs = mm(q, swap_last_dims(k))
    probs *= scale
    if causal:
        np.copyto(probs, -np.inf, where=_above_diagonal(q.shape[-2], k.shape[-2]))
    fused = last_dim_softmax_kernel(probs)  # (the compiled kernels: softmax's own)
    if fused is not None:
        probs = fused
    else:
        probs -= probs.max(axis=-1, keepdims=True)  # every row keeps a key: the max is finite
        np.exp(probs, out=probs)
        probs /= array_sum(probs, -1, keepdims=True)
    out = mm(probs, v)
    if not (grad_state.enabled and (query._requires_grad or key._requires_grad
                                    or value._requires_grad)):
        return wrap(out)
    node = AttentionBackward(query, key, value)
    node.scale, node.causal = scale, causal
    node.save_for_backward(query, key, value, wrap(probs))
    return wrap(out, node)
