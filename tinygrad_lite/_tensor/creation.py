"""New tensors made from a tensor, with its dtype (and device) unless told otherwise:
``new_zeros``, ``new_ones``, ``new_empty``, ``new_full``, ``new_tensor``, ``new_empty_strided``
and the legacy ``new``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, functions
from .._core.device import check_device, is_meta_array, meta_array, wants_meta
from .._core.size import Size, sizes_or_keyword
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import check_creation_options

__all__ = ["METHODS", "PROPERTIES"]


def _new(self: TensorBase, fill: Any, size: tuple, dtype: Any, requires_grad: bool,
         device: Any) -> TensorBase:
    check_device(device, "new tensor", meta_ok=True)
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, Size)) \
        else tuple(size)
    dt = self._data.dtype if dtype is None else dtypes.to_dtype(dtype).np
    dtypes.require_real(fill, dt, "new_full")
    if wants_meta(device) if device is not None else is_meta_array(self._data):
        data = meta_array(shape, dt)  # new_* follow this tensor's device, as in PyTorch
    else:
        data = np.empty(shape, dt) if fill is None else np.full(shape, fill, dt)
    out = wrap(data)
    return out.requires_grad_(True) if requires_grad else out


def new_zeros(self: TensorBase, *sizes: Any, size: Any = None, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """Zeros of ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_zeros")
    sizes = sizes_or_keyword(sizes, size, "new_zeros", "size")
    return _new(self, 0, sizes, dtype, requires_grad, device)


def new_ones(self: TensorBase, *sizes: Any, size: Any = None, dtype: Any = None,
            device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """Ones of ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_ones")
    sizes = sizes_or_keyword(sizes, size, "new_ones", "size")
    return _new(self, 1, sizes, dtype, requires_grad, device)


def new_empty(self: TensorBase, *sizes: Any, size: Any = None, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """An uninitialised tensor of ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_empty")
    sizes = sizes_or_keyword(sizes, size, "new_empty", "size")
    return _new(self, None, sizes, dtype, requires_grad, device)


def new_full(self: TensorBase, size: Any, fill_value: Any, *, dtype: Any = None,
             device: Any = None, requires_grad: bool = False, **options: Any) -> TensorBase:
    """``fill_value`` in ``size`` with this tensor's dtype (unless ``dtype``)."""
    check_creation_options(options, "new_full")
    return _new(self, fill_value, (size,), dtype, requires_grad, device)


def new_tensor(self: TensorBase, data: Any, *, dtype: Any = None, device: Any = None,
               requires_grad: bool = False) -> TensorBase:
    """A new tensor from ``data`` (copied) with this tensor's dtype (unless ``dtype``)."""
    check_device(device, "new_tensor")
    arr = np.array(data._data if isinstance(data, TensorBase) else data,
                   dtype=self._data.dtype if dtype is None else dtypes.to_dtype(dtype).np)
    out = wrap(arr)
    return out.requires_grad_(True) if requires_grad else out


def new_empty_strided(self: TensorBase, size: Any, stride: Any, *, dtype: Any = None,
                      device: Any = None, requires_grad: bool = False,
                      **options: Any) -> TensorBase:
    """``tl.empty_strided`` with this tensor's dtype (unless ``dtype``)."""
    return functions.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                   device=device, requires_grad=requires_grad)


def new(self: TensorBase, *args: Any) -> TensorBase:
    """Legacy ``t.new(2, 3)`` (a new tensor of these sizes, zero-filled here) or ``t.new(data)``
    (a tensor of ``data``), with ``t``'s dtype."""
    if len(args) == 1 and not isinstance(args[0], int):
        return functions.tensor(args[0], dtype=self.dtype)
    return functions.zeros(*args, dtype=self.dtype)


METHODS: dict[str, Any] = {f.__name__: f for f in (
    new_zeros, new_ones, new_empty, new_full, new_tensor, new_empty_strided, new)}
PROPERTIES: dict[str, property] = {}
