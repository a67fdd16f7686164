"""Converting Python data (nested lists, scalars, NumPy arrays, tensors) into a tensor's array.

``tl.tensor(...)``, ``Tensor(...)`` and every op given a Python number go through ``to_array``,
which picks dtypes as PyTorch does (Python floats become the default dtype) and raises PyTorch's
errors for ragged lists and out-of-range integers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .tensor_base import TensorBase

__all__ = ["to_array"]


def _first_shape(data: Any) -> list[int]:
    """The shape nested lists would have, read from their first elements (as PyTorch does)."""
    shape = []
    while isinstance(data, (list, tuple)):
        shape.append(len(data))
        if not data:
            break
        data = data[0]
    return shape


def _ragged_message(data: Any, shape: list[int], dim: int) -> str | None:
    """PyTorch's ValueError text for nested lists whose lengths disagree, else None."""
    if dim >= len(shape) or not isinstance(data, (list, tuple)):
        return None
    if len(data) != shape[dim]:
        return f"expected sequence of length {shape[dim]} at dim {dim} (got {len(data)})"
    for item in data:
        message = _ragged_message(item, shape, dim + 1)
        if message is not None:
            return message
    return None


def _overflowing_ints(data: Any, target: np.dtype) -> np.ndarray:
    """Python ints outside an integer dtype's range, converted as PyTorch converts them: an
    unsigned dtype takes negatives down to ``-max``, wrapping around (``tensor([-1],
    dtype=uint8)`` is 255); anything else is a RuntimeError (NumPy raises OverflowError)."""
    try:
        wide = np.array(data, dtype=np.int64)
    except OverflowError:
        wide = None
    info = np.iinfo(target)
    low = -int(info.max) if target.kind == "u" else int(info.min)
    if wide is None or wide.size and (wide.min() < low or wide.max() > info.max):
        raise RuntimeError(f"value cannot be converted to type {target} without overflow "
                           f"(a {target} holds [{info.min}, {info.max}])")
    return wide.astype(target)


def to_array(data: Any, dtype: Any, float_default: bool) -> np.ndarray:
    """Copy ``data`` into a new array of a supported dtype.

    NumPy arrays and scalars keep their dtype; Python floats become float32 (PyTorch's default),
    and with ``float_default`` everything does (the ``Tensor(...)`` constructor).
    """
    if isinstance(data, TensorBase):
        data = data._data
    target = dtypes.to_dtype(dtype).np if dtype is not None else None
    try:
        arr = np.array(data, dtype=target)
    except OverflowError:
        if target is None or target.kind not in "iu":
            raise
        arr = _overflowing_ints(data, target)
    except (TypeError, ValueError) as err:
        ragged = _ragged_message(data, _first_shape(data), 0)
        if ragged is not None:
            raise ValueError(ragged) from None
        raise TypeError(
            f"tensor: could not convert data of type {type(data).__name__}: {err}"
        ) from None
    if target is None:
        if float_default:
            arr = arr.astype(dtypes.get_default_dtype().np)
        elif arr.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
            arr = arr.astype(dtypes.get_default_dtype().np)  # Python floats: the default
        elif arr.dtype not in dtypes._FROM_NUMPY:
            if arr.dtype.kind == "f":  # longdouble
                arr = arr.astype(np.float64)
            elif arr.dtype.name != "bfloat16" or dtypes.to_dtype(arr.dtype) is None:
                kind = {"U": "str", "S": "bytes", "O": "object"}.get(arr.dtype.kind, arr.dtype)
                raise TypeError(f"tensor: invalid data type '{kind}' (data of type "
                                f"{type(data).__name__}; unsupported data of dtype {arr.dtype})")
    return arr
