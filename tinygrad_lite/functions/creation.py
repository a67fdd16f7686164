"""Creating tensors: from data, filled, ranges, and random (seeded by ``manual_seed``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._core.tensor_base import TensorBase, to_array, wrap

__all__ = [
    "tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange", "linspace",
    "eye", "rand", "randn", "randint", "zeros_like", "ones_like", "full_like", "rand_like",
    "randn_like", "manual_seed",
]

_rng = np.random.default_rng()  # the global generator; manual_seed replaces it


def default_rng() -> np.random.Generator:
    """The global random generator behind every random function (``manual_seed`` replaces it);
    for code elsewhere in the package that draws random numbers (dropout, init, samplers)."""
    return _rng


def manual_seed(seed: int) -> None:
    """Seed the global random generator, making every random function reproducible."""
    global _rng
    _rng = np.random.default_rng(int(seed))


def _finish(data: np.ndarray, requires_grad: bool, device: Any = None) -> TensorBase:
    if device is not None and not str(device).startswith("cpu"):
        raise RuntimeError(
            f"tinygrad_lite tensors live on the CPU; device {device!r} is not available"
        )
    t = wrap(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _size(size: tuple) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape (2, 3)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(n, (int, np.integer)) and n >= 0 for n in size):
        raise ValueError(f"sizes must be non-negative integers, got {size}")
    return tuple(int(n) for n in size)


def _np_dtype(dtype: Any, default: dtypes.DType = dtypes.float32) -> np.dtype:
    return (dtypes.to_dtype(dtype) if dtype is not None else default).np


def tensor(data: Any, dtype: Any = None, requires_grad: bool = False,
           device: Any = None) -> TensorBase:
    """A new tensor holding a copy of ``data``; the dtype is inferred as in PyTorch (Python
    floats give float32, ints int64, bools bool; NumPy arrays keep theirs)."""
    if isinstance(dtype, str):
        raise TypeError(f"tensor(): argument 'dtype' must be a dtype (e.g. tl.{dtype}), "
                        f"not str {dtype!r}")
    return _finish(to_array(data, dtype, float_default=False), requires_grad, device)


def as_tensor(data: Any, dtype: Any = None) -> TensorBase:
    """``data`` as a tensor, without a copy when it already is one of the right dtype."""
    if isinstance(data, TensorBase) and (dtype is None or data.dtype is dtypes.to_dtype(dtype)):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == _np_dtype(dtype)):
        return from_numpy(data)
    return tensor(data, dtype)


def from_numpy(array: np.ndarray) -> TensorBase:
    """A tensor sharing memory with a NumPy array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy_dtype(array.dtype)  # raises for unsupported dtypes
    return wrap(array)


def zeros(*size: Any, dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> TensorBase:
    """A tensor of zeros."""
    return _finish(np.zeros(_size(size), _np_dtype(dtype)), requires_grad, device)


def ones(*size: Any, dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> TensorBase:
    """A tensor of ones."""
    return _finish(np.ones(_size(size), _np_dtype(dtype)), requires_grad, device)


def empty(*size: Any, dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> TensorBase:
    """An uninitialised tensor (its values are arbitrary)."""
    return _finish(np.empty(_size(size), _np_dtype(dtype)), requires_grad, device)


def full(size: Any, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> TensorBase:
    """A tensor filled with ``fill_value``; its dtype follows the value (float32, int64, bool)."""
    if dtype is None:
        dtype = to_array(fill_value, None, float_default=False).dtype
    return _finish(np.full(_size((size,)), fill_value, _np_dtype(dtype)), requires_grad, device)


def arange(start: Any, end: Any = None, step: Any = 1, *, dtype: Any = None,
           requires_grad: bool = False, device: Any = None) -> TensorBase:
    """Values ``start, start+step, ...`` below ``end``; int64 for int arguments, else float32."""
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("arange: step must be nonzero")
    if dtype is None:
        whole = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
        dtype = dtypes.int64 if whole else dtypes.float32
    return _finish(np.arange(start, end, step).astype(_np_dtype(dtype)), requires_grad, device)


def linspace(start: float, end: float, steps: int, *, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> TensorBase:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    return _finish(np.linspace(start, end, steps).astype(_np_dtype(dtype)), requires_grad, device)


def eye(n: int, m: int | None = None, *, dtype: Any = None, requires_grad: bool = False,
        device: Any = None) -> TensorBase:
    """An ``n x m`` matrix with ones on the diagonal."""
    return _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad, device)


def rand(*size: Any, dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> TensorBase:
    """Uniform random values in [0, 1)."""
    dt = _np_dtype(dtype)
    data = _rng.random(_size(size), dtype=np.float64 if dt == np.float64 else np.float32)
    return _finish(data.astype(dt, copy=False), requires_grad, device)


def randn(*size: Any, dtype: Any = None, requires_grad: bool = False,
          device: Any = None) -> TensorBase:
    """Standard normal random values."""
    dt = _np_dtype(dtype)
    data = _rng.standard_normal(_size(size), dtype=np.float64 if dt == np.float64 else np.float32)
    return _finish(data.astype(dt, copy=False), requires_grad, device)


def randint(*args: Any, dtype: Any = None, requires_grad: bool = False, device: Any = None,
            **kwargs: Any) -> TensorBase:
    """Random integers in ``[low, high)``: ``randint(high, size)``, ``randint(low, high, size)``."""
    if "size" in kwargs:
        args = (*args, kwargs.pop("size"))
    if kwargs:
        raise TypeError(f"randint: unexpected keyword arguments {sorted(kwargs)}")
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint expects (high, size) or (low, high, size)")
    if high <= low:
        raise RuntimeError(f"randint: expected low < high, got low={low}, high={high}")
    data = _rng.integers(low, high, _size((size,)), dtype=np.int64)
    return _finish(data.astype(_np_dtype(dtype, dtypes.int64), copy=False), requires_grad, device)


def _like(t: TensorBase, dtype: Any) -> tuple[tuple, Any]:
    return t._data.shape, (dtype if dtype is not None else t.dtype)


def zeros_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False) -> TensorBase:
    """Zeros with the shape (and by default dtype) of ``input``."""
    shape, dt = _like(input, dtype)
    return zeros(shape, dtype=dt, requires_grad=requires_grad)


def ones_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False) -> TensorBase:
    """Ones with the shape (and by default dtype) of ``input``."""
    shape, dt = _like(input, dtype)
    return ones(shape, dtype=dt, requires_grad=requires_grad)


def full_like(input: TensorBase, fill_value: Any, *, dtype: Any = None,
              requires_grad: bool = False) -> TensorBase:
    """``fill_value`` with the shape (and by default dtype) of ``input``."""
    shape, dt = _like(input, dtype)
    return full(shape, fill_value, dtype=dt, requires_grad=requires_grad)


def rand_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False) -> TensorBase:
    """Uniform [0, 1) values with the shape (and by default dtype) of ``input``."""
    shape, dt = _like(input, dtype)
    return rand(shape, dtype=dt, requires_grad=requires_grad)


def randn_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False) -> TensorBase:
    """Standard normal values with the shape (and by default dtype) of ``input``."""
    shape, dt = _like(input, dtype)
    return randn(shape, dtype=dt, requires_grad=requires_grad)
