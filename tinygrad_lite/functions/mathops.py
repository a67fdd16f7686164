"""More elementwise math: inverse trigonometric and hyperbolic functions, the special functions
(erf, lgamma, digamma, ...), and composites PyTorch programs use (logaddexp, xlogy, fmod,
remainder, isclose, diff, gradient, ...), i0/igamma/igammac, angle, conj_physical, hardshrink
and prelu. Primitives come from ``ops/special.py`` and ``ops/incomplete_gamma.py``; the rest are
built from existing ops and get their gradients (including second order) from them."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of, is_float_dtype
from ..ops import binary_math
from ..ops.elementwise import bfloat16_in_float32
from ..ops.incomplete_gamma import igamma as _igamma
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.linalg.lu import not_differentiable
from ..ops.modified_bessel import i0 as _i0
from ..ops.special import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    cosh,
    digamma,
    erf,
    erfc,
    erfinv,
    lgamma,
    polygamma,
    sinh,
)
from ..ops.special import logit as _logit
from ..ops.special import sinc as _sinc_op
from .basic import sum as _sum
from .basic import where
from .creation import _np_dtype
from .pointwise import abs, floor, isnan, trunc
from .registry import declare, public
from .shape import cat

__all__ = ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos",
           "arctan", "arcsinh", "arccosh", "arctanh", "erf", "erfc", "erfinv", "lgamma", "digamma",
           "polygamma", "xlogy", "logaddexp", "logaddexp2", "logit", "sinc", "heaviside",
           "copysign", "signbit", "sgn", "frac", "fmod", "remainder", "floor_divide",
           "true_divide", "float_power", "nan_to_num", "isclose", "allclose", "equal", "isneginf",
           "isposinf", "isreal", "deg2rad", "rad2deg", "diff", "count_nonzero", "bincount",
           "trapezoid", "trapz", "cumulative_trapezoid", "fix", "negative", "positive", "mvlgamma",
           "ldexp", "is_conj", "is_neg", "conj", "resolve_conj", "resolve_neg", "is_nonzero",
           "is_same_size", "i0", "igamma", "igammac", "angle", "conj_physical", "hardshrink",
           "prelu", "gradient"]

declare("acos", "atanh", "asin", "cosh", "asinh", "atan", "sinh", "erfc", "acosh", "erf",
        out=True, inplace=True, torch_inplace=True)

declare("digamma", "erfinv", "lgamma", out=True, inplace=True)

declare("polygamma", out=True, method=False)  # (Tensor.polygamma(n) is in tensor.py)

arcsin, arccos, arctan = asin, acos, atan
declare("arcsin", "arccos", "arctan", out=True, inplace=True, torch_inplace=True)
arcsinh, arccosh, arctanh = asinh, acosh, atanh
declare("arctanh", "arcsinh", "arccosh", out=True, inplace=True, torch_inplace=True)


def _int_operands(x: Any, y: Any, kernel: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Both as arrays of PyTorch's promoted dtype when both are integer (tensors or Python
    ints: ``int32 // 2`` stays int32); None otherwise. A bool result dtype is refused, as
    PyTorch's ``kernel`` ("div_floor_cpu"...) refuses it, and a zero divisor raises PyTorch's
    RuntimeError (integers have no inf)."""
    xa = x._data if isinstance(x, TensorBase) else np.asarray(x)
    ya = y._data if isinstance(y, TensorBase) else np.asarray(y)
    if xa.dtype.kind not in "iub" or ya.dtype.kind not in "iub":
        return None
    target = dtypes.result_type(xa if isinstance(x, TensorBase) else x,
                                ya if isinstance(y, TensorBase) else y)
    if target.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
    if (ya == 0).any():
        raise RuntimeError("ZeroDivisionError")
    return xa.astype(target, copy=False), ya.astype(target, copy=False)


