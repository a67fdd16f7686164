"""PyTorch's fractional max pooling layers (``torch.nn.FractionalMaxPool2d/3d``)."""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from .._functional.pooling_fractional import fractional_max_pool2d, fractional_max_pool3d
from .module import Module

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


def _ntuple(value: Any, n: int) -> tuple | None:
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
        self.kernel_size = _ntuple(kernel_size, self._nd)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, self._nd)
        self.output_ratio = _ntuple(output_ratio, self._nd)
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
