"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = ["Parameter", "Buffer"]


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and is registered by ``Module.__setattr__``.

    It shares memory with the data it is built from, as ``torch.nn.Parameter`` does.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            arr = np.empty((0,), np.float32)
        elif isinstance(data, Tensor):
            arr = data._data
        else:
            arr = np.asarray(data)
            if arr.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
                arr = arr.astype(np.float32)  # Python floats: the default float dtype
        self._data = arr
        self._version_counter = data._version_counter if isinstance(data, Tensor) else [0]
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a ``Module`` attribute."""

    def __init__(self, data: Any, persistent: bool = True) -> None:
        self._data = data._data if isinstance(data, Tensor) else np.asarray(data)
        self._version_counter = data._version_counter if isinstance(data, Tensor) else [0]
        self.persistent = persistent
