"""Unary elementwise primitives: neg, exp, log, sin, cos, relu, tanh, sigmoid, abs, rounding,
expm1/log1p, tan, clamp.

These are primitives rather than composites for accuracy (expm1 and log1p near 0) or because a
composite would cost several ops where one NumPy call does (abs, tan, clamp: the per-op
overhead is what dominates small tensors).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import get_default_dtype, is_float_dtype, require_real
from .common import array_of, is_array, masked_bits, unary_result, unary_rule, wrap, zero_of
from .elementwise import cast, where_rule
from .kernel_choice import kernels_for, run, run_kernels
from .piecewise import tie_zero_slope

_WHERE_MAX_SIZE = 1024  # see ReluBackward0
# NumPy's maximum against a scalar runs an unvectorised broadcast loop; against a contiguous row
# of zeros it takes the SIMD loop, about 2x faster on large arrays (1.25 M float32: 0.69 ->
# 0.34 ms). Rows this long keep the per-row overhead small.
_ZERO_ROW = 16384
_ZERO_ROWS = {dt: np.zeros(_ZERO_ROW, dt) for dt in (np.dtype(np.float32), np.dtype(np.float64))}


def _constant(value: np.ndarray, like):
    """A NumPy constant in the form a backward rule needs (array, or tensor under create_graph)."""
    return value if is_array(like) else wrap(value)


def _sign(data: np.ndarray) -> np.ndarray:
    """PyTorch's sign of real numbers, ``(0 < x) - (x < 0)``: NumPy's, but 0 at NaN."""
    sign = np.sign(data)
    if sign.dtype.kind == "f" and np.isnan(sign).any():
        return np.where(np.isnan(sign), 0, sign)
    return sign


def _no_bool(x: TensorBase, op: str) -> None:
    if x._data.dtype == np.bool_:
        raise TypeError(f"{op}: not implemented for bool tensors (got dtype {x.dtype})")


def _float_input(x: TensorBase) -> TensorBase:
    """exp, log, sin... of an integer tensor compute in the default float dtype, as in PyTorch."""
    return x if is_float_dtype(x._data.dtype) else cast(x, get_default_dtype().np)


class NegBackward0(Node):
    def backward(self, grad):
        return (-grad,)


def neg(x: TensorBase) -> TensorBase:
    """``-x``."""
    if x._data.dtype == np.bool_:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If "
                           "you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    out = np.negative(x._data)
    return wrap(out, NegBackward0(x)) if grad_state.enabled and x._requires_grad else wrap(out)


class ExpBackward0(Node):
    def backward(self, grad):
        return (grad * self.saved_output(),)


def exp(x: TensorBase) -> TensorBase:
    """Elementwise ``e ** x``."""
    x = _float_input(x)
    return unary_result(np.exp(x._data), x, ExpBackward0, save="output")


class LogBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / x,)


def log(x: TensorBase) -> TensorBase:
    """Elementwise natural logarithm (``-inf`` at 0 and ``nan`` below 0, as in PyTorch)."""
    x = _float_input(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return unary_result(np.log(x._data), x, LogBackward0, save="input")


class SinBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * unary_rule("cos", x),)


def sin(x: TensorBase) -> TensorBase:
    """Elementwise sine."""
    x = _float_input(x)
    return unary_result(np.sin(x._data), x, SinBackward0, save="input")


class CosBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (-(grad * unary_rule("sin", x)),)


def cos(x: TensorBase) -> TensorBase:
    """Elementwise cosine."""
    x = _float_input(x)
    return unary_result(np.cos(x._data), x, CosBackward0, save="input")


class ReluBackward0(Node):
    def backward(self, grad):
        saved = self.saved_output()
        out = array_of(saved)
        if is_array(grad) and grad.shape == out.shape:
            # (ReLU's NumPy backward is already one or two passes: the kernel's fixed cost pays
            # only on large arrays, measured on the toy and GPT steps)
            kern = kernels_for("activation", grad, out, large=True)
            if kern is not None:  # one pass: grad where the result is not 0, else +0.0
                return (run_kernels(_relu_grad_kernel, kern, grad, out),)
        # PyTorch zeroes the gradient where the result is <= 0, so a NaN passes it. The result
        # is never negative, so that is ``out != 0``: one comparison, as cheap as ``out > 0``.
        positive = out != zero_of(out.dtype)  # a constant mask: no graph needed
        if not is_array(grad):  # recorded, with a zero derivative towards the input
            return (tie_zero_slope(where_rule(positive, grad, 0.0), saved),)
        # np.where gives PyTorch's result exactly (0 where x <= 0, even for an inf/NaN gradient)
        # but is slow on large random masks (256x256: 245 us, a branch per element). Above ~1k
        # elements the mask multiplies the gradient's bit pattern as integers instead: 1 keeps a
        # value exactly, NaN and inf included, 0 gives +0.0, branch-free and in one pass
        # (256x256: 27 us; ``grad * mask`` in floating point would turn inf * 0 into NaN).
        kept = masked_bits(grad, positive) if grad.size > _WHERE_MAX_SIZE else None
        return (np.where(positive, grad, zero_of(grad.dtype)) if kept is None else kept,)


def _relu_grad_kernel(kern, grad: np.ndarray, out: np.ndarray) -> np.ndarray:
    result = np.empty_like(grad)
    run(kern, "relu_backward", grad.size, grad.reshape(-1), out.reshape(-1),
        result.reshape(-1), grad.dtype.type(0))
    return result


def relu(x: TensorBase) -> TensorBase:
    """``max(x, 0)`` elementwise; the gradient at 0 is 0 and at NaN passes, as in PyTorch."""
    if x._data.dtype == np.bool_:
        raise TypeError("relu: not implemented for bool tensors")
    return unary_result(_max_zero(x._data), x, ReluBackward0, save="output")


def _max_zero(a: np.ndarray) -> np.ndarray:
    """``np.maximum(a, 0)``, the same ufunc and argument order (so NaN and -0.0 come out the
    same); large contiguous float arrays run against rows of zeros (see ``_ZERO_ROWS``)."""
    row = _ZERO_ROWS.get(a.dtype)
    if row is None or a.size < 2 * _ZERO_ROW or not a.flags.c_contiguous:
        return np.maximum(a, zero_of(a.dtype))
    out = np.empty(a.shape, a.dtype)
    flat, flat_out = a.reshape(-1), out.reshape(-1)
    body = a.size - a.size % _ZERO_ROW
    np.maximum(flat[:body].reshape(-1, _ZERO_ROW), row,
               out=flat_out[:body].reshape(-1, _ZERO_ROW))
    np.maximum(flat[body:], zero_of(a.dtype), out=flat_out[body:])
    return out


class TanhBackward0(Node):
    def backward(self, grad):
        out = self.saved_output()
        return (grad * (1 - out * out),)


def tanh(x: TensorBase) -> TensorBase:
    """Elementwise hyperbolic tangent (a primitive: one NumPy call, exact near 0)."""
    x = _float_input(x)
    return unary_result(np.tanh(x._data), x, TanhBackward0, save="output")


class SigmoidBackward0(Node):
    def backward(self, grad):
        out = self.saved_output()
        return (grad * out * (1 - out),)


def sigmoid(x: TensorBase) -> TensorBase:
    """Elementwise ``1 / (1 + exp(-x))``. For very negative x, exp(-x) overflows to inf and the
    result is exactly 0 (the overflow warning is silenced); both tails stay accurate."""
    x = _float_input(x)
    with np.errstate(over="ignore"):
        out = 1 / (1 + np.exp(-x._data))
    return unary_result(out, x, SigmoidBackward0, save="output")


class AbsBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        # PyTorch's rule is grad * sgn(x): 0 at 0 and at NaN
        sign = _sign(array_of(x))
        return (tie_zero_slope(grad * _constant(sign, grad), x),)


def abs(x: TensorBase) -> TensorBase:  # noqa: A001 - PyTorch's name
    """Elementwise absolute value."""
    _no_bool(x, "abs")
    return unary_result(np.abs(x._data), x, AbsBackward0, save="input")


class _ZeroGradient(Node):
    """Step functions (sign, floor, ...): the gradient is zero everywhere, as in PyTorch."""

    def backward(self, grad):
        # a constant zero under create_graph too (PyTorch's zeros_like(grad)): ``grad * 0``
        # would tie it to the upstream gradient, and differentiating it again would reach rules
        # that are 0/0 at a zero (std, norm) and report NaN where PyTorch reports 0
        if is_array(grad):
            return (np.zeros_like(grad),)
        return (wrap(np.zeros_like(grad._data)),)


class SignBackward0(_ZeroGradient):
    pass


class FloorBackward0(_ZeroGradient):
    pass


class CeilBackward0(_ZeroGradient):
    pass


class RoundBackward0(_ZeroGradient):
    pass


class TruncBackward0(_ZeroGradient):
    pass


class RoundBackward1(_ZeroGradient):
    """``round(x, decimals=n)``."""


def round_decimals(x: TensorBase, decimals: int) -> TensorBase:
    """Round half to even to ``decimals`` places as PyTorch computes it, in ``x``'s dtype:
    ``round(x * 10**n) / 10**n``, or ``round(x / 10**-n) * 10**-n`` for negative ``n``."""
    if not is_float_dtype(x._data.dtype):
        raise NotImplementedError(f'"round_cpu" not implemented for {x.dtype} tensors')
    data = x._data.astype(np.float32) if x._data.dtype.itemsize == 2 else x._data  # (halves:
    with np.errstate(over="ignore", invalid="ignore"):  # float32, as PyTorch's; NaN past 1e308)
        scale = data.dtype.type(np.float64(10.0) ** (-decimals if decimals < 0 else decimals))
        out = np.asarray(np.round(data / scale) * scale if decimals < 0
                         else np.round(data * scale) / scale).astype(x._data.dtype, copy=False)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    return wrap(out, RoundBackward1(x))


_STEP_FUNCTIONS: dict[str, tuple[Callable[[np.ndarray], Any], type[Node]]] = {
    "sign": (_sign, SignBackward0),
    "floor": (np.floor, FloorBackward0),
    "ceil": (np.ceil, CeilBackward0),
    "round": (np.round, RoundBackward0),
    "trunc": (np.trunc, TruncBackward0),
}


def step(name: str, x: TensorBase) -> TensorBase:
    """sign, floor, ceil, round (half to even, as in PyTorch) or trunc; zero gradient."""
    ufunc, node_class = _STEP_FUNCTIONS[name]
    if x._data.dtype == np.bool_:
        if name == "sign":
            return wrap(x._data.copy())
        raise NotImplementedError(f"\"{name}_vml_cpu\" not implemented for 'Bool'")
    out = np.asarray(ufunc(x._data))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    return wrap(out, node_class(x))


class Expm1Backward0(Node):
    def backward(self, grad):
        return (grad * (self.saved_output() + 1),)


def expm1(x: TensorBase) -> TensorBase:
    """``exp(x) - 1``, accurate for small ``x``."""
    x = _float_input(x)
    return unary_result(np.expm1(x._data), x, Expm1Backward0, save="output")


class Log1PBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / (x + 1),)


def log1p(x: TensorBase) -> TensorBase:
    """``log(1 + x)``, accurate for small ``x``."""
    x = _float_input(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        return unary_result(np.log1p(x._data), x, Log1PBackward0, save="input")


class TanBackward0(Node):
    def backward(self, grad):
        out = self.saved_output()
        return (grad * (1 + out * out),)


def tan(x: TensorBase) -> TensorBase:
    """Elementwise tangent (a primitive: one NumPy call instead of sin / cos)."""
    x = _float_input(x)
    return unary_result(np.tan(x._data), x, TanBackward0, save="output")


class ClampBackward1(Node):
    mask: np.ndarray  # where the gradient passes

    def backward(self, grad):
        return (where_rule(self.mask, grad, 0.0),)


class ClampMinBackward0(ClampBackward1):
    """``clamp_min``'s node (PyTorch names it apart from ``clamp``'s)."""


class ClampMaxBackward0(ClampBackward1):
    """``clamp_max``'s node."""


def clamp(x: TensorBase, min: float | None = None, max: float | None = None,  # noqa: A002
          node_class: type[ClampBackward1] = ClampBackward1) -> TensorBase:
    """``x`` limited to ``[min, max]`` (Python-number bounds; either may be None). The gradient
    passes where ``min <= x <= max``, as in PyTorch. ``node_class`` names the node
    (``clamp_min`` and ``clamp_max`` have their own names)."""
    if min is None and max is None:
        raise RuntimeError("clamp: at least one of 'min' or 'max' must not be None")
    _no_bool(x, "clamp")
    data = x._data
    for bound in (min, max):
        require_real(bound, data.dtype, "clamp")
    if x._data.dtype.kind in "iu" and any(isinstance(b, float) for b in (min, max)):
        # int tensor, float bound: PyTorch computes in (and returns) the default float dtype
        data = data.astype(get_default_dtype().np)
    out = np.clip(data, min, max)
    if out.dtype != data.dtype:
        out = out.astype(data.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    mask = np.ones(data.shape, dtype=bool)
    if min is not None:
        mask &= data >= min
    if max is not None:
        mask &= data <= max
    node = node_class(x)
    node.mask = mask
    return wrap(out, node)
