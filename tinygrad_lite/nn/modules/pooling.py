"""PyTorch's ``torch.nn.modules.pooling``: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool1d/2d."""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d"]


class _MaxPoolNd(Module):
    """The arguments of max pooling."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0, dilation: Any = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        """The window arguments."""
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling."""

    def forward(self, input: TensorBase) -> Any:
        """Max over each window."""
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling."""

    def forward(self, input: TensorBase) -> Any:
        """Max over each window."""
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            self.ceil_mode, self.return_indices)


class _AvgPoolNd(Module):
    """The arguments of average pooling."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self) -> str:
        """The window arguments."""
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    """1-D average pooling."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Mean over each window."""
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Mean over each window."""
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)


class AdaptiveAvgPool1d(Module):
    """Average pooling to a fixed output length."""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: TensorBase) -> TensorBase:
        """Mean over adaptive windows."""
        return F.adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        """``output_size``."""
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(AdaptiveAvgPool1d):
    """Average pooling to a fixed output size (oh, ow)."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Mean over adaptive windows."""
        return F.adaptive_avg_pool2d(input, self.output_size)
