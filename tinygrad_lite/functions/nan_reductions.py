"""Division with a rounding mode, the NaN-ignoring reductions and ``histogram``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import return_types
from ..ops.elementwise import bfloat16_in_float32
from .mathops import floor_divide
from .pointwise import trunc

__all__ = ["div", "divide", "nansum", "nanmean", "histogram"]

HistogramResult = return_types.histogram  # torch.return_types.histogram


def _tensor(x: Any) -> TensorBase:
    return x if isinstance(x, TensorBase) else wrap(np.asarray(x))


def _int_trunc_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Integer division rounding toward zero, exactly (no float round trip for int64)."""
    if (b == 0).any():
        raise ZeroDivisionError("div(rounding_mode='trunc'): integer division by zero")
    q = np.floor_divide(a, b)
    # floor and trunc differ where the quotient is negative and inexact
    fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
    return q + fix.astype(q.dtype)


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
            target = np.dtype(np.int64)
        x, y = np.broadcast_arrays(a._data.astype(target), b._data.astype(target))
        return wrap(np.asarray(_int_trunc_divide(x, y)))
    return trunc(ops.div(input, other))  # (a Python number stays a wrapped number)


divide = div


def _nan_zeroed(input: TensorBase) -> TensorBase:
    """``input`` with NaNs replaced by 0 (their gradient is 0, as PyTorch's nansum gives)."""
    if not is_float_dtype(input._data.dtype):
        return input
    mask = np.isnan(input._data)
    return ops.where(wrap(mask), 0.0, input) if mask.any() else input


@bfloat16_in_float32
def nansum(input: TensorBase, dim: Any = None, keepdim: bool = False, *,
           dtype: Any = None) -> TensorBase:
    """Sum over ``dim`` (all by default) treating NaN as zero."""
    return ops.reduce_sum(_nan_zeroed(input), dim, keepdim, dtype)


def nanmean(input: TensorBase, dim: Any = None, keepdim: bool = False, *,
            dtype: Any = None) -> TensorBase:
    """Mean over ``dim`` (all by default) of the elements that are not NaN."""
    if dtype is not None:
        input = ops.cast(input, dtypes.to_dtype(dtype).np)
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"nanmean(): expected input to have floating point dtype but got "
                           f"{input.dtype}")
    dims = None if dim is None else ops.normalize_dims(dim, input._data.ndim, "nanmean")
    axis = None if dims is None or not dims else tuple(dims)
    count = np.sum(~np.isnan(input._data), axis=axis, keepdims=keepdim)
    total = ops.reduce_sum(_nan_zeroed(input), dim, keepdim)
    return total / wrap(np.asarray(count, input._data.dtype))


def histogram(input: TensorBase, bins: Any = 100, *, range: Any = None,  # noqa: A002
              weight: TensorBase | None = None, density: bool = False) -> Any:
    """``(hist, bin_edges)``: counts (or weights, or a density) of ``input`` in ``bins`` equal
    bins over ``range`` (the data's min..max by default), or between given edges."""
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same "
                           f"floating point dtype, got {input.dtype}")
    data = input._data.reshape(-1)
    dt = input._data.dtype
    if isinstance(bins, TensorBase):
        edges = bins._data.astype(np.float64)
        if edges.ndim != 1 or edges.size < 2:
            raise RuntimeError(f"torch.histogram: bins tensor should have one dimension and at "
                               f"least 2 elements, got shape {tuple(bins._data.shape)}")
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        if range is not None:
            lo, hi = (float(v) for v in range)
            if lo > hi:
                raise RuntimeError(f"torch.histogram: min should not exceed max, got min {lo} "
                                   f"max {hi}")
        elif data.size:
            lo, hi = float(data.min()), float(data.max())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:  # an empty range is widened as PyTorch does
            lo, hi = lo - 0.5, hi + 0.5
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogram: range of [{lo}, {hi}] is not finite")
        edges = np.linspace(lo, hi, int(bins) + 1)
    w = None if weight is None else weight._data.reshape(-1)
    if w is not None and w.shape != data.shape:
        raise RuntimeError(f"torch.histogram: if weight tensor is provided it should have the "
                           f"same shape as the input tensor, got {tuple(w.shape)} "
                           f"and {tuple(input._data.shape)}")
    hist, _ = np.histogram(data, bins=edges, weights=w, density=density)
    return HistogramResult(wrap(hist.astype(dt)), wrap(edges.astype(dt)))
