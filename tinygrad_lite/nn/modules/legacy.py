"""Older PyTorch layers kept for compatibility: ``NLLLoss2d`` (the deprecated spelling of
``NLLLoss``, which already takes (N, C, H, W) input) and ``CrossMapLRN2d`` (Lua Torch's
cross-channel local response normalisation, with PyTorch's exact forward and backward, whose
channel windows differ from ``LocalResponseNorm``'s)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...autograd.function import Function, once_differentiable
from .loss import NLLLoss
from .module import Module

__all__ = ["NLLLoss2d", "CrossMapLRN2d"]


class NLLLoss2d(NLLLoss):
    """Deprecated: ``NLLLoss`` (warns with PyTorch's FutureWarning)."""

    def __init__(self, weight: Any = None, size_average: Any = None,
                 ignore_index: int = -100, reduce: Any = None, reduction: str = "mean") -> None:
        warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
             "drop-in replacement and see https://pytorch.org/docs/main/nn.html#"
             "torch.nn.NLLLoss for more details.", FutureWarning)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


def _cross_map_scale(x: np.ndarray, size: int, alpha: float, k: float) -> np.ndarray:
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


class _CrossMapLRN2dFunction(Function):
    """Forward and backward as ``torch.nn._functions.CrossMapLRN2d``."""

    @staticmethod
    def forward(ctx: Any, input: TensorBase, size: int, alpha: float, beta: float,
                k: float) -> TensorBase:
        if input.ndim != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.ndim}D "
                             "instead.")
        x = input._data
        with np.errstate(all="ignore"):
            scale = _cross_map_scale(x, size, alpha, k)
            output = scale ** x.dtype.type(-beta) * x
        ctx.size, ctx.alpha, ctx.beta, ctx.scale = size, alpha, beta, scale
        ctx.save_for_backward(input)
        ctx.output = output
        return wrap(output)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_output: TensorBase) -> tuple:
        (input,) = ctx.saved_tensors
        x, g, out, scale = input._data, grad_output._data, ctx.output, ctx.scale
        size, channels = ctx.size, x.shape[1]
        inverse_pre_pad = int(size - (size - 1) / 2)
        if inverse_pre_pad + channels > channels + size - 1:
            raise RuntimeError(f"start ({inverse_pre_pad}) + length ({channels}) exceeds "
                               f"dimension size ({channels + size - 1}).")
        dt = x.dtype.type
        with np.errstate(all="ignore"):
            grad_input = scale ** dt(-ctx.beta) * g
            padded = np.zeros((x.shape[0], channels + size - 1) + x.shape[2:], x.dtype)
            padded[:, inverse_pre_pad:inverse_pre_pad + channels] = g * out / scale
            accum = padded[:, :size - 1].sum(1)
            cache = dt(2 * ctx.alpha * ctx.beta / size)
            for c in range(channels):
                accum = accum + padded[:, c + size - 1]
                grad_input[:, c] += -cache * x[:, c] * accum
                accum = accum - padded[:, c]
        return wrap(grad_input), None, None, None, None


class CrossMapLRN2d(Module):
    """Cross-channel local response normalisation of (N, C, H, W) input:
    ``x * (k + alpha / size * sum_window x^2) ^ -beta``."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1
                 ) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return _CrossMapLRN2dFunction.apply(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """The window size and constants."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