def _t(x: Any, like: TensorBase | None = None) -> TensorBase:
    if isinstance(x, TensorBase):
        return x
    dtype = like._data.dtype if like is not None and is_float_dtype(like._data.dtype) else None
    return wrap(np.asarray(x, dtype=dtype) if dtype is not None else np.asarray(x))


@public(out=True, inplace=True, torch_inplace=True)
def xlogy(input: Any, other: Any) -> TensorBase:
    """``input * log(other)``, defined as 0 where ``input`` is 0 (even if ``other`` is 0) unless
    ``other`` is NaN, which gives NaN; PyTorch's gradients (``log(other)`` in ``input``, also
    where ``input`` is 0, unless ``other <= 0``)."""
    # a Python number is a wrapped number: xlogy(float32, 2.0) stays float32, xlogy(int, 2.5)
    # is float32
    x, y = _promoted(input, other, floating=True)
    return binary_math.xlogy(x, y)


@public(out=True)
def logaddexp(input: TensorBase, other: Any) -> TensorBase:
    """``log(exp(a) + exp(b))`` without overflow."""
    a, b = _promoted(input, other, floating=True)
    return binary_math.logaddexp(a, b)


@public(out=True)
def logaddexp2(input: TensorBase, other: Any) -> TensorBase:
    """``log2(2**a + 2**b)`` without overflow."""
    a, b = _promoted(input, other, floating=True)
    return binary_math.logaddexp2(a, b)


@public(out=True, inplace=True, torch_inplace=True)
def logit(input: TensorBase, eps: float | None = None) -> TensorBase:
    """``log(p / (1 - p))``; with ``eps``, p clamped to ``[eps, 1 - eps]`` first."""
    p = input if eps is None else input.clamp(eps, 1.0 - eps)
    return _logit(p)


@public(out=True, inplace=True, torch_inplace=True)
@bfloat16_in_float32  # pi * x rounded to bfloat16 is far from the integers sinc vanishes at
def sinc(input: TensorBase) -> TensorBase:
    """``sin(pi x) / (pi x)``, 1 at 0 (one node with PyTorch's rule, ops/special.py)."""
    return _sinc_op(input)


@public(out=True, inplace=True)
def heaviside(input: TensorBase, values: Any) -> TensorBase:
    """0 below zero, 1 above, ``values`` at zero (no derivative, as in PyTorch)."""
    if not isinstance(values, TensorBase):
        raise TypeError(f"heaviside(): argument 'values' must be Tensor, not "
                        f"{type(values).__name__}")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(f"heaviside is not yet implemented for tensors with different dtypes "
                           f"(input {dtypes.from_numpy_dtype(input._data.dtype)}, values "
                           f"{dtypes.from_numpy_dtype(values._data.dtype)})")
    # PyTorch's ``x == 0 ? values : x > 0``: a NaN input gives 0, not ``values``
    out = np.where(input._data == 0, values._data, input._data > 0)
    # PyTorch has no derivative for it: the result requires grad, backward through it raises
    return not_differentiable("heaviside", "NotImplemented", [input, values],
                              [out.astype(input._data.dtype)])[0]


@public(out=True, inplace=True)
def copysign(input: Any, other: Any) -> TensorBase:
    """The magnitude of ``input`` with the sign of ``other`` (including -0.0)."""
    x, y = _promoted(input, other, floating=True)
    return binary_math.copysign(x, y)  # one node with PyTorch's rules (ops/binary_math.py)


@public(out=True)
def signbit(input: TensorBase) -> TensorBase:
    """Whether the sign bit is set (True for -0.0 too)."""
    return wrap(np.signbit(input._data))


@public(out=True, inplace=True)
def sgn(input: TensorBase) -> TensorBase:
    """The sign of each element (``sign`` for real tensors)."""
    return input.sign()


@public(out=True, inplace=True, torch_inplace=True)
def frac(input: TensorBase) -> TensorBase:
    """The fractional part, ``x - trunc(x)`` (gradient 1; floating point only, as PyTorch's)."""
    if not is_float_dtype(input._data.dtype):
        raise NotImplementedError(f"\"frac_cpu\" not implemented for "
                                  f"'{torch_dtype_name(input._data.dtype)}'")
    return input - trunc(input).detach()


