"""PyTorch's ``torch.nn.modules.padding``: the Zero/Constant/Reflection/Replication/Circular
padding layers for 1, 2 and 3 spatial dims, each a Module over ``F.pad``."""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
]


def _padding_tuple(padding: Any, nd: int) -> tuple[int, ...]:
    """An int pads every side; otherwise (left, right[, top, bottom[, front, back]])."""
    if isinstance(padding, int):
        return (padding,) * (2 * nd)
    padding = tuple(int(p) for p in padding)
    if len(padding) != 2 * nd:
        raise ValueError(f"padding must be an int or a tuple of {2 * nd} ints, got {padding}")
    return padding


class _PadNd(Module):
    """Pads the last ``_nd`` dims of (N, C, *spatial) or unbatched (C, *spatial) input."""

    _nd = 1
    _mode = "constant"

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _padding_tuple(padding, self._nd)

    def forward(self, input: TensorBase) -> TensorBase:
        """The padded input."""
        if input.ndim not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"{type(self).__name__}: expected {self._nd + 1}D or "
                             f"{self._nd + 2}D input, got input of shape {tuple(input.shape)}")
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        """The padding tuple."""
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: TensorBase) -> TensorBase:
        """The input padded with ``value``."""
        if input.ndim not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"{type(self).__name__}: expected {self._nd + 1}D or "
                             f"{self._nd + 2}D input, got input of shape {tuple(input.shape)}")
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        """The padding and the fill value."""
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pads the last dim with a constant."""

    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pads the last two dims with a constant."""

    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pads the last three dims with a constant."""

    _nd = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: Any) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        """The padding tuple."""
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pads the last dim with zeros."""

    _nd = 1


class ZeroPad2d(_ZeroPadNd):
    """Pads the last two dims with zeros."""

    _nd = 2


class ZeroPad3d(_ZeroPadNd):
    """Pads the last three dims with zeros."""

    _nd = 3


class ReflectionPad1d(_PadNd):
    """Pads the last dim with its mirror image (edge not repeated)."""

    _nd, _mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    """Pads the last two dims by reflection."""

    _nd, _mode = 2, "reflect"


class ReflectionPad3d(_PadNd):
    """Pads the last three dims by reflection."""

    _nd, _mode = 3, "reflect"


class ReplicationPad1d(_PadNd):
    """Pads the last dim by repeating its edge values."""

    _nd, _mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    """Pads the last two dims by repeating the edges."""

    _nd, _mode = 2, "replicate"


class ReplicationPad3d(_PadNd):
    """Pads the last three dims by repeating the edges."""

    _nd, _mode = 3, "replicate"


class CircularPad1d(_PadNd):
    """Pads the last dim by wrapping around."""

    _nd, _mode = 1, "circular"


class CircularPad2d(_PadNd):
    """Pads the last two dims by wrapping around."""

    _nd, _mode = 2, "circular"


class CircularPad3d(_PadNd):
    """Pads the last three dims by wrapping around."""

    _nd, _mode = 3, "circular"
