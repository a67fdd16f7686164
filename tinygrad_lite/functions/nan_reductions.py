"""Division with a rounding mode and the NaN-ignoring reductions (nansum, nanmean)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops.elementwise import bfloat16_in_float32
from .histograms import _dtype_name
from .mathops import floor_divide
from .pointwise import trunc
from .registry import declare, public

__all__ = ["div", "divide", "nansum", "nanmean"]


def _tensor(x: Any) -> TensorBase:
    return x if isinstance(x, TensorBase) else wrap(np.asarray(x))


def _int_trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero, exactly (no float round trip for int64)."""
    if (b == 0).any():  # PyTorch's error: a RuntimeError whose message is the Python name
        raise RuntimeError("ZeroDivisionError")
    q = np.floor_divide(a, b)
    # floor and trunc differ where the quotient is negative and inexact
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


@public(out=True)
def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> TensorBase:
    """``input / other``; ``rounding_mode`` ``"trunc"`` rounds toward zero and ``"floor"``
    down (integer operands then stay integer). Rounded quotients have zero gradient."""
    if rounding_mode is None:
        return ops.div(input, other)
    if rounding_mode == "floor":
        return floor_divide(input, other)
    if rounding_mode != "trunc":
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' "
                           f"but found '{rounding_mode}'")
    a, b = _tensor(input), _tensor(other)
    target = dtypes.result_type(a._data, other if not isinstance(other, TensorBase) else b._data)
    if np.dtype(target).kind in "biu":
        if np.dtype(target).kind == "b":
            raise NotImplementedError("\"div_trunc_cpu\" not implemented for 'Bool'")
        x, y = np.broadcast_arrays(a._data.astype(target), b._data.astype(target))
        return wrap(np.asarray(_int_trunc_divide(x, y)))
    return trunc(ops.div(input, other))  # (a Python number stays a wrapped number)


divide = div
declare("divide", out=True, inplace=True)


def _nan_zeroed(input: TensorBase) -> TensorBase:
    """``input`` with NaNs replaced by 0 (their gradient is 0, as PyTorch's nansum gives)."""
    if not is_float_dtype(input._data.dtype):
        return input
    mask = np.isnan(input._data)
    return ops.where(wrap(mask), 0.0, input) if mask.any() else input


@public(out=True)
@bfloat16_in_float32
def nansum(input: TensorBase, dim: Any = None, keepdim: bool = False, *,
           dtype: Any = None) -> TensorBase:
    """Sum over ``dim`` (all by default) treating NaN as zero."""
    return ops.reduce_sum(_nan_zeroed(input), dim, keepdim, dtype)


@public(out=True)
def nanmean(input: TensorBase, dim: Any = None, keepdim: bool = False, *,
            dtype: Any = None) -> TensorBase:
    """Mean over ``dim`` (all by default) of the elements that are not NaN."""
    # PyTorch checks the input's own dtype: an integer input is an error even with a float dtype=
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_dtype_name(input._data)}")
    if dtype is not None:
        input = ops.cast(input, dtypes.to_dtype(dtype).np)
        if not is_float_dtype(input._data.dtype):
            raise RuntimeError(f"nanmean(): could not infer output dtype. Optional dtype must be "
                               f"either a floating point or complex dtype. Got: "
                               f"{_dtype_name(input._data)}")
    dims = None if dim is None else ops.normalize_dims(dim, input._data.ndim, "nanmean")
    axis = None if dims is None or not dims else tuple(dims)
    count = np.sum(~np.isnan(input._data), axis=axis, keepdims=keepdim)
    total = ops.reduce_sum(_nan_zeroed(input), dim, keepdim)
    return total / wrap(np.asarray(count, input._data.dtype))


