"""The functional API, elementwise part: unary math, clamp, lerp, comparisons, logic, bit
shifts."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import binary_math, unary
from ..ops.binary_math import atan2, hypot
from ..ops.elementwise import Exp2Backward0, ReciprocalBackward0, RsqrtBackward0
from ..ops.linalg.inverse import torch_dtype_name
from .registry import declare, public

__all__ = ["abs", "absolute", "sign", "clamp", "clip", "rsqrt", "square", "exp2", "expm1", "log2",
           "log10", "log1p", "tan", "reciprocal", "floor", "ceil", "round", "trunc", "minimum",
           "lerp", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
           "logical_xor", "isnan", "isinf", "isfinite", "bitwise_not", "bitwise_and", "bitwise_or",
           "bitwise_xor", "atan2", "hypot", "arctan2", "greater", "greater_equal", "less",
           "less_equal", "not_equal", "clamp_min", "clamp_max", "fmax", "fmin", "addcmul",
           "addcdiv", "gcd", "lcm", "nextafter", "isin", "bitwise_left_shift",
           "bitwise_right_shift"]

declare("atan2", "hypot", out=True, inplace=True)


def _tensor(x: Any) -> TensorBase:
    return x if isinstance(x, TensorBase) else wrap(np.asarray(x))


@public(out=True, inplace=True, torch_inplace=True)
def abs(input: TensorBase) -> TensorBase:  # noqa: A001 - PyTorch's name
    """Elementwise absolute value (gradient ``sign(x)``, 0 at 0)."""
    return unary.abs(input)


absolute = abs
declare("absolute", out=True, inplace=True)


@public(out=True, inplace=True)
def sign(input: TensorBase) -> TensorBase:
    """Elementwise -1, 0 or 1; zero gradient."""
    return unary.step("sign", input)


@public(out=True, inplace=True, torch_inplace=True)
def floor(input: TensorBase) -> TensorBase:
    """Round down elementwise; zero gradient."""
    return unary.step("floor", input)


@public(out=True, inplace=True, torch_inplace=True)
def ceil(input: TensorBase) -> TensorBase:
    """Round up elementwise; zero gradient."""
    return unary.step("ceil", input)


@public(out=True, inplace=True, torch_inplace=True)
def trunc(input: TensorBase) -> TensorBase:
    """Round towards zero elementwise; zero gradient."""
    return unary.step("trunc", input)


@public(out=True, inplace=True, torch_inplace=True)
def round(input: TensorBase, *, decimals: int = 0) -> TensorBase:  # noqa: A001
    """Round half to even elementwise (to ``decimals`` places); zero gradient."""
    if decimals == 0:
        return unary.step("round", input)
    return unary.round_decimals(input, decimals)


@public(out=True)
def clamp(input: TensorBase, min: Any = None, max: Any = None) -> TensorBase:  # noqa: A002
    """``input`` limited to ``[min, max]``; bounds may be numbers or tensors (either may be None).
    The gradient passes where ``min <= x <= max``."""
    if not isinstance(min, TensorBase) and not isinstance(max, TensorBase):
        return unary.clamp(input, min, max)
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    # tensor bounds: a composite of selections, so the bounds get gradients too, PyTorch's:
    # the input where min <= x <= max, min where x < min < max, max where x > max or max < min
    # (so max wins when the bounds cross), and NaN where any of them is NaN (no mask holds)
    x = input._data
    lo = None if min is None else _tensor(min)._data
    hi = None if max is None else _tensor(max)._data
    arrays = [a for a in (x, lo, hi) if a is not None]
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays))
    except ValueError:  # PyTorch's RuntimeError, naming the first pair that clashes
        for i, a in enumerate(arrays):
            for b in arrays[i + 1:]:
                try:
                    np.broadcast_shapes(a.shape, b.shape)
                except ValueError:
                    raise ops.common.broadcast_error("clamp", wrap(a), wrap(b)) from None
        raise
    with np.errstate(invalid="ignore"):
        keep = np.ones(shape, bool)
        if lo is not None:
            keep = keep & (x >= lo)
        if hi is not None:
            keep = keep & (x <= hi)
        crossed = (hi < lo) if lo is not None and hi is not None else False
    out = ops.where(_tensor(keep), input, 0)
    if hi is not None:
        out = ops.where(_tensor((x > hi) | crossed), max, out)
    if lo is not None:
        below = (x < lo) & (lo < hi) if hi is not None else x < lo
        out = ops.where(_tensor(below), min, out)
    if out._data.dtype.kind == "f":
        # a NaN anywhere makes the value NaN (max(x, NaN) is NaN) while the masks above still
        # route the gradient, as PyTorch's; adding -0.0 elsewhere keeps every value and sign
        nan = np.isnan(x)
        for bound in (lo, hi):
            if bound is not None and bound.dtype.kind == "f":
                nan = nan | np.isnan(bound)
        if nan.any():
            out = out + wrap(np.where(nan, np.nan, -0.0).astype(out._data.dtype))
    return out


clip = clamp
declare("clip", out=True)


def _floating(input: TensorBase, op: str) -> TensorBase:
    return input if is_float_dtype(input._data.dtype) else input.float()


@public(out=True, inplace=True, torch_inplace=True)
def rsqrt(input: TensorBase) -> TensorBase:
    """``1 / sqrt(x)`` elementwise."""
    return RsqrtBackward0.rename(ops.pow(_floating(input, "rsqrt"), -0.5))


@public(out=True, inplace=True, torch_inplace=True)
def square(input: TensorBase) -> TensorBase:
    """``x * x`` elementwise (a bool tensor squares as int64, as PyTorch's pow(x, 2)); recorded
    as a product (PyTorch's node is pow's: twice as slow here, for the same rule)."""
    if input._data.dtype == np.bool_:
        input = ops.cast(input, np.dtype(np.int64))
    return ops.mul(input, input)


@public(out=True, inplace=True, torch_inplace=True)
def exp2(input: TensorBase) -> TensorBase:
    """``2 ** x`` elementwise."""
    return Exp2Backward0.rename(ops.pow(2.0, _floating(input, "exp2")))


@public(out=True, inplace=True, torch_inplace=True)
def expm1(input: TensorBase) -> TensorBase:
    """``exp(x) - 1``, accurate near 0."""
    return unary.expm1(input)


@public(out=True, inplace=True, torch_inplace=True)
def log1p(input: TensorBase) -> TensorBase:
    """``log(1 + x)``, accurate near 0."""
    return unary.log1p(input)


@public(out=True, inplace=True, torch_inplace=True)
def log2(input: TensorBase) -> TensorBase:
    """Base-2 logarithm elementwise."""
    return ops.log(input) * (1 / math.log(2))


@public(out=True, inplace=True, torch_inplace=True)
def log10(input: TensorBase) -> TensorBase:
    """Base-10 logarithm elementwise."""
    return ops.log(input) * (1 / math.log(10))


@public(out=True, inplace=True, torch_inplace=True)
def tan(input: TensorBase) -> TensorBase:
    """Elementwise tangent."""
    return unary.tan(input)


@public(out=True, inplace=True, torch_inplace=True)
def reciprocal(input: TensorBase) -> TensorBase:
    """``1 / x`` elementwise."""
    return ReciprocalBackward0.rename(ops.pow(_floating(input, "reciprocal"), -1.0))


@public(out=True, inplace=True)
def minimum(input: TensorBase, other: TensorBase) -> TensorBase:
    """Elementwise minimum with broadcasting; ties share the gradient equally."""
    return ops.minimum(input, other)


@public(out=True, inplace=True)
def lerp(input: TensorBase, end: TensorBase, weight: Any) -> TensorBase:
    """``input + weight * (end - input)``: linear interpolation (floating point only)."""
    for name, t in (("input", input), ("end", end), ("weight", weight)):
        if isinstance(t, TensorBase) and not is_float_dtype(t._data.dtype):
            raise RuntimeError(f"lerp: expected floating point tensors, but {name} has dtype "
                               f"{t.dtype}")
    return binary_math.lerp(input, end, weight)


@public(out=True, inplace=True)
def eq(input: TensorBase, other: Any) -> TensorBase:
    """``input == other`` elementwise (bool)."""
    return ops.compare(np.equal, input, other, "eq")


@public(out=True, inplace=True)
def ne(input: TensorBase, other: Any) -> TensorBase:
    """``input != other`` elementwise (bool)."""
    return ops.compare(np.not_equal, input, other, "ne")


@public(out=True, inplace=True)
def lt(input: TensorBase, other: Any) -> TensorBase:
    """``input < other`` elementwise (bool)."""
    return ops.compare(np.less, input, other, "lt")


@public(out=True, inplace=True)
def le(input: TensorBase, other: Any) -> TensorBase:
    """``input <= other`` elementwise (bool)."""
    return ops.compare(np.less_equal, input, other, "le")


@public(out=True, inplace=True)
def gt(input: TensorBase, other: Any) -> TensorBase:
    """``input > other`` elementwise (bool)."""
    return ops.compare(np.greater, input, other, "gt")


@public(out=True, inplace=True)
def ge(input: TensorBase, other: Any) -> TensorBase:
    """``input >= other`` elementwise (bool)."""
    return ops.compare(np.greater_equal, input, other, "ge")


def _logical(ufunc: np.ufunc, name: str, a: Any, b: Any) -> TensorBase:
    x, y = _tensor(a)._data, _tensor(b)._data
    try:
        return wrap(np.asarray(ufunc(x, y)))
    except ValueError:
        raise ops.common.broadcast_error(name, _tensor(a), _tensor(b)) from None


@public(out=True, inplace=True)
def logical_and(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise logical AND of the truth values (bool)."""
    return _logical(np.logical_and, "logical_and", input, other)


@public(out=True, inplace=True)
def logical_or(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise logical OR of the truth values (bool)."""
    return _logical(np.logical_or, "logical_or", input, other)


@public(out=True, inplace=True)
def logical_xor(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise logical XOR of the truth values (bool)."""
    return _logical(np.logical_xor, "logical_xor", input, other)


@public(out=True, inplace=True)
def logical_not(input: TensorBase) -> TensorBase:
    """Elementwise logical NOT of the truth values (bool)."""
    return wrap(np.logical_not(input._data))


def isnan(input: TensorBase) -> TensorBase:
    """Elementwise: is the value NaN (bool)."""
    return wrap(np.isnan(input._data))


def isinf(input: TensorBase) -> TensorBase:
    """Elementwise: is the value +/- infinity (bool)."""
    return wrap(np.isinf(input._data))


def isfinite(input: TensorBase) -> TensorBase:
    """Elementwise: is the value finite (bool)."""
    return wrap(np.isfinite(input._data))


def _bitwise(name: str, ufunc: np.ufunc, input: Any, other: Any) -> TensorBase:
    """``~ & | ^``: logical on bool tensors, bitwise on integers (no gradient). Either operand
    of a binary one may be a Python number (``tl.bitwise_and(3, t)``, as PyTorch allows)."""
    x = input._data if isinstance(input, TensorBase) else np.asarray(input)
    if is_float_dtype(x.dtype):
        raise _not_for_float(name, x.dtype)
    if other is None:
        return wrap(ufunc(x))
    y = other._data if isinstance(other, TensorBase) else np.asarray(other)
    if is_float_dtype(y.dtype):
        raise _not_for_float(name, y.dtype)
    # PyTorch's promotion: a Python int keeps the tensor's dtype (int32 & 0x1337 is int32),
    # wrapped into it (uint8 & -2 is uint8 & 254)
    target = dtypes.result_type(*(v._data if isinstance(v, TensorBase) else v
                                  for v in (input, other)))
    x, y = (_as_int_operand(v, arr, target) for v, arr in ((input, x), (other, y)))
    return wrap(np.asarray(ufunc(x, y)))


def _as_int_operand(value: Any, array: np.ndarray, target: np.dtype) -> np.ndarray:
    """An operand of a bitwise op as an array of ``target``: a Python int wrapped into it."""
    if type(value) is int and target.kind in "iu":
        return np.asarray(dtypes.wrap_int(value, target), target)
    return array.astype(target, copy=False)


def _not_for_float(name: str, dtype: Any) -> NotImplementedError:
    """PyTorch's error for a bitwise op on floats: NotImplementedError, a RuntimeError."""
    return NotImplementedError(f"{name}: only integer and bool tensors are supported, got "
                               f"{dtype} (\"{name}_cpu\" not implemented for floating point)")


@public(out=True, inplace=True)
def bitwise_not(input: TensorBase) -> TensorBase:
    """``~input``: logical not for bool tensors, bitwise not for integers."""
    return _bitwise("bitwise_not", np.invert, input, None)


@public(out=True, inplace=True)
def bitwise_and(input: TensorBase, other: Any) -> TensorBase:
    """``input & other`` (bool or integer tensors)."""
    return _bitwise("bitwise_and", np.bitwise_and, input, other)


@public(out=True, inplace=True)
def bitwise_or(input: TensorBase, other: Any) -> TensorBase:
    """``input | other`` (bool or integer tensors)."""
    return _bitwise("bitwise_or", np.bitwise_or, input, other)


@public(out=True, inplace=True)
def bitwise_xor(input: TensorBase, other: Any) -> TensorBase:
    """``input ^ other`` (bool or integer tensors)."""
    return _bitwise("bitwise_xor", np.bitwise_xor, input, other)


# PyTorch's NumPy-style spellings of the comparisons
arctan2 = atan2
declare("arctan2", inplace=True)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne
declare("greater", "greater_equal", "less", "less_equal", "not_equal", inplace=True)


@public(inplace=True, torch_inplace=True)
def clamp_min(input: TensorBase, min: Any) -> TensorBase:  # noqa: A002 - PyTorch's name
    """``clamp(input, min=min)`` (its node is ``ClampMinBackward0``, as PyTorch's)."""
    if isinstance(min, TensorBase) or min is None:
        return clamp(input, min=min)
    return unary.clamp(input, min, None, unary.ClampMinBackward0)


@public(inplace=True, torch_inplace=True)
def clamp_max(input: TensorBase, max: Any) -> TensorBase:  # noqa: A002 - PyTorch's name
    """``clamp(input, max=max)`` (its node is ``ClampMaxBackward0``, as PyTorch's)."""
    if isinstance(max, TensorBase) or max is None:
        return clamp(input, max=max)
    return unary.clamp(input, None, max, unary.ClampMaxBackward0)


def _nan_ignoring(input: TensorBase, other: Any, bigger: bool) -> TensorBase:
    # PyTorch's gradient rule: ties go to ``input``, and a NaN operand hands it to the other
    b = _tensor(other)
    wins = ops.compare(np.greater_equal if bigger else np.less_equal, input, b, "fmax")
    wins = wrap(np.asarray(wins._data | np.isnan(b._data)))
    return ops.where(wins, input, b)


def fmax(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise maximum that ignores NaN (NaN only where both are NaN)."""
    return _nan_ignoring(input, other, True)


def fmin(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise minimum that ignores NaN (NaN only where both are NaN)."""
    return _nan_ignoring(input, other, False)


@public(inplace=True)
def addcmul(input: TensorBase, tensor1: Any, tensor2: Any, *, value: Any = 1) -> TensorBase:
    """``input + value * tensor1 * tensor2``."""
    prod = tensor1 * tensor2
    return input + (prod if value == 1 else value * prod)


@public(inplace=True)
def addcdiv(input: TensorBase, tensor1: Any, tensor2: Any, *, value: Any = 1) -> TensorBase:
    """``input + value * tensor1 / tensor2`` (floating point only, as in PyTorch)."""
    for t in (tensor1, tensor2):
        if isinstance(t, TensorBase) and t._data.dtype.kind in "iub":
            raise RuntimeError("addcdiv: integer division with addcdiv is no longer supported; "
                               "use (input + value * tensor1 / tensor2) or floor_divide")
    quot = tensor1 / tensor2
    return input + (quot if value == 1 else value * quot)


def _integer_ufunc(ufunc: np.ufunc, name: str, input: TensorBase, other: Any) -> TensorBase:
    a, b = _tensor(input), _tensor(other)
    target = dtypes.result_type(a._data, other if not isinstance(other, TensorBase) else b._data)
    if target.kind not in "iu":  # (a bool operand counts as an integer beside an integer one)
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                  f"'{torch_dtype_name(target)}' ({name} takes integer "
                                  f"tensors; got {a._data.dtype} and {b._data.dtype})")
    return wrap(np.asarray(ufunc(a._data.astype(target, copy=False),
                                 b._data.astype(target, copy=False))))


@public(inplace=True, torch_inplace=True)
def gcd(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise greatest common divisor of integer tensors (non-negative)."""
    return _integer_ufunc(np.gcd, "gcd", input, other)


@public(inplace=True, torch_inplace=True)
def lcm(input: TensorBase, other: Any) -> TensorBase:
    """Elementwise least common multiple of integer tensors (non-negative)."""
    return _integer_ufunc(np.lcm, "lcm", input, other)


@public(inplace=True)
def nextafter(input: TensorBase, other: Any) -> TensorBase:
    """The next floating-point value after ``input`` towards ``other`` (no gradient)."""
    target = dtypes.float_result_type(
        input._data, other._data if isinstance(other, TensorBase) else other)
    b = _tensor(other)._data.astype(target, copy=False)
    return wrap(np.asarray(np.nextafter(input._data.astype(target, copy=False), b)))


@public(out=True)
def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> TensorBase:
    """Whether each element of ``elements`` is in ``test_elements`` (bool, ``elements``' shape)."""
    a, b = _tensor(elements)._data, _tensor(test_elements)._data
    if a.dtype == np.bool_ or b.dtype == np.bool_:  # (PyTorch's isin sorts; bool can't)
        raise RuntimeError("Unsupported input type encountered for isin(): Bool")
    return wrap(np.asarray(np.isin(a, b, assume_unique=assume_unique, invert=invert)))


def _shift(input: Any, other: Any, left: bool) -> TensorBase:
    """``input << other`` / ``>>`` on integer (or bool) operands with PyTorch's promotion: a
    Python int keeps the tensor's dtype (bool becomes int64); two tensors promote."""
    name = "lshift" if left else "rshift"
    a = input._data if isinstance(input, TensorBase) else np.asarray(input)
    b = other._data if isinstance(other, TensorBase) else np.asarray(other)
    for arr in (a, b):
        if arr.dtype.kind not in "biu":
            raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                                      f"'{torch_dtype_name(arr.dtype)}' "
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
