"""``make_tensor``: a random tensor for tests, with PyTorch's value ranges per dtype (bool in
[0, 2), unsigned integers in [0, 10), signed integers in [-9, 10), floats in [-9, 9)), its
clamping of ``low``/``high`` to the dtype's range, and its errors. Draws from the global
generator, so ``tl.manual_seed`` makes it repeatable."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from .. import dtypes, functions
from .._core.device import check_device
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..functions.generator import rng_of

__all__ = ["make_tensor"]

_INTEGRAL = (dtypes.uint8, dtypes.int8, dtypes.int16, dtypes.int32, dtypes.int64,
             dtypes.uint16, dtypes.uint32, dtypes.uint64)
_FLOATING = (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64)


def _limits(low: float | None, high: float | None, dtype: dtypes.DType, lowest: float,
            highest: float, default_low: float, default_high: float) -> tuple[Any, Any]:
    """``low``/``high`` (or the dtype's defaults) checked and clamped to [lowest, highest);
    rounded up to integers for bool and integer dtypes."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got {low=} and {high=}")
    if low == high and dtype in _FLOATING:
        warn("Passing `low==high` to `tinygrad_lite.testing.make_tensor` for floating or "
             "complex types is deprecated since 2.1 and will be removed in 2.3. Use "
             "`tinygrad_lite.full(...)` instead.", FutureWarning)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest})")
    low, high = min(max(low, lowest), highest), min(max(high, lowest), highest)
    if dtype in _FLOATING:
        return low, high
    return math.ceil(low), math.ceil(high)


def _random_integers(low: int, high: int, shape: tuple, dtype: dtypes.DType) -> TensorBase:
    """Uniform integers in [low, high) of ``dtype`` (beyond int64's range for uint64)."""
    if high - 1 <= np.iinfo(np.int64).max:
        return functions.randint(low, high, shape, dtype=dtype)
    return wrap(rng_of(None).integers(low, high, shape, dtype=np.uint64))


def make_tensor(*shape: int | Sequence[int], dtype: dtypes.DType, device: Any,
                low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False,
                exclude_zero: bool = False, memory_format: Any = None) -> TensorBase:
    """A tensor of ``shape`` and ``dtype`` with values drawn uniformly from ``[low, high)``
    (``torch.testing.make_tensor``)."""
    if len(shape) == 1 and isinstance(shape[0], Sequence):
        shape = tuple(shape[0])
    for pos, n in enumerate(shape):  # PyTorch takes ints only, not floats that look whole
        if isinstance(n, (float, np.floating)):
            kind = type(n).__name__ if type(n) is float else f"numpy.{type(n).__name__}"
            raise TypeError(f"make_tensor(): argument 'size' must be tuple of ints, but found "
                            f"element of type {kind} at pos {pos}")
    size = tuple(int(n) for n in cast(tuple[int, ...], shape))
    check_device(device, "make_tensor")
    if noncontiguous and memory_format is not None:
        raise ValueError(f"The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got {noncontiguous=} and {memory_format=}")
    if requires_grad and (dtype is dtypes.bool or dtype in _INTEGRAL):
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got {dtype=}")
    noncontiguous = noncontiguous and math.prod(size) > 1
    if noncontiguous:
        size = (*size[:-1], 2 * size[-1])
    if dtype is dtypes.bool:
        low, high = _limits(low, high, dtype, 0, 2, 0, 2)
        result = functions.randint(low, high, size, dtype=dtype)
    elif dtype in _INTEGRAL:
        info = np.iinfo(dtype.np)
        highest = int(info.max) + (1 if dtype is not dtypes.int64 else 0)
        low, high = _limits(low, high, dtype, int(info.min), highest, -9, 10)
        result = _random_integers(int(low), int(high), size, dtype)
    elif dtype in _FLOATING:
        work = dtypes.float32 if dtype is dtypes.bfloat16 else dtype  # drawn, then rounded
        biggest = float(dtypes.finfo_of(dtypes.to_dtype(dtype).np).max)
        low, high = _limits(low, high, dtype, -biggest, biggest, -9, 9)
        result = functions.empty(size, dtype=work)
        if high - low >= biggest:  # the width would overflow: draw half of it and double
            result.uniform_(low / 2, high / 2).mul_(2)
        else:
            result.uniform_(low, high)
        result = result.to(dtype) if work is not dtype else result
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "tinygrad_lite.testing.make_tensor().")
    if noncontiguous:
        result = result[..., 1::2]
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        data = result._data
        data[data == 0] = (1 if dtype is dtypes.bool or dtype in _INTEGRAL
                           else dtypes.finfo_of(data.dtype).tiny)
    if dtype in _FLOATING:
        result.requires_grad_(requires_grad)
    return result