@public(out=True, inplace=True, torch_inplace=True)
def fix(input: TensorBase) -> TensorBase:
    """``trunc`` (PyTorch's alias)."""
    return trunc(input)


@public(out=True, inplace=True, torch_inplace=True)
def negative(input: TensorBase) -> TensorBase:
    """``-input``."""
    return -input


def positive(input: TensorBase) -> TensorBase:
    """``input`` itself (not for bool tensors, as in PyTorch)."""
    if input._data.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _promoted(x: Any, y: Any, floating: bool = False) -> tuple[TensorBase, TensorBase]:
    """Both operands as tensors of PyTorch's promoted dtype (``floating``: an integer or bool
    one becomes the default float dtype): a Python number counts as a wrapped number
    (``int32 tensor % 3.5`` is float32, not float64)."""
    operands = [v._data if isinstance(v, TensorBase) else v for v in (x, y)]
    target = dtypes.float_result_type(*operands) if floating else dtypes.result_type(*operands)

    def convert(v: Any) -> TensorBase:
        if not isinstance(v, TensorBase):
            return wrap(np.asarray(v, dtype=target))
        return v if v._data.dtype == target else ops.cast(v, target)
    return convert(x), convert(y)


@public(out=True, inplace=True)
def fmod(input: TensorBase, other: Any) -> TensorBase:
    """C-style remainder: the sign of the dividend (``x - trunc(x / y) * y``, computed
    exactly)."""
    ints = _int_operands(input, other, "fmod_cpu")
    if ints is not None:
        return wrap(np.fmod(*ints))
    x, y = _promoted(input, other)
    return binary_math.fmod(x, y, not isinstance(other, TensorBase))


@public(out=True, inplace=True)
def remainder(input: Any, other: Any) -> TensorBase:
    """Python-style remainder: the sign of the divisor (``x - floor(x / y) * y``, computed
    exactly)."""
    ints = _int_operands(input, other, "remainder_cpu")
    if ints is not None:
        return wrap(np.remainder(*ints))
    x, y = _promoted(input, other)
    return binary_math.remainder(x, y, not isinstance(other, TensorBase))


@public(out=True, inplace=True)
def floor_divide(input: Any, other: Any) -> TensorBase:
    """``floor(input / other)`` (integer dtypes stay integer; no gradient)."""
    ints = _int_operands(input, other, "div_floor_cpu")
    if ints is not None:
        return wrap(np.floor_divide(*ints))
    x, y = _promoted(input, other)
    # PyTorch's (and Python's) floor division rounds the exact quotient, which floor(x / y)
    # misses where x / y rounds up to an integer (1 // 0.1 is 9, not 10), and keeps the
    # remainder's sign rule at infinities (1 // -inf is -1, inf // 1 is NaN)
    with np.errstate(divide="ignore", invalid="ignore"):
        exact = np.asarray(np.floor_divide(x._data, y._data))
    if not (x.requires_grad or y.requires_grad):
        return wrap(exact)
    quotient = floor(x / y)  # (a zero gradient, recorded), with the exact values where they differ
    differs = ~((exact == quotient._data) | (np.isnan(exact) & np.isnan(quotient._data)))
    return where(wrap(differs), wrap(exact), quotient) if differs.any() else quotient


@public(out=True, inplace=True)
def true_divide(dividend: Any, divisor: Any) -> TensorBase:
    """``dividend / divisor`` in floating point (either may be a Python number, which keeps
    its weak type: ``true_divide(2.5, int_tensor)`` is float32)."""
    return ops.div(dividend, divisor)


@public(out=True)
def float_power(input: Any, exponent: Any) -> TensorBase:
    """``input ** exponent`` in float64 (as PyTorch does)."""
    x = ops.cast(_t(input), np.dtype(np.float64))
    e = exponent if not isinstance(exponent, TensorBase) else ops.cast(
        exponent, np.dtype(np.float64))
    return x ** e


