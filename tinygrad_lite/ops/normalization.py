"""Batch and layer normalisation as one primitive each (``NativeBatchNormBackward0``,
``NativeLayerNormBackward0``, PyTorch's names).

Composed from mean, subtract, variance, sqrt, divide, scale and shift, a normalisation records
about ten nodes, each a pass over the activation, and its backward as many again. Here the
forward makes the statistics once and saves the normalised input and ``1 / std``; the backward
is the closed form

    dx = rstd * (g' - mean(g') - xhat * mean(g' * xhat)),   g' = grad * weight,

with the weight and bias gradients as sums of ``grad * xhat`` and ``grad``. Under
``create_graph`` the same formula runs on tensors recomputed from the input, so it is recorded
and differentiates again.
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import is_array, sum_to, wrap

__all__ = ["normalize_affine"]


def _mean(v, dims: tuple):
    """The mean over ``dims`` keeping them, for arrays and (recorded) tensors alike."""
    if is_array(v):
        return v.mean(axis=dims, keepdims=True)
    return v.mean(dims, keepdim=True)


def _statistics(x, dims: tuple, eps: float):
    """``(x - mean) * rstd`` and ``rstd`` (arrays, or tensors under create_graph)."""
    centred = x - _mean(x, dims)
    variance = _mean(centred * centred, dims)
    rstd = (variance + eps) ** -0.5
    return centred * rstd, rstd


def _constant_over(shape: tuple, dims: tuple, ndim: int) -> bool:
    """Whether an array of ``shape``, broadcast (right-aligned) against ``ndim`` dims, has size
    1 along every one of ``dims``."""
    offset = ndim - len(shape)
    return all(d % ndim - offset < 0 or shape[d % ndim - offset] == 1 for d in dims)


class NormalizeBackward(Node):
    """The backward of batch and layer normalisation (named after the op that made it)."""

    label: str
    dims: tuple
    eps: float
    has_weight: bool
    has_bias: bool

    def name(self) -> str:
        """PyTorch's node name for the op."""
        return self.label

    def backward(self, grad):
        saved = self.saved_tensors
        x, xhat, rstd = saved[0], saved[1], saved[2]
        weight = saved[3] if self.has_weight else None
        if not is_array(x):  # create_graph: rebuild the statistics as recorded tensor ops
            xhat, rstd = _statistics(x, self.dims, self.eps)
        elif weight is None or _constant_over(weight.shape, self.dims, x.ndim):
            return self._backward_per_channel(grad, xhat, rstd, weight)
        edges = self.next_edges
        scaled = grad if weight is None else grad * weight
        grad_x = None
        if edges[0]:
            grad_x = rstd * (scaled - _mean(scaled, self.dims)
                             - xhat * _mean(scaled * xhat, self.dims))
        results = [grad_x]
        if self.has_weight:
            results.append(sum_to(grad * xhat, weight.shape) if edges[1] else None)
        if self.has_bias:
            results.append(sum_to(grad, self.bias_shape) if edges[-1] else None)
        return tuple(results)

    bias_shape: tuple

    def _backward_per_channel(self, grad: np.ndarray, xhat: np.ndarray, rstd: np.ndarray,
                              weight: np.ndarray | None) -> tuple:
        """The same formula on arrays when the weight is constant over the normalised dims
        (batch norm): it factors out of the means, and the two sums the input gradient needs
        are the bias and weight gradients, so seven passes over the activation instead of
        eleven."""
        dims, edges = self.dims, self.next_edges
        count = grad.size // rstd.size
        grad_sum = grad.sum(axis=dims, keepdims=True)
        product = grad * xhat
        product_sum = product.sum(axis=dims, keepdims=True)
        grad_x = None
        if edges[0]:
            scale = rstd if weight is None else rstd * weight
            grad_x = grad - grad_sum / count
            np.multiply(xhat, product_sum / count, out=product)
            grad_x -= product
            grad_x *= scale
        results = [grad_x]
        if weight is not None:
            results.append(sum_to(product_sum, weight.shape) if edges[1] else None)
        if self.has_bias:
            results.append(sum_to(grad_sum, self.bias_shape) if edges[-1] else None)
        return tuple(results)


def normalize_affine(x: TensorBase, dims: tuple, weight: TensorBase | None,
                     bias: TensorBase | None, eps: float, label: str
                     ) -> tuple[TensorBase, np.ndarray, np.ndarray]:
    """``(x - mean) / sqrt(var + eps) * weight + bias`` with the statistics over ``dims``
    (``weight`` and ``bias`` already shaped to broadcast against ``x``); also returns the
    batch mean and biased variance (arrays, for running statistics)."""
    data = x._data
    mean = data.mean(axis=dims, keepdims=True)
    centred = data - mean
    variance = np.mean(np.square(centred), axis=dims, keepdims=True)
    rstd = np.reciprocal(np.sqrt(variance + eps))
    xhat = centred
    xhat *= rstd
    out = xhat * weight._data if weight is not None else xhat.copy()
    if bias is not None:
        out += bias._data
    inputs = [t for t in (x, weight, bias) if t is not None]
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out), mean, variance
    node = NormalizeBackward(*inputs)
    node.label, node.dims, node.eps = label, dims, eps
    node.has_weight, node.has_bias = weight is not None, bias is not None
    if bias is not None:
        node.bias_shape = bias._data.shape
    node.save_for_backward(x, wrap(xhat), wrap(rstd), *([weight] if weight is not None else []))
    return wrap(out, node), mean, variance
