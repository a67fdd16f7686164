"""PyTorch's ``torch.nn.modules.pooling``: max, average, adaptive (average and max), power-average
(Lp) pooling and max unpooling, in 1, 2 and 3 dims, and fractional max pooling in 2 and 3."""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .._functional.pooling_fractional import fractional_max_pool2d, fractional_max_pool3d
from .module import Module
from .utils import _ntuple

__all__ = ["MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
           "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
           "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
           "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d",
           "FractionalMaxPool3d"]


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


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling."""

    def forward(self, input: TensorBase) -> Any:
        """Max over each window."""
        return F.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation,
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
    """1-D average pooling (PyTorch keeps its arguments as 1-tuples; it has no
    ``divisor_override``)."""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__(_ntuple(1)(kernel_size),
                         _ntuple(1)(stride if stride is not None else kernel_size),
                         _ntuple(1)(padding), ceil_mode, count_include_pad)

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


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Mean over each window."""
        return F.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
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


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """Average pooling to a fixed output size (od, oh, ow)."""

    def forward(self, input: TensorBase) -> TensorBase:
        """Mean over adaptive windows."""
        return F.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool1d(Module):
    """Max pooling to a fixed output length (and the indices of the maxima)."""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input: TensorBase) -> Any:
        """Max over adaptive windows."""
        return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        """``output_size``."""
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(AdaptiveMaxPool1d):
    """Max pooling to a fixed output size (oh, ow)."""

    def forward(self, input: TensorBase) -> Any:
        """Max over adaptive windows."""
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(AdaptiveMaxPool1d):
    """Max pooling to a fixed output size (od, oh, ow)."""

    def forward(self, input: TensorBase) -> Any:
        """Max over adaptive windows."""
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)


class LPPool1d(Module):
    """1-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""

    def __init__(self, norm_type: float, kernel_size: Any, stride: Any = None,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input: TensorBase) -> TensorBase:
        """The p-norm of each window."""
        return F.lp_pool1d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)

    def extra_repr(self) -> str:
        """The norm and window arguments."""
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool2d(LPPool1d):
    """2-D power-average pooling."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The p-norm of each window."""
        return F.lp_pool2d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool3d(LPPool1d):
    """3-D power-average pooling."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The p-norm of each window."""
        return F.lp_pool3d(input, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpoolNd(Module):
    """The arguments of max unpooling, kept as n-tuples as PyTorch does."""

    _nd = 1

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__()
        self.kernel_size = _ntuple(self._nd)(kernel_size)
        self.stride = _ntuple(self._nd)(stride if stride is not None else kernel_size)
        self.padding = _ntuple(self._nd)(padding)

    def extra_repr(self) -> str:
        """The window arguments."""
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``: values at their indices, zeros elsewhere."""

    def forward(self, input: TensorBase, indices: TensorBase,
                output_size: Any = None) -> TensorBase:
        """Scatter ``input`` to ``indices``."""
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``."""

    _nd = 2

    def forward(self, input: TensorBase, indices: TensorBase,
                output_size: Any = None) -> TensorBase:
        """Scatter ``input`` to ``indices``."""
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``."""

    _nd = 3

    def forward(self, input: TensorBase, indices: TensorBase,
                output_size: Any = None) -> TensorBase:
        """Scatter ``input`` to ``indices``."""
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)


def _fractional_tuple(value: Any, n: int) -> tuple | None:
    if value is None:
        return None
    return tuple(value) if isinstance(value, (tuple, list)) else (value,) * n


class _FractionalMaxPoolNd(Module):
    """The arguments and checks both layers share (PyTorch's messages)."""

    _nd = 2

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Any = None) -> None:
        super().__init__()
        name = type(self).__name__
        self.kernel_size = _fractional_tuple(kernel_size, self._nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _fractional_tuple(output_size, self._nd)
        self.output_ratio = _fractional_tuple(output_ratio, self._nd)
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling "
                             "ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling to ``output_size`` (or ``output_ratio`` of the input)."""

    def forward(self, input: TensorBase) -> Any:
        """The pooled input (and the indices with ``return_indices``)."""
        return fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                     self.output_ratio, self.return_indices,
                                     _random_samples=self._random_samples)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling to ``output_size`` (or ``output_ratio`` of the input)."""

    _nd = 3

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Any = None) -> None:
        if (isinstance(kernel_size, int) and kernel_size <= 0) or (
                isinstance(kernel_size, (tuple, list)) and not all(k > 0 for k in kernel_size)):
            raise ValueError(f"kernel_size must be greater than 0, but got {kernel_size}")
        super().__init__(kernel_size, output_size, output_ratio, return_indices,
                         _random_samples)

    def forward(self, input: TensorBase) -> Any:
        """The pooled input (and the indices with ``return_indices``)."""
        return fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                     self.output_ratio, self.return_indices,
                                     _random_samples=self._random_samples)
