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
from ..dtypes import from_numpy_dtype, to_dtype
from ..ops.movement import memory_root

__all__ = ["UntypedStorage", "TypedStorage", "is_storage", "METHODS", "PROPERTIES"]

_PACKAGE = __name__.split(".")[0]


def _new_memory(args: tuple, dtype: np.dtype, name: str) -> np.ndarray:
    """New storage memory from PyTorch's constructor arguments: a size (zero-filled here,
    where PyTorch leaves it uninitialised), a sequence of values, or nothing."""
    if not args:
        return np.zeros(0, dtype)
    if len(args) == 1 and isinstance(args[0], (int, np.integer)) and not isinstance(args[0], bool):
        if args[0] < 0:
            raise RuntimeError(f"{name}: size must be non-negative, got {args[0]}")
        return np.zeros(int(args[0]), dtype)
    if len(args) == 1 and isinstance(args[0], (list, tuple, range)):
        return np.array(list(args[0]), dtype=dtype)
    raise TypeError(f"{name}(): expected a size or a sequence, got "
                    f"{', '.join(type(a).__name__ for a in args)}")


class UntypedStorage:
    """A tensor's memory as bytes (``torch.UntypedStorage``)."""

    __module__ = f"{_PACKAGE}.storage"  # PyTorch's path (torch.storage.UntypedStorage)

    device = _device("cpu")
    dtype = from_numpy_dtype(np.dtype(np.uint8))

    def __init__(self, *args: Any, device: Any = None) -> None:
        """``UntypedStorage(nbytes)`` (zero-filled) or ``UntypedStorage(sequence of bytes)``,
        as PyTorch's; a tensor's own storage wraps its memory (``Tensor.untyped_storage``)."""
        self._attach(_new_memory(args, np.dtype(np.uint8), type(self).__name__))

    def _attach(self, root: np.ndarray) -> None:
        self._root = root
        self._bytes = root.reshape(-1).view(np.uint8) if root.flags.c_contiguous else None

    @classmethod
    def _over(cls, root: np.ndarray, *extra: Any) -> Any:
        """The storage of existing memory ``root`` (no copy)."""
        storage = cls.__new__(cls)
        storage._attach(root)
        return storage

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

    def _elements(self) -> np.ndarray:
        """The elements in memory order (bytes here; the dtype's elements in a TypedStorage)."""
        if self._bytes is not None:
            return self._bytes
        return np.ravel(self._root, order="K").view(np.uint8)  # a non-contiguous root's memory

    def _info(self) -> str:
        return f"device={self.device}"

    def __repr__(self) -> str:
        # PyTorch's: one element a line, each after a space, then
        # "[torch.storage.UntypedStorage(device=cpu) of size 8]"
        values = self._elements().tolist()
        kind = f"{type(self).__module__}.{type(self).__qualname__}"  # torch.typename's
        info = f"[{kind}({self._info()}) of size {len(self)}]"
        return " " + "\n ".join(str(v) for v in values) + "\n" + info


class TypedStorage(UntypedStorage):
    """A tensor's memory as elements of its dtype (``Tensor.storage()``; PyTorch's legacy
    ``TypedStorage``)."""

    __module__ = f"{_PACKAGE}.storage"

    def __init__(self, *args: Any, dtype: Any = None, device: Any = None) -> None:
        """``TypedStorage(size, dtype=...)`` (zero-filled), ``TypedStorage(sequence,
        dtype=...)`` or ``TypedStorage(dtype=...)`` (empty), as PyTorch's."""
        self._dtype = np.dtype(to_dtype(dtype).np if dtype is not None else np.float32)
        self.dtype = from_numpy_dtype(self._dtype)
        self._attach(_new_memory(args, self._dtype, "TypedStorage"))

    @classmethod
    def _over(cls, root: np.ndarray, *extra: Any) -> Any:
        storage = super()._over(root)
        storage._dtype = np.dtype(extra[0])
        storage.dtype = from_numpy_dtype(storage._dtype)
        return storage

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
        return UntypedStorage._over(self._root)

    def _elements(self) -> np.ndarray:
        elements = super()._elements().view(self._dtype)
        # Python floats of the values (str of a float32 element: its exact double, as PyTorch)
        return elements.astype(np.float64) if self.dtype.is_floating_point else elements

    def _info(self) -> str:
        return f"dtype={self.dtype}, device={self.device}"


def is_storage(obj: Any) -> bool:
    """Whether ``obj`` is a storage (``torch.is_storage``)."""
    return isinstance(obj, UntypedStorage)


def untyped_storage(self: TensorBase) -> UntypedStorage:
    """The memory the tensor's data lies in, as bytes."""
    return UntypedStorage._over(memory_root(self._data))


def storage(self: TensorBase) -> TypedStorage:
    """The memory the tensor's data lies in, as elements of its dtype."""
    return TypedStorage._over(memory_root(self._data), self._data.dtype)


# what tensor.py binds onto Tensor
METHODS = {"untyped_storage": untyped_storage, "storage": storage, "_typed_storage": storage}
PROPERTIES: dict[str, property] = {}
