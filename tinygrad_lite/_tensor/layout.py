"""How a tensor lies in memory: contiguity (in a memory format), strides, offset, address,
``dim_order``, bytes (``nbytes``, ``itemsize``, ``element_size``) and the layout attributes
(``layout``, ``is_sparse``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.memory_format import is_in_format
from .._core.tensor_base import TensorBase
from . import constant

__all__ = ["METHODS", "PROPERTIES"]


def is_contiguous(self: TensorBase, memory_format: Any = None) -> bool:
    """Whether the elements lie in memory without gaps in row-major order (or in the order of
    ``memory_format``, e.g. ``tl.channels_last``)."""
    return is_in_format(self._data, memory_format) and not self._expanded


def stride(self: TensorBase, dim: int | None = None) -> Any:
    """The step in elements between neighbours along each dim (or along ``dim``)."""
    data = self._data
    steps = tuple(s // data.itemsize for s in data.strides) if data.itemsize else \
        (0,) * data.ndim
    if dim is None:
        return steps
    return steps[dim if dim >= 0 else dim + data.ndim]


def storage_offset(self: TensorBase) -> int:
    """Where the first element lies in the memory it shares, in elements."""
    data = self._data
    base = data
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base is data or not data.itemsize:
        return 0
    return (data.__array_interface__["data"][0] - base.__array_interface__["data"][0]) \
        // data.itemsize


def data_ptr(self: TensorBase) -> int:
    """The address of the first element."""
    return int(self._data.__array_interface__["data"][0])


def dim_order(self: TensorBase, *, ambiguity_check: Any = False) -> tuple:
    """The dims from the outermost in memory to the innermost (largest stride first; equal
    strides keep their order): ``(0, 1, ..., n-1)`` for a contiguous tensor."""
    steps = self._data.strides
    return tuple(sorted(range(self.ndim), key=lambda d: -steps[d]))


def element_size(self: TensorBase) -> int:
    """Bytes per element."""
    return int(self._data.itemsize)


METHODS: dict[str, Any] = {f.__name__: f for f in (
    is_contiguous, stride, storage_offset, data_ptr, dim_order, element_size)}
PROPERTIES = {
    "nbytes": property(lambda self: int(self._data.nbytes)),  # bytes in all
    "itemsize": property(lambda self: int(self._data.itemsize)),  # bytes per element
    "is_sparse": constant(False),
    "layout": constant("torch.strided"),
}
