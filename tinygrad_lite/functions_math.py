"""The functional API, elementwise part: unary math, clamp, lerp, comparisons and logic."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import ops
from .ops import unary
from .tensor import Tensor

__all__ = [
    "abs", "absolute", "sign", "clamp", "clip", "rsqrt", "square", "exp2", "expm1", "log2",
    "log10", "log1p", "tan", "reciprocal", "floor", "ceil", "round", "trunc", "minimum", "lerp",
    "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_not",
    "logical_xor", "isnan", "isinf", "isfinite",
]


def _tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor._wrap(np.asarray(x))


def abs(input: Tensor) -> Tensor:  # noqa: A001 - PyTorch's name
    """Elementwise absolute value (gradient ``sign(x)``, 0 at 0)."""
    return unary.abs(input)


absolute = abs


def sign(input: Tensor) -> Tensor:
    """Elementwise -1, 0 or 1; zero gradient."""
    return unary.step("sign", input)


def floor(input: Tensor) -> Tensor:
    """Round down elementwise; zero gradient."""
    return unary.step("floor", input)


def ceil(input: Tensor) -> Tensor:
    """Round up elementwise; zero gradient."""
    return unary.step("ceil", input)


def trunc(input: Tensor) -> Tensor:
    """Round towards zero elementwise; zero gradient."""
    return unary.step("trunc", input)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Round half to even elementwise (to ``decimals`` places); zero gradient."""
    if decimals == 0:
        return unary.step("round", input)
    scale = 10.0 ** decimals
    return unary.step("round", input * scale) / scale


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:  # noqa: A002
    """``input`` limited to ``[min, max]``; bounds may be numbers or tensors (either may be None).
    The gradient passes where ``min <= x <= max``."""
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        return unary.clamp(input, min, max)
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    out = input
    if min is not None:  # tensor bounds: a composite, so the bounds get gradients too
        out = ops.where(_tensor(out < min), min, out)
    if max is not None:
        out = ops.where(_tensor(out > max), max, out)
    return out


clip = clamp


def _floating(input: Tensor, op: str) -> Tensor:
    return input if input.data.dtype.kind == "f" else input.float()


def rsqrt(input: Tensor) -> Tensor:
    """``1 / sqrt(x)`` elementwise."""
    return ops.pow(_floating(input, "rsqrt"), -0.5)


def square(input: Tensor) -> Tensor:
    """``x * x`` elementwise."""
    return ops.mul(input, input)


def exp2(input: Tensor) -> Tensor:
    """``2 ** x`` elementwise."""
    return ops.pow(2.0, _floating(input, "exp2"))


def expm1(input: Tensor) -> Tensor:
    """``exp(x) - 1``, accurate near 0."""
    return unary.expm1(input)


def log1p(input: Tensor) -> Tensor:
    """``log(1 + x)``, accurate near 0."""
    return unary.log1p(input)


def log2(input: Tensor) -> Tensor:
    """Base-2 logarithm elementwise."""
    return ops.log(input) * (1 / math.log(2))


def log10(input: Tensor) -> Tensor:
    """Base-10 logarithm elementwise."""
    return ops.log(input) * (1 / math.log(10))


def tan(input: Tensor) -> Tensor:
    """Elementwise tangent."""
    return unary.tan(input)


def reciprocal(input: Tensor) -> Tensor:
    """``1 / x`` elementwise."""
    return ops.div(1.0, _floating(input, "reciprocal"))


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum with broadcasting; ties share the gradient equally."""
    return ops.minimum(input, other)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)``: linear interpolation (floating point only)."""
    for name, t in (("input", input), ("end", end), ("weight", weight)):
        if isinstance(t, Tensor) and t.data.dtype.kind != "f":
            raise RuntimeError(f"lerp: expected floating point tensors, but {name} has dtype "
                               f"{t.dtype}")
    return input + weight * (end - input)


def eq(input: Tensor, other: Any) -> Tensor:
    """``input == other`` elementwise (bool)."""
    return ops.compare(np.equal, input, other, "eq")


def ne(input: Tensor, other: Any) -> Tensor:
    """``input != other`` elementwise (bool)."""
    return ops.compare(np.not_equal, input, other, "ne")


def lt(input: Tensor, other: Any) -> Tensor:
    """``input < other`` elementwise (bool)."""
    return ops.compare(np.less, input, other, "lt")


def le(input: Tensor, other: Any) -> Tensor:
    """``input <= other`` elementwise (bool)."""
    return ops.compare(np.less_equal, input, other, "le")


def gt(input: Tensor, other: Any) -> Tensor:
    """``input > other`` elementwise (bool)."""
    return ops.compare(np.greater, input, other, "gt")


def ge(input: Tensor, other: Any) -> Tensor:
    """``input >= other`` elementwise (bool)."""
    return ops.compare(np.greater_equal, input, other, "ge")


def _logical(ufunc: np.ufunc, name: str, a: Any, b: Any) -> Tensor:
    x, y = _tensor(a).data, _tensor(b).data
    try:
        return Tensor._wrap(np.asarray(ufunc(x, y)))
    except ValueError:
        raise ops.common.broadcast_error(name, _tensor(a), _tensor(b)) from None


def logical_and(input: Tensor, other: Any) -> Tensor:
    """Elementwise logical AND of the truth values (bool)."""
    return _logical(np.logical_and, "logical_and", input, other)


def logical_or(input: Tensor, other: Any) -> Tensor:
    """Elementwise logical OR of the truth values (bool)."""
    return _logical(np.logical_or, "logical_or", input, other)


def logical_xor(input: Tensor, other: Any) -> Tensor:
    """Elementwise logical XOR of the truth values (bool)."""
    return _logical(np.logical_xor, "logical_xor", input, other)


def logical_not(input: Tensor) -> Tensor:
    """Elementwise logical NOT of the truth values (bool)."""
    return Tensor._wrap(np.logical_not(input.data))


def isnan(input: Tensor) -> Tensor:
    """Elementwise: is the value NaN (bool)."""
    return Tensor._wrap(np.isnan(input.data))


def isinf(input: Tensor) -> Tensor:
    """Elementwise: is the value +/- infinity (bool)."""
    return Tensor._wrap(np.isinf(input.data))


def isfinite(input: Tensor) -> Tensor:
    """Elementwise: is the value finite (bool)."""
    return Tensor._wrap(np.isfinite(input.data))