@public(out=True, inplace=True, torch_inplace=True)
def nan_to_num(input: TensorBase, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None) -> TensorBase:
    """NaN, +inf and -inf replaced (by 0 and the dtype's largest/smallest finite values unless
    given); the gradient flows where values are kept."""
    if not is_float_dtype(input._data.dtype):  # nothing to replace: a copy, as PyTorch's (not
        return wrap(input._data.copy())  # the input itself, which writes would reach)
    info = finfo_of(input._data.dtype)
    big = info.max if posinf is None else posinf
    small = info.min if neginf is None else neginf
    a = input._data
    out = ops.where(wrap(np.isnan(a)), float(nan), input)
    out = ops.where(wrap(np.isposinf(a)), float(big), out)
    return ops.where(wrap(np.isneginf(a)), float(small), out)


def _closeness_operands(input: TensorBase, other: Any, rtol: float, atol: float
                        ) -> tuple[np.ndarray, np.ndarray]:
    """The arrays ``isclose`` compares, checked as PyTorch checks them: tolerances not
    negative, one dtype (no promotion), shapes that broadcast."""
    for name, tol in (("rtol", rtol), ("atol", atol)):
        if tol < 0:
            raise RuntimeError(f"{name} must be greater than or equal to zero, but got {tol:g}")
    b = _t(other)
    a_dt, b_dt = input._data.dtype, b._data.dtype
    if isinstance(other, TensorBase) and a_dt != b_dt:
        raise RuntimeError(f"{torch_dtype_name(a_dt)} did not match {torch_dtype_name(b_dt)}")
    try:
        np.broadcast_shapes(input._data.shape, b._data.shape)
    except ValueError:
        raise ops.common.broadcast_error("isclose", input, b) from None
    return input._data, b._data


