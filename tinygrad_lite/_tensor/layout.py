"""How a tensor lies in memory: contiguity (in a memory format), strides, offset, address,
``dim_order``, bytes (``nbytes``, ``itemsize``, ``element_size``) and the layout attributes
(``layout``, ``is_sparse``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.memory_format import format_name, is_in_format
from .._core.tensor_base import TensorBase
from ..ops.common import normalize_dims
from ..ops.movement import memory_root
from . import constant

__all__ = ["METHODS", "PROPERTIES"]


def is_contiguous(self: TensorBase, memory_format: Any = None) -> bool:
    """Whether the elements lie in memory without gaps in row-major order (or in the order of
    ``memory_format``, e.g. ``tl.channels_last``)."""
    return is_in_format(self._data, memory_format) and not self._expanded


def stride(self: TensorBase, dim: int | None = None) -> Any:
    """The step in elements between neighbours along each dim (or along ``dim``)."""
    data = self._data
    if data.size == 0 and not any(data.strides):
        # NumPy gives a new empty array zero strides; PyTorch's are row-major (sizes 0 count 1)
        steps = tuple(int(np.prod([max(n, 1) for n in data.shape[i + 1:]]))
                      for i in range(data.ndim))
    else:
        source = getattr(self, "_view_of", None)
        if source is not None and source[1] == "expand" and source[0]._data.shape == source[2]:
            # a small expand() result is stored densely: report the broadcast's strides
            data = np.broadcast_to(source[0]._data, data.shape)
        steps = tuple(s // data.itemsize for s in data.strides)
    if dim is None:
        return steps
    if not data.ndim:
        raise IndexError(f"stride: Dimension specified as {dim} but tensor has no dimensions")
    return steps[normalize_dims(dim, data.ndim, "stride")[0]]


def storage_offset(self: TensorBase) -> int:
    """Where the first element lies in the memory it shares, in elements."""
    data = self._data
    base = memory_root(data)
    if base is data or not data.itemsize:
        return 0
    return (data.__array_interface__["data"][0] - base.__array_interface__["data"][0]) \
        // data.itemsize


def data_ptr(self: TensorBase) -> int:
    """The address of the first element."""
    return int(self._data.__array_interface__["data"][0])


def dim_order(self: TensorBase, *, ambiguity_check: Any = False) -> tuple:
    """The dims from the outermost in memory to the innermost (largest stride first; equal
    strides keep their order): ``(0, 1, ..., n-1)`` for a contiguous tensor.

    ``ambiguity_check=True`` raises when the order is not unique (a size-1 dim, or two
    neighbouring dims with equal strides, could sit anywhere); a list of memory formats raises
    only when, besides being ambiguous, the tensor is contiguous in none or several of them."""
    if isinstance(ambiguity_check, bool):
        formats: list = []
    elif isinstance(ambiguity_check, list):
        formats = ambiguity_check
        try:
            for f in formats:
                format_name(f)
        except TypeError:
            raise TypeError("dim_order: ambiguity_check must be a bool or a list of "
                            f"memory formats, got {ambiguity_check!r}") from None
    else:
        raise TypeError("dim_order: ambiguity_check must be a bool or a list of memory formats, "
                        f"got {type(ambiguity_check).__name__}")
    if ambiguity_check is not False:
        elements = self.stride()
        ambiguous = (any(size == 1 for size in self.shape)
                     or any(a == b for a, b in zip(elements, elements[1:])))
        matching = sum(is_in_format(self._data, f) for f in formats)
        if ambiguous and matching != 1:
            raise RuntimeError("dim_order: the tensor of shape "
                               f"{tuple(self.shape)} and strides {tuple(elements)} does not have "
                               "a unique dim order, or cannot map to exactly one of the given "
                               "memory formats")
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
    "is_sparse_csr": constant(False),
    "is_nested": constant(False),  # nested (jagged) tensors are not provided
    "is_mkldnn": constant(False),  # oneDNN's blocked layout does not exist here
    "layout": constant("torch.strided"),
}
