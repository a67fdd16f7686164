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


def _leaf_types(data: Any, found: set) -> set:
    """The types of the non-sequence items of nested lists/tuples (a set per level, in C)."""
    kinds = set(map(type, data))
    for kind in kinds & {list, tuple}:
        for item in data:
            if type(item) is kind:
                _leaf_types(item, found)
    found |= kinds - {list, tuple}
    return found


_PYTHON_SCALARS = {bool: np.dtype(np.bool_), int: np.dtype(np.int64)}


def _sequence_dtype(data: Any, leaf_types: set) -> np.dtype | None:
    """The dtype PyTorch infers for a nested list: every item's own dtype (a Python float the
    default dtype, an int int64, a bool bool, a NumPy scalar or 0-d tensor its dtype), promoted
    together (``[np.float64(1.5), 2.0]`` is float64, ``[np.float16(1.5), 2]`` float16). None
    for items NumPy's own inference already reads right or that are not numbers."""
    found: list[np.dtype] = []
    for kind in leaf_types:
        if kind is float:
            found.append(dtypes.get_default_dtype().np)
        elif kind in _PYTHON_SCALARS:
            found.append(_PYTHON_SCALARS[kind])
        elif issubclass(kind, np.generic) and np.dtype(kind).kind in "biuf":
            found.append(np.dtype(kind))
        elif issubclass(kind, (TensorBase, np.ndarray)):
            found.extend(_array_item_dtypes(data))
        else:
            return None
    result = None
    for d in set(found):
        result = d if result is None else dtypes.promote_types(result, d)
    return result


def _tensors_as_scalars(data: Any) -> Any:
    """Nested lists with each tensor item as a 0-d array of its dtype: PyTorch reads a tensor
    inside a list as a scalar (``tensor([tensor([1.]), tensor([2.])])`` has shape (2,)), and
    one of more than one element is its ValueError."""
    if isinstance(data, TensorBase):
        if data._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return data._data.reshape(())
    if isinstance(data, (list, tuple)):
        return [_tensors_as_scalars(item) for item in data]
    return data


def _array_item_dtypes(data: Any) -> list[np.dtype]:
    """The dtypes of the tensors and arrays among nested lists' items."""
    out = []
    for item in data:
        if isinstance(item, (list, tuple)):
            out.extend(_array_item_dtypes(item))
        elif isinstance(item, (TensorBase, np.ndarray)):
            out.append(item._data.dtype if isinstance(item, TensorBase) else item.dtype)
    return out


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
    leaf_types = _leaf_types(data, set()) if isinstance(data, (list, tuple)) else set()
    if any(issubclass(kind, TensorBase) for kind in leaf_types):
        data = _tensors_as_scalars(data)
        leaf_types = _leaf_types(data, set())
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
        elif leaf_types and arr.dtype.kind in "biuf":
            element = _sequence_dtype(data, leaf_types)
            if element is not None and element != arr.dtype:
                arr = arr.astype(element)
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
