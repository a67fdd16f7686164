"""Binary elementwise primitives: arithmetic with broadcasting, maximum/minimum, where,
comparisons; casts and copies; the promotion rule and the backward-rule helpers built on them."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from .._core.array_conversion import to_array
from .._core.autocast_state import autocast_state
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.memory_format import in_format
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import (
    array_of,
    as_tensor,
    broadcast_error,
    constant,
    is_array,
    masked_bits,
    select,
    sum_to,
    unary_rule,
    wrap,
)

_FLOAT32 = np.dtype(np.float32)
# (min, max) of each integer dtype, for comparisons with a Python number
_INT_RANGES = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
               for t in (np.uint8, np.int8, np.int16, np.int32, np.int64, np.uint16, np.uint32,
                         np.uint64)}


# -- binary ops (NumPy broadcasting; each gradient is summed back to its input's shape) ---------
# add, sub, mul and div are Tensor's operators themselves (tensor.py binds them), hence
# positional-only parameters, as an operator method's are.


class AddBackward0(Node):
    shapes: tuple[tuple[int, ...], tuple[int, ...]]  # of a and b

    def backward(self, grad):
        (ea, eb), (sa, sb) = self.next_edges, self.shapes
        return (sum_to(grad, sa) if ea else None, sum_to(grad, sb) if eb else None)


def add(a, b, /) -> TensorBase:
    """``a + b`` with broadcasting."""
    a, b = promote(a, b)
    try:
        out = a._data + b._data
    except ValueError:
        raise broadcast_error("add", a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = AddBackward0(a, b)
    node.shapes = (a._data.shape, b._data.shape)
    return wrap(out, node)


class SubBackward0(Node):
    shapes: tuple[tuple[int, ...], tuple[int, ...]]  # of a and b

    def backward(self, grad):
        (ea, eb), (sa, sb) = self.next_edges, self.shapes
        return (sum_to(grad, sa) if ea else None, sum_to(-grad, sb) if eb else None)


def refuse_bool_sub(a: Any, b: Any) -> None:
    """PyTorch's error for a subtraction with any bool operand (tensor or Python bool)."""
    bools = [isinstance(v, (bool, np.bool_)) or isinstance(v, TensorBase)
             and v._data.dtype == np.bool_ for v in (a, b)]
    if any(bools):
        raise RuntimeError("Subtraction, the `-` operator, with " + (
            "two bool tensors is not supported. Use the `^` or `logical_xor()` operator instead."
            if all(bools) else "a bool tensor is not supported. If you are trying to invert a "
            "mask, use the `~` or `logical_not()` operator instead."))


