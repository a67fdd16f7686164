"""PyTorch's ``torch.nn.modules.normalization``: LayerNorm, GroupNorm, RMSNorm,
LocalResponseNorm and CrossMapLRN2d (Lua Torch's cross-channel local response normalisation,
with PyTorch's exact forward and backward, whose channel windows differ from
``LocalResponseNorm``'s)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.tensor_base import TensorBase, wrap
from ...autograd.function import Function, once_differentiable
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm", "RMSNorm", "LocalResponseNorm", "CrossMapLRN2d"]


def _np_dtype(dtype: Any) -> np.dtype:
    return dtypes.default_float_np(dtype)


class LayerNorm(Module):
    """Normalisation over the last dims ``normalized_shape``, with elementwise affine."""

    def __init__(self, normalized_shape: Any, eps: float = 1e-5,
                 elementwise_affine: bool = True, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        dt = _np_dtype(dtype)
        if elementwise_affine:
            self.weight = Parameter(np.ones(shape, dt))
            if bias:
                self.bias = Parameter(np.zeros(shape, dt))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The normalised shape and the options."""
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class GroupNorm(Module):
    """Normalisation over groups of channels."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine, self._has_bias = eps, affine, bias
        dt = _np_dtype(dtype)
        if affine:
            self.weight = Parameter(np.ones(num_channels, dt))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(np.zeros(num_channels, dt))
        else:
            self.register_parameter("bias", None)

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The groups, channels and options."""
        extra = "" if self._has_bias else ", bias=False"
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}{extra}")


class RMSNorm(Module):
    """Root-mean-square normalisation over the last dims (no centring)."""

    def __init__(self, normalized_shape: Any, eps: float | None = None,
                 elementwise_affine: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else \
            tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(np.ones(shape, _np_dtype(dtype)))
        else:
            self.register_parameter("weight", None)

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        """The normalised shape and the options."""
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalises each channel by the energy of ``size`` neighbouring channels (AlexNet)."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
                 ) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """The window size and constants."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


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
