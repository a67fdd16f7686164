"""Storages: the memory a tensor's array lies in (``Tensor.untyped_storage()``,
``Tensor.storage()``, ``tl.UntypedStorage``, ``tl.TypedStorage``, ``tl.is_storage``).

A tensor's data is a NumPy array, possibly a view into a larger one; its storage is the whole
memory of the array at the root of that chain (as a PyTorch view's storage is its base's), so
two tensors share memory exactly when their storages have the same ``data_ptr()``. The
storage objects read that memory (sizes, bytes, elements); they do not own or resize it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.device import device as _device
from .._core.shared_storage import is_shared_array
from .._core.tensor_base import TensorBase
from ..dtypes import from_numpy_dtype

__all__ = ["UntypedStorage", "TypedStorage", "is_storage", "METHODS", "PROPERTIES"]


def _root(array: np.ndarray) -> np.ndarray:
    """The array at the root of a chain of views (the one owning the memory's start)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class UntypedStorage:
    """A tensor's memory as bytes (``torch.UntypedStorage``)."""

    device = _device("cpu")
    dtype = from_numpy_dtype(np.dtype(np.uint8))

    def __init__(self, root: np.ndarray) -> None:
        self._root = root
        self._bytes = root.reshape(-1).view(np.uint8) if root.flags.c_contiguous else None

    def nbytes(self) -> int:
        """Bytes of memory."""
        return int(self._root.nbytes)

    def size(self) -> int:
        """Bytes of memory (an untyped storage counts bytes)."""
        return self.nbytes()

    def __len__(self) -> int:
        return self.nbytes()

    def element_size(self) -> int:
        """1: a byte."""
        return 1

    def data_ptr(self) -> int:
        """The address of the memory's first byte."""
        return int(self._root.__array_interface__["data"][0])

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes (``share_memory_``)."""
        return bool(is_shared_array(self._root))

    def cpu(self) -> UntypedStorage:
        """The storage itself (everything is in CPU memory)."""
        return self

    def _byte_view(self) -> np.ndarray:
        if self._bytes is None:
            raise RuntimeError("storage: the memory of a non-contiguous root array cannot be "
                               "read as bytes")
        return self._bytes

    def __getitem__(self, index: int) -> int:
        return int(self._byte_view()[index])

    def tolist(self) -> list[int]:
        """The bytes as ints."""
        return self._byte_view().tolist()

    def untyped(self) -> UntypedStorage:
        """Itself."""
        return self

    def __repr__(self) -> str:
        return f"{type(self).__name__}(nbytes={self.nbytes()}, device='cpu')"


class TypedStorage(UntypedStorage):
    """A tensor's memory as elements of its dtype (``Tensor.storage()``; PyTorch's legacy
    ``TypedStorage``)."""

    def __init__(self, root: np.ndarray, dtype: np.dtype) -> None:
        super().__init__(root)
        self._dtype = np.dtype(dtype)
        self.dtype = from_numpy_dtype(self._dtype)

    def size(self) -> int:
        """Elements of the dtype that fit in the memory."""
        return self.nbytes() // self._dtype.itemsize

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        """Bytes per element."""
        return self._dtype.itemsize

    def __getitem__(self, index: int) -> Any:
        return self._byte_view().view(self._dtype)[index].item()

    def tolist(self) -> list:
        """The elements."""
        return self._byte_view().view(self._dtype).tolist()

    def untyped(self) -> UntypedStorage:
        """The same memory as bytes."""
        return UntypedStorage(self._root)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(size={self.size()}, dtype={self.dtype}, "
                "device='cpu')")


def is_storage(obj: Any) -> bool:
    """Whether ``obj`` is a storage (``torch.is_storage``)."""
    return isinstance(obj, UntypedStorage)


def untyped_storage(self: TensorBase) -> UntypedStorage:
    """The memory the tensor's data lies in, as bytes."""
    return UntypedStorage(_root(self._data))


def storage(self: TensorBase) -> TypedStorage:
    """The memory the tensor's data lies in, as elements of its dtype."""
    return TypedStorage(_root(self._data), self._data.dtype)


# what tensor.py binds onto Tensor
METHODS = {"untyped_storage": untyped_storage, "storage": storage, "_typed_storage": storage}
PROPERTIES: dict[str, property] = {}