def sub(a, b, /) -> TensorBase:
    """``a - b`` with broadcasting."""
    refuse_bool_sub(a, b)
    a, b = promote(a, b)
    try:
        out = a._data - b._data
    except ValueError:
        raise broadcast_error("sub", a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = SubBackward0(a, b)
    node.shapes = (a._data.shape, b._data.shape)
    return wrap(out, node)


class RsubBackward1(Node):
    """``number - b``: one edge, as PyTorch's node for a Python number minus a tensor."""

    def backward(self, grad):
        return (-grad,)


def rsub_number(b: TensorBase, number: int | float | complex) -> TensorBase:
    """``number - b`` for a Python number (``2 - t``): ``sub``'s result, recorded as
    ``RsubBackward1`` with the tensor's edge only."""
    if b._data.dtype == np.bool_:
        return sub(number, b)  # raises PyTorch's error for bool subtraction
    a, promoted = promote(number, b)
    if promoted is not b:  # the number changes the dtype (a cast node of its own): plain sub
        return sub(a, promoted)
    out = a._data - b._data
    if not (grad_state.enabled and b._requires_grad):
        return wrap(out)
    return wrap(out, RsubBackward1(b))


class MulBackward0(Node):
    def backward(self, grad):
        a, b = self.saved_tensors
        ea, eb = self.next_edges
        return (sum_to(grad * b, a.shape) if ea else None,
                sum_to(grad * a, b.shape) if eb else None)


def mul(a, b, /) -> TensorBase:
    """``a * b`` with broadcasting."""
    a, b = promote(a, b)
    try:
        out = a._data * b._data
    except ValueError:
        raise broadcast_error("mul", a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = MulBackward0(a, b)
    node.save_for_backward(a, b)
    return wrap(out, node)


class DivBackward0(Node):
    def backward(self, grad):
        a, b = self.saved_tensors
        ea, eb = self.next_edges
        # a zero divisor gives PyTorch's inf or NaN, silently (a norm's rule at 0 differentiated
        # again divides 0 by 0 on purpose)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            grad_a = grad / b
            return (sum_to(grad_a, a.shape) if ea else None,
                    sum_to(-(grad_a * a) / b, b.shape) if eb else None)


def div(a, b, /) -> TensorBase:
    """True division ``a / b``; integer operands give the default float dtype, as in PyTorch."""
    # an integer tensor divided by (or dividing) a Python number is cast first: the number then
    # keeps its value (uint8 / -3 divides by -3.0, not by -3 wrapped into uint8)
    if isinstance(a, TensorBase) != isinstance(b, TensorBase):
        tensor = a if isinstance(a, TensorBase) else b
        if not is_float_dtype(tensor._data.dtype):
            floating = cast(tensor, dtypes.get_default_dtype().np)
            a, b = (floating, b) if tensor is a else (a, floating)
    a0, b0 = a, b
    a, b = promote(a, b)
    if not is_float_dtype(a._data.dtype):
        # two integer tensors: each converts to the float straight from its own dtype, as
        # PyTorch's does (uint8 / int8(-3) divides by -3.0, not by -3 wrapped into uint8)
        a, b = float_operands(a0, b0)
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = a._data / b._data
    except ValueError:
        raise broadcast_error("div", a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = DivBackward0(a, b)
    node.save_for_backward(a, b)
    return wrap(out, node)


def _pow_base_grad(grad, a, b):
    """d(a ** b)/da times ``grad``, as PyTorch defines it: 0 where the exponent is 0 (even at
    a == 0, where ``b * a ** (b - 1)`` is 0 * inf), with no NumPy warning at a zero or negative
    base (inf or NaN, as PyTorch gives them)."""
    b_arr = array_of(b)
    if b_arr.ndim == 0:  # the usual case: a scalar exponent
        e = b_arr.item()
        if e == 0:
            return constant(np.zeros(grad.shape, array_of(grad).dtype), grad)
        constant_exponent = not getattr(b, "_requires_grad", False)  # else b's graph stays
        if e == 2 and constant_exponent:  # the common square: no pow in the rule
            return grad * (a * 2.0)
        if e in _FAST_POW and constant_exponent:
            # a Python exponent takes the fast kernels (NumPy's or ours) for a ** (e - 1):
            # np.power itself is ~10x slower for exponents such as -0.5 (sqrt's gradient)
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                power = _FAST_POW_GRAD.get(e - 1.0) if is_array(a) else None
                return grad * ((a ** (e - 1.0) if power is None else power(a)) * e)
        if e >= 1 and float(e).is_integer():  # a ** (b - 1) cannot divide by 0 or be invalid
            return grad * b * a ** (b - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return grad * b * a ** (b - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return where_rule(b_arr == 0, 0.0, grad * b * a ** (b - 1))


class PowBackward0(Node):
    def backward(self, grad):
        a, b = self.saved_tensors
        ea, eb = self.next_edges
        grad_a = grad_b = None
        if ea:
            grad_a = sum_to(_pow_base_grad(grad, a, b), a.shape)
        if eb:
            # d(a^b)/db = a^b log(a); PyTorch defines it as 0 where a == 0 and b >= 0 (the
            # limit), and keeps the IEEE value (-inf for b < 0) otherwise
            with np.errstate(divide="ignore", invalid="ignore"):
                zero_limit = (array_of(a) == 0) & (array_of(b) >= 0)
                log_a = unary_rule("log", a)
                grad_b = sum_to(where_rule(zero_limit, 0.0, grad * self.saved_output() * log_a),
                                b.shape)
        return grad_a, grad_b


class PowBackward1(PowBackward0):
    """``tensor ** tensor`` (PyTorch names its three pow overloads' nodes apart)."""


class PowBackward2(PowBackward0):
    """``number ** tensor``."""


# PyTorch's nodes for the powers with their own ops: the rule is pow's (``Node.rename``)


class SqrtBackward0(PowBackward0):
    """``sqrt``: ``x ** 0.5``."""


class RsqrtBackward0(PowBackward0):
    """``rsqrt``: ``x ** -0.5``."""


class ReciprocalBackward0(PowBackward0):
    """``reciprocal``: ``x ** -1``."""


class Exp2Backward0(PowBackward2):
    """``exp2``: ``2 ** x``."""


def _rsqrt(x: np.ndarray) -> np.ndarray:
    r = np.asarray(np.sqrt(x))  # 0-d inputs give NumPy scalars, which cannot be out=
    return np.divide(1, r, out=r)


# Exponents PyTorch's CPU kernel computes without pow() (square, sqrt, reciprocal, rsqrt): the
# same values, including sqrt's -0.0 and NaN at -inf, several times faster.
_FAST_POW: dict[float, Callable] = {2.0: np.square, 3.0: lambda x: x * x * x, 0.5: np.sqrt,
                                    -1.0: np.reciprocal, -0.5: _rsqrt,
                                    -2.0: lambda x: np.reciprocal(x * x)}


# ... and a ** (e - 1) for those exponents, in a gradient (no bit-exactness with pow needed)
_FAST_POW_GRAD: dict[float, Callable] = {**_FAST_POW, 1.0: lambda x: x,
                                         -2.0: lambda x: np.reciprocal(np.square(x)),
                                         -1.5: lambda x: _rsqrt(x) / x}


def _int_pow_with_negative_exponents(base: np.ndarray, exponent: np.ndarray) -> np.ndarray:
    """Integer ``base ** exponent`` where some exponents are negative, as PyTorch computes it
    for an exponent tensor: ``1 / base ** -e`` truncated, so 1 for a base of 1, +-1 for -1 and
    0 for any other base (0 included)."""
    base, exponent = np.broadcast_arrays(base, exponent)
    out = np.asarray(base ** np.maximum(exponent, 0))
    negative = exponent < 0
    odd = (exponent % 2) != 0
    reciprocal = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, reciprocal, out).astype(out.dtype, copy=False)


def _check_int_exponent(exponent: Any, dtype: np.dtype) -> None:
    """PyTorch's errors for a Python-number exponent of an integer ``base ** exponent``: a
    negative integer, or one the result's integer dtype cannot hold (uint8 ** 300)."""
    if not isinstance(exponent, int) or isinstance(exponent, bool) or dtype.kind == "b":
        return
    if exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    dtypes.checked_int(exponent, dtype)  # PyTorch's overflow error for uint8 ** 300


def pow(a, b) -> TensorBase:  # noqa: A001 - PyTorch's name
    """``a ** b`` with broadcasting; either side may be a Python scalar."""
    if type(b) in (int, float) and isinstance(a, TensorBase) and is_float_dtype(a._data.dtype):
        fast = _FAST_POW.get(b)
        if fast is not None:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out = np.asarray(fast(a._data))  # a 0-d input gives a NumPy scalar
            if not (grad_state.enabled and a._requires_grad):
                return wrap(out)
            a, b = promote(a, b)
            node = PowBackward0(a, b)
            node.save_for_backward(a, b)
            return wrap(out, node)
    exponent, base_is_tensor = b, isinstance(a, TensorBase)
    a, b = promote(a, b)
    kind = a._data.dtype.kind
    if kind in "biu" and not isinstance(exponent, TensorBase):
        _check_int_exponent(exponent, a._data.dtype)  # (checked before promote wrapped it)
    if kind == "b":
        if not isinstance(exponent, bool):
            raise NotImplementedError("\"pow\" not implemented for 'Bool'")
        # bool tensor ** Python bool stays bool: x ** True is x, x ** False is all True
        return wrap(a._data.copy() if exponent else np.ones_like(a._data))
    if kind in "iu" and (b._data < 0).any():
        return wrap(_int_pow_with_negative_exponents(a._data, b._data))
    try:
        with np.errstate(divide="ignore", invalid="ignore"):
            out = a._data ** b._data
    except ValueError:
        raise broadcast_error("pow", a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = (PowBackward0 if not isinstance(exponent, TensorBase) else PowBackward1
            if base_is_tensor else PowBackward2)(a, b)
    node.save_for_backward(a, b)
    result = wrap(out, node)
    if b._requires_grad:
        node.save_output(result)
    return result


_SHARES: dict = {}


def _shares(dtype: np.dtype) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shared read-only 0-d 0, 0.5 and 1 of a float ``dtype``: NumPy's where takes them faster
    than Python floats, and its result then needs no cast."""
    shares = _SHARES.get(dtype)
    if shares is None:
        shares = tuple(np.asarray(v, dtype) for v in (0.0, 0.5, 1.0))
        for v in shares:
            v.flags.writeable = False
        _SHARES[dtype] = shares
    return shares


class MaximumBackward0(Node):
    wins = staticmethod(np.greater)  # where a's value is the result

    def backward(self, grad):
        (ea, eb), (a, b) = self.next_edges, self.saved_tensors
        a_arr, b_arr = array_of(a), array_of(b)
        # PyTorch's rule: an operand gets the whole gradient unless the other one wins, half of
        # it on a tie; where either is NaN neither wins nor ties, so both get it all. Each share
        # is a constant.
        # The loser's gradient is an exact zero, a NaN or inf gradient included (PyTorch
        # masks it): grad * 0 would be NaN there.
        _, half, one = _shares(a_arr.dtype)  # 0-d arrays: no conversion, no astype
        full = np.where(a_arr == b_arr, half, one)
        scaled = grad * (full if is_array(grad) else wrap(full))
        return (sum_to(_unless(self.wins(b_arr, a_arr), scaled), a.shape) if ea else None,
                sum_to(_unless(self.wins(a_arr, b_arr), scaled), b.shape) if eb else None)


class MinimumBackward0(MaximumBackward0):
    wins = staticmethod(np.less)


def _unless(lost: np.ndarray, grad):
    """``grad`` with exact zeros where ``lost`` holds (a gradient array or, under
    ``create_graph``, a tensor)."""
    if is_array(grad):
        lost = np.broadcast_to(lost, grad.shape)
        kept = masked_bits(grad, ~lost)
        return kept if kept is not None else np.where(lost, 0, grad).astype(grad.dtype)
    return where(wrap(np.broadcast_to(lost, grad.shape)), 0.0, grad)


def _extremum(ufunc: np.ufunc, node_cls: type[Node], name: str, a, b) -> TensorBase:
    a, b = promote(a, b)
    try:
        out = ufunc(a._data, b._data)
    except ValueError:
        raise broadcast_error(name, a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = node_cls(a, b)
    node.save_for_backward(a, b)
    return wrap(out, node)


def maximum(a, b) -> TensorBase:
    """Elementwise maximum with broadcasting; ties share the gradient equally."""
    return _extremum(np.maximum, MaximumBackward0, "maximum", a, b)


def minimum(a, b) -> TensorBase:
    """Elementwise minimum with broadcasting; ties share the gradient equally."""
    return _extremum(np.minimum, MinimumBackward0, "minimum", a, b)


class WhereBackward0(Node):
    cond: TensorBase
    shapes: tuple[tuple[int, ...], tuple[int, ...]]  # of x and y

    def backward(self, grad):
        _, ex, ey = self.next_edges
        sx, sy = self.shapes
        return (None,
                sum_to(where_rule(self.cond, grad, 0.0), sx) if ex else None,
                sum_to(where_rule(self.cond, 0.0, grad), sy) if ey else None)


def where(condition, x, y) -> TensorBase:
    """Elementwise ``x`` where ``condition`` is true, else ``y`` (all three broadcast)."""
    cond = condition if isinstance(condition, TensorBase) else wrap(np.asarray(condition))
    if cond._data.dtype != np.bool_:
        if cond._data.dtype != np.uint8:  # PyTorch still takes a uint8 condition (deprecated)
            raise RuntimeError(f"where: condition must be a bool tensor, got {cond.dtype}")
        cond = wrap(cond._data.astype(np.bool_))
    if not isinstance(x, TensorBase) and not isinstance(y, TensorBase):
        x = wrap(to_array(x, None, float_default=False))  # where(c, 1.0, 0.0): default dtypes
    x, y = promote(x, y)
    try:
        out = select(cond._data, x._data, y._data)
    except ValueError:
        raise RuntimeError(
            f"where: shapes {cond._data.shape} (condition), {x._data.shape} and {y._data.shape} "
            "cannot be broadcast together"
        ) from None
    if not (grad_state.enabled and (x._requires_grad or y._requires_grad)):
        return wrap(out)
    node = WhereBackward0(cond, x, y)
    node.cond, node.shapes = cond, (x._data.shape, y._data.shape)
    return wrap(out, node)


def compare(ufunc: np.ufunc, a, b, name: str) -> TensorBase:
    """A comparison such as ``np.less``: a bool tensor that never requires grad."""
    if isinstance(b, (int, float)) and isinstance(a, TensorBase):
        bounds = _INT_RANGES.get(a._data.dtype)
        if bounds is None or type(b) is int and bounds[0] <= b <= bounds[1]:
            # a float tensor (NumPy casts the number to its dtype, as PyTorch), or an int the
            # integer tensor's dtype holds: NumPy compares exactly, as PyTorch
            return wrap(ufunc(a._data, b))
        # else PyTorch converts the number to the promoted dtype first: an int outside the
        # tensor's range wraps (uint8 < -2 compares with 254), a float compares in float32
        # (int64 2**24 + 1 == 2.0**24)
        a, b = promote(a, b)
        return wrap(ufunc(a._data, b._data))
    a, b = promote(a, b)
    try:
        return wrap(ufunc(a._data, b._data))
    except ValueError:
        raise broadcast_error(name, a, b) from None


# -- casts and copies -------------------------------------------------------------------------


class ToCopyBackward0(Node):
    input_dtype: np.dtype

    def backward(self, grad):
        return (cast_rule(grad, self.input_dtype),)


def cast(x: TensorBase, dtype: np.dtype) -> TensorBase:
    """``x`` converted to the NumPy dtype ``dtype`` (``x`` itself when it already has it)."""
    if x._data.dtype == dtype:
        return x
    if x._data.dtype is dtypes.bfloat16.np and dtype.kind in "iu":
        # ml_dtypes converts bfloat16 to integers through its own rule (-2.25 to uint8 gives
        # 0); PyTorch converts as from float32 (254, wrapping), as NumPy's float32 does
        out = x._data.astype(_FLOAT32).astype(dtype)
    else:
        out = x._data.astype(dtype)
    # gradients flow only between float dtypes
    if not (grad_state.enabled and x._requires_grad and is_float_dtype(dtype)):
        return wrap(out)
    node = ToCopyBackward0(x)
    node.input_dtype = x._data.dtype
    return wrap(out, node)


def autocast_lower(*tensors: TensorBase | None) -> tuple:
    """Inside ``tl.autocast``: the floating-point tensors cast (a recorded, differentiable op)
    to the autocast dtype, for the matmul-like ops that run in low precision."""
    low = autocast_state.dtype
    return tuple(t if t is None or low is None or not is_float_dtype(t._data.dtype)
                 or t._data.dtype == low else cast(t, low) for t in tensors)


def autocast_fp32(*tensors: TensorBase | None) -> tuple:
    """Inside ``tl.autocast``: low-precision floating tensors cast to float32, for the ops
    PyTorch runs in float32 there (losses, norms, softmax, exp/log, reductions)."""
    if autocast_state.dtype is None:
        return tensors
    return tuple(t if t is None or not is_float_dtype(t._data.dtype) or t._data.dtype.itemsize >= 4
                 else cast(t, np.dtype(np.float32)) for t in tensors)


def _is_bfloat16(x: Any) -> bool:
    return isinstance(x, TensorBase) and x._data.dtype is dtypes.bfloat16.np


def _to_bfloat16(result: Any) -> Any:
    if isinstance(result, TensorBase):
        return cast(result, dtypes.bfloat16.np) if result._data.dtype == _FLOAT32 else result
    if isinstance(result, tuple):
        return type(result)(*map(_to_bfloat16, result)) if hasattr(result, "_fields") \
            else tuple(map(_to_bfloat16, result))
    return result


def bfloat16_in_float32(fn: Callable | None = None, *, keep: tuple[str, ...] = (),
                        autocast_fp32: bool = False) -> Any:
    """Decorate an op so that its bfloat16 tensor arguments compute in float32 and its float32
    results round back to bfloat16 (recorded casts: gradients come back in bfloat16). ``keep``
    names arguments passed as they are (running statistics that the op updates in place).
    ``autocast_fp32``: an op of autocast's float32 list, which inside ``tl.autocast`` returns
    float32 itself, as PyTorch's does.

    PyTorch's CPU kernels accumulate bfloat16 in float32; ml_dtypes' NumPy loops accumulate in
    bfloat16 itself (a sum of 10,000 ones gives 256) and have no BLAS. Elementwise ops need no
    such care: their one rounding per element is PyTorch's too.
    """
    if fn is None:
        return lambda f: bfloat16_in_float32(f, keep=keep, autocast_fp32=autocast_fp32)
    names = list(inspect.signature(fn).parameters)
    kept = {names.index(k) for k in keep}

    def run(*args: Any, **kwargs: Any) -> Any:
        if dtypes.bfloat16.np is None or (autocast_fp32 and autocast_state.dtype is not None) \
                or not (any(map(_is_bfloat16, args)) or any(map(_is_bfloat16, kwargs.values()))):
            return fn(*args, **kwargs)  # (no tensor is bfloat16 before ml_dtypes is loaded)
        args = tuple(cast(a, _FLOAT32) if _is_bfloat16(a) and i not in kept else a
                     for i, a in enumerate(args))
        kwargs = {k: cast(v, _FLOAT32) if _is_bfloat16(v) and k not in keep else v
                  for k, v in kwargs.items()}
        return _to_bfloat16(fn(*args, **kwargs))
    return functools.wraps(fn)(run)


class CloneBackward0(Node):
    def backward(self, grad):
        return (grad,)


def clone(x: TensorBase, memory_format: Any = None) -> TensorBase:
    """A copy of ``x`` with its own memory (row-major, or in ``memory_format``: see
    ``_core.memory_format``); the gradient flows through unchanged."""
    out = x._data.copy() if memory_format is None else in_format(x._data, memory_format)
    return wrap(out, CloneBackward0(x)) if grad_state.enabled and x._requires_grad else wrap(out)


# -- backward-rule helpers that build on the ops above (arrays in a plain backward, tensors
# under create_graph; see common.py) --------------------------------------------------------

def promote(a: Any, b: Any) -> tuple[TensorBase, TensorBase]:
    """Both operands as tensors of one dtype, chosen by PyTorch's promotion rules. Each is a
    tensor or a Python scalar, array or list, and at least one of them is a tensor."""
    if not isinstance(a, TensorBase):
        a = as_tensor(a, b)
    elif not isinstance(b, TensorBase):
        b = as_tensor(b, a)
    if a._data.dtype is b._data.dtype:
        return a, b
    dt = dtypes.result_type(a._data, b._data)
    return cast(a, dt), cast(b, dt)  # a cast is a recorded op


def float_operands(a: Any, b: Any) -> tuple[TensorBase, TensorBase]:
    """Integer or bool operands (tensors or Python numbers) of a float-valued op (``/``, atan2,
    hypot...), both converted to the default float dtype straight from their own values: as
    PyTorch computes them, never wrapping one into the other's integer dtype first (uint8
    tensor / int8 tensor(-3) divides by -3.0, not by 253)."""
    floating = dtypes.get_default_dtype().np
    return tuple(cast(v, floating) if isinstance(v, TensorBase)  # type: ignore[return-value]
                 else wrap(np.asarray(v, floating)) for v in (a, b))


def where_rule(mask, x, y):
    """``x`` where ``mask`` else ``y``; ``mask`` is a constant (bool array or tensor), ``x`` and
    ``y`` are gradients or Python scalars."""
    if not (isinstance(x, TensorBase) or isinstance(y, TensorBase)):
        return select(array_of(mask), x, y)
    return where(mask, x, y)


def cast_rule(x, dtype: np.dtype):
    """``x`` converted to ``dtype``."""
    if is_array(x):
        return x.astype(dtype, copy=False)
    return cast(x, dtype)