def isclose(input: TensorBase, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
            equal_nan: bool = False) -> TensorBase:
    """``|input - other| <= atol + rtol * |other|`` elementwise (bool)."""
    a, b = _closeness_operands(input, other, rtol, atol)
    return wrap(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(input: TensorBase, other: Any, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether every element is ``isclose``."""
    a, b = _closeness_operands(input, other, rtol, atol)
    return bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: TensorBase, other: TensorBase) -> bool:
    """Whether both have the same shape and elements."""
    return input._data.shape == other._data.shape and bool(
        np.array_equal(input._data, other._data))


@public(out=True)
def isneginf(input: TensorBase) -> TensorBase:
    """Whether each element is -inf."""
    return wrap(np.isneginf(input._data))


@public(out=True)
def isposinf(input: TensorBase) -> TensorBase:
    """Whether each element is +inf."""
    return wrap(np.isposinf(input._data))


def isreal(input: TensorBase) -> TensorBase:
    """All True: real tensors (no complex dtypes here)."""
    return wrap(np.ones(input._data.shape, np.bool_))


@public(out=True, inplace=True, torch_inplace=True)
def deg2rad(input: TensorBase) -> TensorBase:
    """Degrees to radians."""
    return input * (math.pi / 180.0)


@public(out=True, inplace=True, torch_inplace=True)
def rad2deg(input: TensorBase) -> TensorBase:
    """Radians to degrees."""
    return input * (180.0 / math.pi)


@public(out=True)
def diff(input: TensorBase, n: int = 1, dim: int = -1, prepend: Any = None,
         append: Any = None) -> TensorBase:
    """The ``n``-th forward difference along ``dim`` (after concatenating ``prepend`` and
    ``append``)."""
    if input._data.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    from_ = [t for t in (prepend, input, append) if t is not None]
    x = from_[0] if len(from_) == 1 else ops.cat([_t(t, input) for t in from_], dim)
    d = dim % max(x._data.ndim, 1)
    for _ in range(n):
        length = x._data.shape[d]
        upper = tuple(slice(1, None) if i == d else slice(None) for i in range(x._data.ndim))
        lower = tuple(slice(None, length - 1) if i == d else slice(None)
                      for i in range(x._data.ndim))
        x = x[upper] - x[lower] if x._data.dtype != np.bool_ else wrap(x._data[upper]
                                                                         != x._data[lower])
    return x


def count_nonzero(input: TensorBase, dim: Any = None) -> TensorBase:
    """How many elements are nonzero (over ``dim``, or all), as int64."""
    a = input._data
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):  # () counts all, too
        return wrap(np.asarray(np.count_nonzero(a), np.int64))
    axis = ops.normalize_dims(dim, max(a.ndim, 1), "count_nonzero")  # (checked: repeats)
    if a.ndim == 0:
        return wrap(np.asarray(np.count_nonzero(a), np.int64))
    return wrap(np.asarray(np.count_nonzero(a, axis=axis), np.int64))


def bincount(input: TensorBase, weights: TensorBase | None = None,
             minlength: int = 0) -> TensorBase:
    """How often each value 0, 1, ... occurs in a 1-D non-negative integer tensor (or the sum
    of ``weights`` per value): int64 counts; weighted sums are float32 for float32 weights and
    float64 for any other, as PyTorch's (an empty input gives int64 zeros either way)."""
    a = input._data
    if a.dtype.kind not in "iu":
        name = {"b": "Bool", "f": {2: "Half", 4: "Float"}.get(a.dtype.itemsize, "Double")
                }.get(a.dtype.kind, str(a.dtype))
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{name}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if a.ndim == 1 and a.size == 0:  # (before the weights are looked at, as PyTorch)
        return wrap(np.zeros(minlength, np.int64))
    if a.ndim != 1 or (a < 0).any():
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights._data.ndim != 1 or weights._data.shape != a.shape):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        return wrap(np.bincount(a, minlength=minlength).astype(np.int64))
    dt = np.float32 if weights._data.dtype == np.float32 else np.float64
    return wrap(np.bincount(a, weights=weights._data.astype(dt), minlength=minlength).astype(dt))


def _require_sample_points(op: str, x: Any) -> None:
    """PyTorch's error for a positional number as ``x`` (a spacing must be given as ``dx=``)."""
    if x is not None and not isinstance(x, TensorBase):
        raise TypeError(f"{op}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(x).__name__}): x must be a Tensor; pass a spacing as dx=")


@bfloat16_in_float32
def trapezoid(y: TensorBase, x: TensorBase | None = None, *, dx: float | None = None,
              dim: int = -1) -> TensorBase:
    """The trapezoidal rule along ``dim``, with sample points ``x`` or spacing ``dx``."""
    _require_sample_points("trapezoid", x)
    n = y._data.shape[dim]
    d = dim % y._data.ndim
    if n == 0:  # PyTorch returns fresh zeros here, outside the graph
        return wrap(np.zeros(y._data.shape[:d] + y._data.shape[d + 1:], y._data.dtype))
    first = tuple(slice(1, None) if i == d else slice(None) for i in range(y._data.ndim))
    last = tuple(slice(None, n - 1) if i == d else slice(None) for i in range(y._data.ndim))
    mid = (y[first] + y[last]) * 0.5
    if x is None:
        return _sum(mid, d) * (1.0 if dx is None else dx)
    return _sum(mid * diff(x, dim=-1 if x._data.ndim == 1 else d), d)


trapz = trapezoid


@bfloat16_in_float32
def cumulative_trapezoid(y: TensorBase, x: TensorBase | None = None, *,
                         dx: float | None = None, dim: int = -1) -> TensorBase:
    """The running trapezoidal integral along ``dim``."""
    _require_sample_points("cumulative_trapezoid", x)
    n = y._data.shape[dim]
    d = dim % y._data.ndim
    first = tuple(slice(1, None) if i == d else slice(None) for i in range(y._data.ndim))
    last = tuple(slice(None, n - 1) if i == d else slice(None) for i in range(y._data.ndim))
    mid = (y[first] + y[last]) * 0.5
    step = mid * (1.0 if dx is None else dx) if x is None else mid * diff(x, dim=d)
    return step.cumsum(d)


@public(inplace=True)
def mvlgamma(input: TensorBase, p: int) -> TensorBase:
    """Log of the multivariate gamma function of dimension ``p``: ``p(p-1)/4 log(pi) +
    sum_i lgamma(x - i/2)``. Elements up to ``(p-1)/2``, outside its domain, give that sum as
    it comes (inf where a term hits a pole), as PyTorch's since 2.13 (no error)."""
    if p < 1:
        raise RuntimeError(f"mvlgamma: p has to be greater than or equal to 1, got {p}")
    if not is_float_dtype(input._data.dtype):
        input = input.float()
    total = lgamma(input)
    for i in range(1, p):
        total = total + lgamma(input - i / 2)
    return total + p * (p - 1) / 4 * math.log(math.pi)


@public(inplace=True, torch_inplace=True)
def ldexp(input: TensorBase, other: Any) -> TensorBase:
    """``input * 2 ** other`` in the promoted float dtype of ``input`` and ``other`` (float16
    ldexp int64 is float16). A float exponent composes as PyTorch's: ``2 ** other`` in
    ``other``'s own dtype (a float16 exponent rounds the power to float16), times ``input``;
    an integer one scales exactly, as PyTorch's ``std::ldexp``."""
    target = dtypes.float_result_type(
        *(v._data if isinstance(v, TensorBase) else v for v in (input, other)))
    if not isinstance(other, TensorBase):
        power: Any = 2.0 ** other
    elif is_float_dtype(other._data.dtype):
        power = ops.pow(2.0, other)
    else:  # an integer exponent (no gradient): PyTorch's exact ldexp, as two powers of two
        # in the result dtype, each exact where the result is representable (one product
        # rounds; 2 ** -200 alone is 0 in float32, where ldexp(1e38, -200) is 6.2e-23, and
        # 2 ** -1075 is 0 in float64, where ldexp(inf, -1075) is inf)
        e = np.clip(other._data.astype(np.int64), -4096, 4096)
        with np.errstate(over="ignore", under="ignore"):
            halves = [np.ldexp(1.0, h).astype(target) for h in (e // 2, e - e // 2)]
        out = ops.cast(ops.mul(ops.mul(input, wrap(halves[0])), wrap(halves[1])), target)
        x = _t(input)._data
        fixed = np.isinf(x) | (x == 0)
        if fixed.any():  # (inf * 0 or 0 * inf where a half under- or overflows: 0 and inf
            out = where(wrap(fixed), wrap(x.astype(target)), out)  # stay themselves)
        return out
    return ops.cast(ops.mul(input, power), target)


# Real tensors only (complex dtypes are out of scope): conjugation is the identity, and a real
# tensor never carries the lazy conjugate or negative bit.
def is_conj(input: TensorBase) -> bool:
    """False: a real tensor has no lazy conjugation."""
    return False


def is_neg(input: TensorBase) -> bool:
    """False: a real tensor has no lazy negation."""
    return False


def conj(input: TensorBase) -> TensorBase:
    """The complex conjugate: the tensor itself, as for every real tensor in PyTorch."""
    return input


def resolve_conj(input: TensorBase) -> TensorBase:
    """The tensor itself (no lazy conjugation to materialise)."""
    return input


def resolve_neg(input: TensorBase) -> TensorBase:
    """The tensor itself (no lazy negation to materialise)."""
    return input


def is_nonzero(input: TensorBase) -> bool:
    """Whether a one-element tensor is nonzero (an error for any other size)."""
    if input._data.size == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if input._data.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input._data.reshape(()) != 0)


def is_same_size(input: TensorBase, other: TensorBase) -> bool:
    """Whether both tensors have the same shape."""
    return input._data.shape == other._data.shape


@public(out=True, inplace=True, torch_inplace=True)
def i0(input: TensorBase) -> TensorBase:
    """The modified Bessel function of the first kind, order 0 (one node with PyTorch's rule,
    ``ops/modified_bessel.py``; integers give the default float dtype)."""
    return _i0(input)


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


def _along(x: TensorBase, dim: int, start: int | None, stop: int | None) -> TensorBase:
    """``x`` sliced to ``start:stop`` along ``dim``."""
    return ops.getitem(x, (slice(None),) * dim + (slice(start, stop),))


def _coefficient(values: Any, dim: int, ndim: int, dt: np.dtype) -> TensorBase:
    """Per-position coefficients along ``dim`` as a tensor broadcasting against the input."""
    return wrap(np.asarray(values, dt).reshape([-1 if k == dim else 1
                                                for k in builtins.range(ndim)]))


def _derivative(f: TensorBase, dim: int, coords: np.ndarray, edge_order: int) -> TensorBase:
    """d f / d coordinate along ``dim``: second-order central differences inside (NumPy's
    non-uniform formula), one- or two-sided differences of ``edge_order`` at both ends."""
    dt, nd = f._data.dtype, f.ndim
    dx = np.diff(coords)
    hd, hs = dx[:-1], dx[1:]
    a = -hs / (hd * (hd + hs))
    b = (hs - hd) / (hd * hs)
    c = hd / (hs * (hd + hs))
    inner = (_along(f, dim, None, -2) * _coefficient(a, dim, nd, dt)
             + _along(f, dim, 1, -1) * _coefficient(b, dim, nd, dt)
             + _along(f, dim, 2, None) * _coefficient(c, dim, nd, dt))

    def at(i: int) -> TensorBase:
        return _along(f, dim, i, i + 1 if i != -1 else None)

    if edge_order == 1:
        first = (at(1) - at(0)) / float(dx[0])
        last = (at(-1) - at(-2)) / float(dx[-1])
    else:
        d1, d2 = float(dx[0]), float(dx[1])
        first = (at(0) * (-(2 * d1 + d2) / (d1 * (d1 + d2))) + at(1) * ((d1 + d2) / (d1 * d2))
                 + at(2) * (-d1 / (d2 * (d1 + d2))))
        d1, d2 = float(dx[-2]), float(dx[-1])
        last = (at(-3) * (d2 / (d1 * (d1 + d2))) + at(-2) * (-(d2 + d1) / (d1 * d2))
                + at(-1) * ((2 * d2 + d1) / (d2 * (d1 + d2))))
    return cat([first, inner, last], dim)


@public(method=False)
def gradient(input: TensorBase, *, spacing: Any = 1, dim: Any = None,
             edge_order: int = 1) -> tuple:
    """The derivative of ``input`` along each of ``dim`` (all dims by default) by finite
    differences, one tensor per dim; ``spacing`` is a scalar step, one step per dim, or one
    tensor of coordinates per dim. Differentiable in ``input``; integers give the default
    float dtype."""
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2 "
                           f"(got {edge_order})")
    nd = input.ndim
    dims = list(builtins.range(nd)) if dim is None else [dim] if isinstance(dim, int) \
        else list(dim)
    dims = [ops.normalize_dims(d, nd, "gradient")[0] for d in dims]
    if spacing is None:
        spacing = 1
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a "
                           f"list of length {len(dims)} (one per dim), but got a list of length "
                           f"{len(steps)}")
    f = input if is_float_dtype(input._data.dtype) else ops.cast(input, _np_dtype(None))
    out = []
    for d, step in zip(dims, steps, strict=True):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
        if isinstance(step, TensorBase) and step.ndim:
            coords = step._data.astype(np.float64)
            if coords.shape != (n,):
                raise RuntimeError(f"torch.gradient expected each tensor in spacing to have "
                                   f"the size of its dim ({n}), got shape {coords.shape}")
        else:
            h = float(step.item() if isinstance(step, TensorBase) else step)
            coords = np.arange(n, dtype=np.float64) * h
        out.append(_derivative(f, d, coords, edge_order))
    return tuple(out)
