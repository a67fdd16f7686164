"""Lua Torch's cross-channel local response normalisation (``nn.CrossMapLRN2d``) as a primitive,
with PyTorch's exact forward and ``_CrossMapLRN2dFunctionBackward`` (the name PyTorch's
``torch.nn._functions.CrossMapLRN2d`` gives its node): its running channel sums and rounding,
whose channel windows differ from ``LocalResponseNorm``'s."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .common import first_order_grads

__all__ = ["_CrossMapLRN2dFunctionBackward", "cross_map_lrn2d"]


def cross_map_scale(x: np.ndarray, size: int, alpha: float, k: float) -> np.ndarray:
    """PyTorch's running channel sums of squares (its recurrence, its rounding), scaled."""
    square = x * x
    channels = x.shape[1]
    pre_pad = int((size - 1) / 2 + 1)
    scale = np.empty_like(x)
    scale[:, 0] = square[:, :min(pre_pad, channels)].sum(1)
    for c in range(1, channels):
        scale[:, c] = scale[:, c - 1]
        if c < channels - pre_pad + 1:
            scale[:, c] += square[:, c + pre_pad - 1]
        if c > pre_pad:
            scale[:, c] -= square[:, c - pre_pad]
    return scale * x.dtype.type(alpha / size) + x.dtype.type(k)


class _CrossMapLRN2dFunctionBackward(Node):
    """Backward as ``torch.nn._functions.CrossMapLRN2d``'s (NumPy only, so not differentiable
    again)."""

    size: int
    alpha: float
    beta: float
    scale: np.ndarray  # the forward's k + alpha / size * (window sums of squares)
    output: np.ndarray

    def backward(self, grad_output: Any) -> tuple:
        """The input gradient for the output gradient ``grad_output``."""
        (input,) = self.saved_tensors
        tensors = isinstance(grad_output, TensorBase)  # create_graph
        x = input._data if isinstance(input, TensorBase) else input
        g = grad_output._data if tensors else grad_output
        out, scale = self.output, self.scale
        size, channels = self.size, x.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds "
                               f"dimension size ({channels + size - 1}).")
        dt = x.dtype.type
        with np.errstate(all="ignore"):
            grad_input = scale ** dt(-self.beta) * g
            padded = np.zeros((x.shape[0], channels + size - 1) + x.shape[2:], x.dtype)
            padded[:, inverse_pre_pad:inverse_pre_pad + channels] = g * out / scale
            accum = padded[:, :size - 1].sum(1)
            cache = dt(2 * self.alpha * self.beta / size)
            for c in range(channels):
                accum = accum + padded[:, c + size - 1]
                grad_input[:, c] += -cache * x[:, c] * accum
                accum = accum - padded[:, c]
        if tensors:
            return first_order_grads("_CrossMapLRN2dFunction.backward", (grad_output, input),
                                     (grad_input,))
        return (grad_input,)


def cross_map_lrn2d(input: TensorBase, size: int, alpha: float, beta: float, k: float
                    ) -> TensorBase:
    """``x * (k + alpha / size * sum_window x^2) ^ -beta`` of (N, C, H, W) ``input``."""
    if input.ndim != 4:
        raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D "
                         "instead.")
    x = input._data
    with np.errstate(all="ignore"):
        scale = cross_map_scale(x, size, alpha, k)
        output = scale ** x.dtype.type(-beta) * x
    if not (grad_state.enabled and input._requires_grad):
        return wrap(output)
    node = _CrossMapLRN2dFunctionBackward(input)
    node.size, node.alpha, node.beta, node.scale, node.output = size, alpha, beta, scale, output
    node.save_for_backward(input)
    return wrap(output, node)
