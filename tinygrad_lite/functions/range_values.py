"""The values of ``arange``, ``linspace`` and ``logspace``, bit for bit as PyTorch's CPU kernels
compute them.

PyTorch does not compute ``start + i * step`` once per element in one precision: its kernels
(``RangeFactoriesKernel.cpp``) fuse each multiply-add into one FMA (one rounding); ``arange``
fills 256-bit vectors (8 float32 lanes, 4 float64 lanes, two vectors per loop turn), each vector
as ``base + k * step`` from a ``base`` rounded to the result dtype, the leftover tail element by
element; ``linspace`` fills its first half from ``start`` and the second half backwards from
``end``. NumPy's ``arange``/``linspace`` round differently, which shows in the
last bits (``arange(-1, 1, 0.2)[5]`` is 5.55e-17 in PyTorch, -2.2e-16 in NumPy).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._kernels import threads

__all__ = ["arange_values", "linspace_values", "logspace_values"]

_VECTOR_BYTES = 32  # an AVX2 register, the width PyTorch's range kernels use
_GRAIN_SIZE = 32768  # at::internal::GRAIN_SIZE: longer ranges are split between threads
_SPLIT = 134217729.0  # 2**27 + 1, Dekker's splitting constant for float64
# the largest magnitude up to which every integer is exact in each float dtype
_EXACT_INTEGERS = {"float16": 2 ** 11, "bfloat16": 2 ** 8, "float32": 2 ** 24, "float64": 2 ** 53}


def _fma64(a: np.ndarray, b: np.ndarray | float, c: np.ndarray | float) -> np.ndarray:
    """``a * b + c`` with one rounding, in float64 (NumPy has no FMA): the product and sum
    are kept exactly as pairs of doubles (Dekker's product, Knuth's sum), then rounded once."""
    a, b, c = np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64)
    p = a * b
    ta, tb = _SPLIT * a, _SPLIT * b
    a_hi, b_hi = ta - (ta - a), tb - (tb - b)
    a_lo, b_lo = a - a_hi, b - b_hi
    p_err = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    bb = s - p
    s_err = (p - (s - bb)) + (c - bb)
    with np.errstate(invalid="ignore"):
        out = s + (s_err + p_err)
    # infinities and NaNs make the error terms NaN: fall back to the plain result there
    return np.where(np.isfinite(out), out, p + c)


def _fma(a: np.ndarray, b: Any, c: Any, acc: np.dtype) -> np.ndarray:
    """``a * b + c`` fused, in the accumulation dtype ``acc`` (float64 or float32; a float32
    FMA is the float64 one rounded to float32, the product of a small integer and a float32
    being exact in float64)."""
    if acc == np.float64:
        return _fma64(a, b, c)
    return (np.asarray(a, np.float64) * np.float64(b) + np.float64(c)).astype(np.float32)


def _threads() -> int:
    return max(1, int(threads.budget()))


def _vector_fill(n: int, out: np.dtype, lanes: int, scalar: Any, lane: Any) -> np.ndarray:
    """PyTorch's ``cpu_serial_kernel_vec`` for a nullary op over ``n`` elements, run per
    ``parallel_for`` chunk: whole pairs of ``lanes``-wide vectors, each element
    ``lane(k, base)`` from ``base = scalar(first index)`` rounded to ``out``, then the tail
    as ``scalar(i)``. ``scalar`` and ``lane`` return values still to be rounded to ``out``."""
    idx = np.arange(n, dtype=np.int64)
    threads = 1 if n <= _GRAIN_SIZE else min(_threads(), -(-n // _GRAIN_SIZE))
    chunk = -(-n // threads) if n else 1
    begin = idx // chunk * chunk
    end = np.minimum(begin + chunk, n)
    offset = idx - begin
    in_vector = idx < begin + (end - begin) // (2 * lanes) * (2 * lanes)
    values = _to(scalar(idx), out)
    if in_vector.any():
        first = (begin + offset // lanes * lanes)[in_vector]
        base = _to(scalar(first), out)
        values[in_vector] = _to(lane((offset % lanes)[in_vector], base), out)
    return values


def _to(values: np.ndarray, out: np.dtype) -> np.ndarray:
    """``values`` converted as C++ converts to ``out`` (integers truncate toward zero)."""
    if out.kind in "iu":
        with np.errstate(invalid="ignore"):
            return np.trunc(values).astype(np.int64).astype(out)
    with np.errstate(over="ignore"):
        return values.astype(out)


def _lanes(out: np.dtype) -> int:
    return max(1, _VECTOR_BYTES // out.itemsize)


def arange_values(start: float, step: float, n: int, out: np.dtype) -> np.ndarray:
    """``n`` values ``start + i * step`` of dtype ``out``; ``start`` and ``step`` are already
    converted to the accumulation type (Python ints for integer results)."""
    if out.kind in "iu" or out.kind == "b":
        # int64 accumulation: exact for the ranges an int64 tensor can hold
        whole = np.arange(n, dtype=np.int64) * np.int64(step) + np.int64(start)
        return whole if out == np.int64 else whole.astype(out)
    if float(start).is_integer() and float(step).is_integer() \
            and abs(start) + abs(step) * n <= _EXACT_INTEGERS.get(out.name, 0):
        # every value is an integer the dtype holds exactly: any rounding gives PyTorch's bits
        # (``arange(64.)``, ``arange(n, dtype=float32)``: the common float ranges, at NumPy's
        # speed instead of the emulated kernel's)
        exact = np.arange(n, dtype=np.float64) * np.float64(step) + np.float64(start)
        return exact.astype(out)
    acc = np.dtype(np.float64) if out.itemsize >= 4 else np.dtype(np.float32)
    start_a, step_a = acc.type(start), acc.type(step)
    return _vector_fill(n, out, _lanes(out),
                        lambda i: _fma(i, step_a, start_a, acc),
                        lambda k, base: _fma(k, step_a, base, acc))


def linspace_values(start: float, end: float, steps: int, out: np.dtype) -> np.ndarray:
    """PyTorch's ``linspace`` kernel: ``start + i * step`` for the first ``steps // 2``
    values, ``end - (steps - 1 - i) * step`` for the rest, each with one rounding (an FMA), in
    the result dtype (the step in
    float64 for integer results, where ``start``/``end`` are first converted to the dtype)."""
    if steps == 0:
        return np.zeros(0, out)
    acc: np.dtype = np.dtype(np.float64)
    if out.kind in "iu":
        start_a: Any = float(_to(np.array([start], np.float64), out)[0]) \
            if np.isfinite(start) else start
        end_a: Any = float(_to(np.array([end], np.float64), out)[0]) if np.isfinite(end) else end
    else:
        acc = np.dtype(np.float64) if out.itemsize >= 8 else np.dtype(np.float32)
        start_a, end_a = out.type(start), out.type(end)
    if steps == 1:
        return np.full(1, start_a).astype(out) if out.kind not in "iu" else \
            _to(np.array([start_a], np.float64), out)
    with np.errstate(all="ignore"):
        step = acc.type((acc.type(end_a) - acc.type(start_a)) / acc.type(steps - 1))
    if out.kind == "f":  # the step is kept in the result dtype (float16 rounds it)
        step = acc.type(out.type(step))
    halfway = steps // 2

    def scalar(i: np.ndarray) -> np.ndarray:
        front = _fma(i, step, start_a, acc)
        back = _fma(-(steps - 1 - i), step, end_a, acc)
        return np.where(i < halfway, front, back)

    # element by element (PyTorch's linspace loop is not vectorised), each value one FMA
    return _to(scalar(np.arange(steps, dtype=np.int64)), out)


def logspace_values(start: float, end: float, steps: int, base: float,
                    out: np.dtype) -> np.ndarray:
    """PyTorch's ``logspace``: ``base ** e`` in float64 with the exponents computed as
    ``linspace`` does (from both ends), from ``start``/``end`` converted to the result dtype
    first (no vectors and no FMA: this loop is plain C++)."""
    if steps == 0:
        return np.zeros(0, out)
    if steps == 1:
        with np.errstate(all="ignore"):
            return _to(np.array([_pow(float(base), float(start))], np.float64), out)
    if out.kind in "iu":
        s, e = (float(_to(np.array([v], np.float64), out)[0]) for v in (start, end))
        base_f = float(np.float32(base))  # PyTorch takes the base as a float here
        step = (int(e) - int(s)) / (steps - 1)
    else:
        s, e = float(out.type(start)), float(out.type(end))
        base_f = float(base)
        step = float(out.type(out.type(e) - out.type(s))) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    exps = np.where(i < steps // 2, s + step * i, e - step * (steps - 1 - i))
    return _to(np.array([_pow(base_f, float(x)) for x in exps], np.float64), out)


def _pow(base: float, exponent: float) -> float:
    """The C library's ``pow`` (as PyTorch calls it; NumPy's own ``power`` differs from it in
    the last bit for some arguments), with overflow giving inf and an invalid power NaN."""
    try:
        return math.pow(base, exponent)
    except OverflowError:
        return math.inf if base > 0 or exponent == int(exponent) and exponent % 2 == 0 \
            else -math.inf
    except ValueError:
        return math.nan
