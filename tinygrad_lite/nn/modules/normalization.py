"""PyTorch's ``torch.nn.modules.normalization``: LayerNorm, GroupNorm, RMSNorm,
LocalResponseNorm and CrossMapLRN2d (Lua Torch's cross-channel local response normalisation,
with PyTorch's exact forward and backward, whose channel windows differ from
``LocalResponseNorm``'s)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.tensor_base import TensorBase
from ...ops.local_response_norm import cross_map_lrn2d
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
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

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0 (when there are)."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The normalised shape and the options (``bias`` says whether there is a bias)."""
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Normalisation over groups of channels."""

    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5,
                 affine: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__()
        if num_channels % num_groups:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        dt = _np_dtype(dtype)
        if affine:
            self.weight = Parameter(np.ones(num_channels, dt))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(np.zeros(num_channels, dt))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self) -> None:
        """Weight 1 and bias 0 (when affine)."""
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        """The groups, channels and options (``bias`` says whether there is a bias)."""
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, "
                f"affine={self.affine}, bias={self.bias is not None}")


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

    def reset_parameters(self) -> None:
        """Weight 1 (when there is one)."""
        if self.elementwise_affine:
            init.ones_(self.weight)

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


class CrossMapLRN2d(Module):
    """Cross-channel local response normalisation of (N, C, H, W) input:
    ``x * (k + alpha / size * sum_window x^2) ^ -beta``."""

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1
                 ) -> None:
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input: TensorBase) -> TensorBase:
        """The normalised input."""
        return cross_map_lrn2d(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self) -> str:
        """The window size and constants."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"
