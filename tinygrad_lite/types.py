"""``tinygrad_lite.types`` (PyTorch's ``torch.types``): the type aliases programs annotate with.

``Number``, ``Device``, ``FileLike`` and ``Storage`` are PyTorch's public names; the underscored
aliases (``_size``, ``_TensorOrTensors``, ``_dtype``, ...) are the ones PyTorch's own signatures
use and programs copy. There are no symbolic shapes here, so ``IntLikeType`` is ``int`` and so on.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, Any, TypeAlias

from ._core.device import device as _device
from ._core.size import Size
from ._layout import layout
from .dtypes import DType
from .tensor import Tensor

__all__ = ["Number", "Device", "FileLike", "Storage"]

# the builtins and classes under the names PyTorch's own signatures use
_bool: TypeAlias = bool
_bytes: TypeAlias = bytes
_complex: TypeAlias = complex
_float: TypeAlias = float
_int: TypeAlias = int
_str: TypeAlias = str
_dtype: TypeAlias = DType
_layout: TypeAlias = layout

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool

Number: TypeAlias = int | float | bool
_Number = (int, float, bool)

FileLike: TypeAlias = str | os.PathLike[str] | IO[bytes]

Device: TypeAlias = _device | str | int | None


class Storage:
    """The interface PyTorch annotates storages with (a type to annotate with: tensors here
    keep their memory in NumPy arrays, which have no separate storage object)."""

    device: _device
    dtype: _dtype

    def element_size(self) -> int:
        """Bytes per element."""
        raise NotImplementedError

    def nbytes(self) -> int:
        """Bytes in all."""
        raise NotImplementedError

    def data_ptr(self) -> int:
        """The address of the first element."""
        raise NotImplementedError

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes."""
        raise NotImplementedError

    def cpu(self) -> Any:
        """The storage in CPU memory."""
        raise NotImplementedError

