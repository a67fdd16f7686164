"""Elementwise functions PyTorch has both as ``torch.*`` and as Tensor methods that the other
modules lack: the bit shifts, ``i0``, the incomplete gamma functions ``igamma``/``igammac``,
``angle`` and ``conj_physical`` of real tensors, ``hardshrink`` and ``prelu`` (the Tensor-method
forms of the ``nn.functional`` activations). Composites get their gradients (first and second
order) from their ops."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops.incomplete_gamma import igamma as _igamma
from .basic import where
from .creation import ones_like
from .pointwise import abs, isnan
from .registry import public

__all__ = ["bitwise_left_shift", "bitwise_right_shift", "i0", "igamma", "igammac", "angle",
           "conj_physical", "hardshrink", "prelu"]


def _shift(input: Any, other: Any, left: bool) -> TensorBase:
    """``input << other`` / ``>>`` on integer (or bool) operands with PyTorch's promotion: a
    Python int keeps the tensor's dtype (bool becomes int64); two tensors promote."""
    name = "lshift" if left else "rshift"
    a = input._data if isinstance(input, TensorBase) else np.asarray(input)
    b = other._data if isinstance(other, TensorBase) else np.asarray(other)
    for arr in (a, b):
        if arr.dtype.kind not in "biu":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{arr.dtype}' "
                                      f"(bitwise shifts take integer tensors; got shapes "
                                      f"{a.shape} and {b.shape})")
    dt = dtypes.result_type(*(v._data if isinstance(v, TensorBase) else v
                              for v in (input, other)))
    if dt.kind == "b":
        dt = np.dtype(np.int64)
    fn = np.left_shift if left else np.right_shift
    return wrap(np.asarray(fn(a.astype(dt), b.astype(dt))))


@public(out=True, inplace=True)
def bitwise_left_shift(input: Any, other: Any) -> TensorBase:
    """``input << other`` elementwise (integer tensors; shifts past the width give 0)."""
    return _shift(input, other, True)


@public(out=True, inplace=True)
def bitwise_right_shift(input: Any, other: Any) -> TensorBase:
    """``input >> other`` elementwise, arithmetic for signed integers."""
    return _shift(input, other, False)


@public(out=True, inplace=True, torch_inplace=True)
def i0(input: TensorBase) -> TensorBase:
    """The modified Bessel function of the first kind, order 0, by its power series
    ``sum (x/2)^2k / (k!)^2`` (a composite: differentiable to any order; integers give
    float32)."""
    half = input * 0.5
    square = half * half
    total = term = ones_like(half)
    # the terms peak near k = |x|/2 and fall off within a few sqrt(|x|) after it; past
    # |x| = 750 (and at inf) the terms overflow to inf, which is the value there
    values = np.abs(input._data)
    largest = min(float(values[np.isfinite(values)].max(initial=0.0)), 750.0)
    for k in range(1, int(largest / 2 + 10 * math.sqrt(largest) + 20)):
        term = term * square / float(k * k)
        total = total + term
    return total


@public(out=True, inplace=True)
def igamma(input: Any, other: Any) -> TensorBase:
    """The regularised lower incomplete gamma function ``P(input, other)`` (differentiable in
    ``other``; see ``ops/incomplete_gamma.py``)."""
    return _igamma(input, other, False, "igamma")


@public(out=True, inplace=True)
def igammac(input: Any, other: Any) -> TensorBase:
    """The regularised upper incomplete gamma function ``Q(input, other) = 1 - P``."""
    return _igamma(input, other, True, "igammac")


@public(out=True)
def angle(input: TensorBase) -> TensorBase:
    """The argument of each (real) element: pi below 0, else 0, NaN kept; integers give float32.
    The gradient is 0, as PyTorch's for real tensors."""
    x = input if is_float_dtype(input._data.dtype) else ops.cast(input, np.dtype(np.float32))
    value = wrap(np.where(x._data < 0, math.pi, 0.0).astype(x._data.dtype))
    return where(isnan(x), x, value)


def conj_physical(input: TensorBase) -> TensorBase:
    """The complex conjugate as a new tensor: a copy of a real tensor (gradient flows back)."""
    return ops.clone(input)


@public(out=True)
def hardshrink(input: TensorBase, lambd: float = 0.5) -> TensorBase:
    """``x`` where ``|x| > lambd``, else 0 (floating-point tensors, as in PyTorch)."""
    if not is_float_dtype(input._data.dtype):
        raise NotImplementedError(f"\"hardshrink_cpu\" not implemented for '{input.dtype}' "
                                  f"(shape {tuple(input.shape)})")
    return where(abs(input) > lambd, input, 0.0)


def prelu(input: TensorBase, weight: TensorBase) -> TensorBase:
    """Leaky ReLU with a learned slope ``weight``: one for all channels or one per channel
    (dim 1)."""
    w = weight
    if weight._data.size > 1:
        channels = input.shape[1] if input.ndim > 1 else 1
        if input.ndim < 2 or channels != weight._data.size:
            raise RuntimeError(f"prelu: Mismatch of parameter numbers and input channel size. "
                               f"Found parameter numbers = {weight._data.size} and channel size "
                               f"= {channels} (input of shape {tuple(input.shape)})")
        w = weight.reshape(-1, *([1] * (input.ndim - 2)))
    return where(input > 0, input, input * w)
