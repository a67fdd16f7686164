"""Batch normalisation over a batch split across processes, as a primitive: the per-channel sums
(forward) and gradient sums (backward) go through an all-reduce that the caller passes in
(``nn.SyncBatchNorm`` passes its communicator's sum, so this layer imports nothing of
``tl.distributed``), with ``_SyncBatchNormFunctionBackward``. Weight and bias gradients stay
local."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .common import first_order_grads

__all__ = ["_SyncBatchNormFunctionBackward", "sync_batch_norm"]

AllReduce = Callable[[np.ndarray], np.ndarray]  # float64 array -> its sum over all ranks


class _SyncBatchNormFunctionBackward(Node):
    """The input gradient from the all-reduced gradient sums, and the local weight and bias
    gradients (NumPy only, so not differentiable again)."""

    saved: tuple  # (xhat, invstd, weight, n, all_reduce, axes, shape)
    has_bias: bool  # bias is an input (after x, and weight if given)

    def backward(self, grad_out: Any) -> tuple:
        """The input gradients for the output gradient ``grad_out``."""
        xhat, invstd, weight, n, all_reduce, axes, shape = self.saved
        tensors = isinstance(grad_out, TensorBase)  # create_graph
        dy = grad_out._data if tensors else grad_out
        sum_dy = dy.sum(axes, dtype=np.float64)
        sum_dy_xhat = (dy * xhat).sum(axes, dtype=np.float64)
        total = all_reduce(np.concatenate([sum_dy, sum_dy_xhat]))
        channels = xhat.shape[1]
        g_dy, g_dy_xhat = total[:channels] / n, total[channels:] / n
        scale = invstd * (1.0 if weight is None else weight._data)
        dx = scale.reshape(shape) * (dy - g_dy.reshape(shape) - xhat * g_dy_xhat.reshape(shape))
        grads: tuple = (dx.astype(xhat.dtype),)
        if weight is not None:
            grads += (sum_dy_xhat.astype(xhat.dtype).astype(weight._data.dtype, copy=False),)
        if self.has_bias:  # as PyTorch's Function: a bias gradient only beside a weight
            grads += (None if weight is None
                      else sum_dy.astype(xhat.dtype).astype(weight._data.dtype, copy=False),)
        if tensors:
            return first_order_grads("_SyncBatchNormFunction.backward", (grad_out,), grads)
        return grads


def sync_batch_norm(x: TensorBase, weight: TensorBase | None, bias: TensorBase | None,
                    running_mean: TensorBase | None, running_var: TensorBase | None,
                    momentum: float, eps: float, all_reduce: AllReduce) -> TensorBase:
    """Normalise ``x`` (N, C, ...) with the statistics of the global batch (sums all-reduced by
    ``all_reduce``), then scale and shift; updates the running statistics in place."""
    xa = x._data
    axes = (0, *range(2, xa.ndim))
    count = xa.size // xa.shape[1]
    total = all_reduce(np.concatenate([xa.sum(axes, dtype=np.float64),
                                       np.square(xa, dtype=np.float64).sum(axes), [count]]))
    channels = xa.shape[1]
    n = total[-1]
    mean = total[:channels] / n
    var = np.maximum(total[channels:2 * channels] / n - mean * mean, 0.0)
    invstd = 1.0 / np.sqrt(var + eps)
    shape = (1, channels) + (1,) * (xa.ndim - 2)
    xhat = ((xa - mean.reshape(shape)) * invstd.reshape(shape)).astype(xa.dtype)
    out = xhat
    if weight is not None:
        out = out * weight._data.reshape(shape)
    if bias is not None:
        out = out + bias._data.reshape(shape)
    if running_mean is not None and running_var is not None:
        rm, rv = running_mean._data, running_var._data
        rm[...] = (1 - momentum) * rm + momentum * mean
        rv[...] = (1 - momentum) * rv + momentum * var * n / max(n - 1, 1)
        running_mean._version_counter[0] += 1
        running_var._version_counter[0] += 1
    result = np.ascontiguousarray(out, dtype=xa.dtype)
    inputs = [t for t in (x, weight, bias) if t is not None]
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(result)
    node = _SyncBatchNormFunctionBackward(*inputs)
    node.saved = (xhat, invstd.astype(xa.dtype), weight, n, all_reduce, axes, shape)
    node.has_bias = bias is not None
    return wrap(result, node)
