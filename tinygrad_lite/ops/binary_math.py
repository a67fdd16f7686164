"""Binary math primitives beyond arithmetic: ``atan2``, ``hypot``, ``xlogy``/``xlog1py``,
``copysign``, the floating remainders ``fmod``/``remainder``, ``logaddexp``/``logaddexp2`` and
``lerp``,
each forward beside its backward rule (broadcasting and promotion as for ``+``; integer inputs
give the default float dtype)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import cpp_type_name, is_float_dtype
from .common import array_of, broadcast_error, is_array, sum_to, unary_rule, wrap, writable
from .elementwise import float_operands, promote, where_rule

__all__ = ["atan2", "hypot", "xlogy", "xlog1py", "copysign", "fmod", "remainder", "logaddexp",
           "logaddexp2", "lerp"]

def _float_operands(input: object, other: object) -> tuple[TensorBase, TensorBase]:
    """Promote the operands to one dtype; integers and bools compute in the default float
    dtype, each converted from its own values (``float_operands``)."""
    a, b = promote(input, other)
    if not is_float_dtype(a._data.dtype):
        a, b = float_operands(input, other)
    return a, b


def _binary(op: str, ufunc: Callable[[np.ndarray, np.ndarray], np.ndarray],
            node_cls: type[Atan2Backward0 | HypotBackward0 | XlogyBackward0 | CopysignBackward0
                           | FmodBackward0 | LogaddexpBackward0],
            input: object, other: object) -> TensorBase:
    """Compute ``ufunc(a, b)`` and, when recording, attach a ``node_cls`` that saves both."""
    a, b = _float_operands(input, other)
    try:
        out = ufunc(a._data, b._data)
    except ValueError:
        raise broadcast_error(op, a, b) from None
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = node_cls(a, b)
    node.save_for_backward(a, b)
    result = wrap(out, node)
    if node_cls.needs_output:
        node.save_output(result)
    return result


class Atan2Backward0(Node):
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2); 0 (signed as x and -y) where
    1 / (x^2 + y^2) is infinite, at the origin, as in PyTorch."""

    needs_output = False

    def backward(self, grad):
        y, x = self.saved_tensors
        ey, ex = self.next_edges
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            recip = 1 / (x * x + y * y)
            infinite = np.isinf(array_of(recip))
            if infinite.any():
                recip = where_rule(infinite, 0.0, recip)
            return (sum_to(grad * x * recip, y.shape) if ey else None,
                    sum_to(grad * -y * recip, x.shape) if ex else None)


def atan2(input: object, other: object) -> TensorBase:
    """The angle of the point ``(other, input)``: ``arctan(input / other)`` in the right
    quadrant, in ``[-pi, pi]``."""
    return _binary("atan2", np.arctan2, Atan2Backward0, input, other)


class HypotBackward0(Node):
    """d hypot(a, b) = (a da + b db) / hypot(a, b); NaN at the origin, as in PyTorch."""

    needs_output = True

    def backward(self, grad):
        a, b = self.saved_tensors
        ea, eb = self.next_edges
        with np.errstate(divide="ignore", invalid="ignore"):
            share = grad / self.saved_output()
            return (sum_to(share * a, a.shape) if ea else None,
                    sum_to(share * b, b.shape) if eb else None)


def hypot(input: object, other: object) -> TensorBase:
    """``sqrt(input**2 + other**2)`` elementwise, without overflow for large values."""
    return _binary("hypot", np.hypot, HypotBackward0, input, other)


class XlogyBackward0(Node):
    """PyTorch's rules: d/dx = xlogy(grad, y), 0 where x == 0 and y <= 0 (log1p: y <= -1);
    d/dy = grad * x / y (y + 1), NaN at x = y = 0 as there."""

    log1p = False
    needs_output = False

    def backward(self, grad):
        x, y = self.saved_tensors
        ex, ey = self.next_edges
        with np.errstate(divide="ignore", invalid="ignore"):
            grad_x = grad_y = None
            if ex:
                grad_x = _xlog(grad, y, self.log1p)
                degenerate = (array_of(x) == 0) & (array_of(y) <= (-1 if self.log1p else 0))
                if degenerate.any():
                    grad_x = where_rule(degenerate, 0.0, grad_x)
                grad_x = sum_to(grad_x, x.shape)
            if ey:
                grad_y = sum_to(grad * x / ((y + 1) if self.log1p else y), y.shape)
            return grad_x, grad_y


class Xlog1pyBackward0(XlogyBackward0):
    """``xlog1py``: the same rules with log1p."""

    log1p = True


def _xlog(x, y, log1p: bool):
    """``x * log(y)`` (or log1p), 0 where x is 0 unless y is NaN, on arrays or tensors."""
    if isinstance(x, TensorBase) or isinstance(y, TensorBase):
        return (xlog1py if log1p else xlogy)(x, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = x * (np.log1p(y) if log1p else np.log(y))
        zero = (x == 0) & ~np.isnan(y)
        return np.where(zero, np.zeros((), value.dtype), value) if zero.any() else value


def xlogy(x: TensorBase, y: TensorBase) -> TensorBase:
    """``x * log(y)``, 0 where x is 0 (even if y is 0) unless y is NaN; x and y are tensors of
    one floating dtype (the caller promotes)."""
    return _binary("xlogy", lambda a, b: np.asarray(_xlog(a, b, False)), XlogyBackward0, x, y)


def xlog1py(x: TensorBase, y: TensorBase) -> TensorBase:
    """``x * log1p(y)``, 0 where x is 0 unless y is NaN (see ``xlogy``)."""
    return _binary("xlog1py", lambda a, b: np.asarray(_xlog(a, b, True)), Xlog1pyBackward0, x,
                   y)


class CopysignBackward0(Node):
    """PyTorch's rules: ``grad * result / input``, 0 where the input is 0 (masked after the
    division, so the second derivative there is PyTorch's NaN); ``other`` gets a constant zero
    gradient."""

    needs_output = True

    def backward(self, grad):
        x, y = self.saved_tensors
        ex, ey = self.next_edges
        grad_x = grad_y = None
        if ex:
            result = self.saved_output()
            zero = np.broadcast_to(array_of(x) == 0, array_of(result).shape)
            with np.errstate(divide="ignore", invalid="ignore"):
                grad_x = sum_to(grad * where_rule(zero, 0.0, result / x), x.shape)
        if ey:
            zeros = np.zeros(array_of(y).shape, array_of(y).dtype)
            grad_y = zeros if is_array(grad) else wrap(zeros)
        return grad_x, grad_y


def copysign(x: TensorBase, y: TensorBase) -> TensorBase:
    """The magnitude of ``x`` with the sign of ``y`` (-0.0 included); tensors of one floating
    dtype (the caller promotes)."""
    return _binary("copysign", np.copysign, CopysignBackward0, x, y)


class FmodBackward0(Node):
    """PyTorch's rules for ``x - q * y`` with the quotient ``q`` rounded toward zero (fmod) or
    down (remainder): ``grad`` towards ``x``, ``-grad * q`` towards ``y`` (``q`` a constant)."""

    needs_output = False
    label = "FmodBackward0"

    @staticmethod
    def quotient(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """``x / y`` rounded toward zero."""
        return np.trunc(x / y)

    def name(self) -> str:
        """PyTorch's name (see ``_remainder_op``)."""
        return self.label

    def backward(self, grad):
        x, y = self.saved_tensors
        ex, ey = self.next_edges
        grad_x = sum_to(grad, array_of(x).shape) if ex else None
        grad_y = None
        if ey:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                quotient = self.quotient(array_of(x), array_of(y))
            grad_y = sum_to(grad * -quotient if is_array(grad) else grad * wrap(-quotient),
                            array_of(y).shape)
        return grad_x, grad_y


class RemainderBackward0(FmodBackward0):
    @staticmethod
    def quotient(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Python's floor division, as PyTorch's ``div(rounding_mode="floor")`` (-2 // inf is
        -1, where floor(-2 / inf) is -0)."""
        return np.floor_divide(x, y)


def _fmod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):  # (x % 0 is NaN, as in PyTorch)
        return np.asarray(np.fmod(a, b))


def _remainder(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """PyTorch's ``fmod`` moved to the divisor's sign: a zero stays +0.0 (NumPy's remainder
    gives it the divisor's sign)."""
    mod = writable(_fmod(a, b))
    shift = (mod != 0) & ((b < 0) != (mod < 0))
    if shift.any():
        mod = np.where(shift, mod + b, mod)
    return mod


def _remainder_op(op: str, rule: Callable[[np.ndarray, np.ndarray], np.ndarray],
                  node_cls: type[FmodBackward0], x: TensorBase, y: TensorBase,
                  scalar_divisor: bool) -> TensorBase:
    """``rule(x, y)`` with its node, named as PyTorch names it: ``...Backward0`` with a Python
    number as the divisor, ``...Backward1`` with a tensor."""
    out = _binary(op, rule, node_cls, x, y)
    if out.grad_fn is not None:
        out.grad_fn.label = node_cls.__name__[:-1] + ("0" if scalar_divisor else "1")
    return out


def fmod(x: TensorBase, y: TensorBase, scalar_divisor: bool = False) -> TensorBase:
    """C's remainder, with the sign of ``x``, exactly (``x - trunc(x / y) * y`` rounds ``x /
    y``: fmod(1e20, 3) came out 0, not 1); tensors of one floating dtype (the caller
    promotes; ``scalar_divisor``: ``y`` was a Python number, which names the node)."""
    return _remainder_op("fmod", _fmod, FmodBackward0, x, y, scalar_divisor)


def remainder(x: TensorBase, y: TensorBase, scalar_divisor: bool = False) -> TensorBase:
    """Python's remainder, with the sign of ``y``, exactly (see ``fmod``); tensors of one
    floating dtype (the caller promotes)."""
    return _remainder_op("remainder", _remainder, RemainderBackward0, x, y, scalar_divisor)


class LogaddexpBackward0(Node):
    """PyTorch's rules: ``grad / (1 + exp(b - a))`` towards ``a`` and ``grad / (1 + exp(a -
    b))`` towards ``b`` (1 and 0 where ``a`` is +inf and ``b`` finite, where the softmax form
    ``exp(a - out)`` gives inf / inf); ``2 ** (b - a)`` for ``logaddexp2``."""

    needs_output = False
    power = "exp"

    def backward(self, grad):
        a, b = self.saved_tensors
        ea, eb = self.next_edges
        with np.errstate(over="ignore", invalid="ignore"):
            grad_a = sum_to(grad / (1.0 + unary_rule(self.power, b - a)), array_of(a).shape) \
                if ea else None
            grad_b = sum_to(grad / (1.0 + unary_rule(self.power, a - b)), array_of(b).shape) \
                if eb else None
        return grad_a, grad_b


class Logaddexp2Backward0(LogaddexpBackward0):
    power = "exp2"


def _quiet(ufunc: Callable[[np.ndarray, np.ndarray], np.ndarray]
           ) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def run(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):  # (+inf and -inf: NaN, as in PyTorch)
            return np.asarray(ufunc(a, b))
    return run


def logaddexp(a: TensorBase, b: TensorBase) -> TensorBase:
    """``log(exp(a) + exp(b))`` without overflow (NumPy's: +inf with anything but -inf is
    +inf, two -inf are -inf); floating tensors of one dtype (the caller promotes)."""
    return _binary("logaddexp", _quiet(np.logaddexp), LogaddexpBackward0, a, b)


def logaddexp2(a: TensorBase, b: TensorBase) -> TensorBase:
    """``log2(2 ** a + 2 ** b)`` without overflow (see ``logaddexp``)."""
    return _binary("logaddexp2", _quiet(np.logaddexp2), Logaddexp2Backward0, a, b)


# -- lerp ----------------------------------------------------------------------------------------

class LerpBackward0(Node):
    """``lerp`` with a number weight: ``grad * (1 - weight)`` to the input, ``grad * weight`` to
    the end."""

    weight: float
    shapes: tuple

    def backward(self, grad):
        ea, eb = self.next_edges
        shape_a, shape_b = self.shapes
        return (sum_to(grad * (1.0 - self.weight), shape_a) if ea else None,
                sum_to(grad * self.weight, shape_b) if eb else None)


class LerpBackward1(Node):
    """``lerp`` with a tensor weight: as ``LerpBackward0``, and ``grad * (end - input)`` to the
    weight."""

    def backward(self, grad):
        a, b, w = self.saved_tensors
        ea, eb, ew = self.next_edges
        return (sum_to(grad * (1.0 - w), a.shape) if ea else None,
                sum_to(grad * w, b.shape) if eb else None,
                sum_to(grad * (b - a), w.shape) if ew else None)


def _lerp_values(a: np.ndarray, b: np.ndarray, w) -> np.ndarray:
    """PyTorch's CPU kernel: ``start + w * (end - start)`` where ``|w| < 0.5``, else
    ``end + (w - 1) * (end - start)`` (so w = 1 gives ``end`` exactly, and an infinite end
    gives NaN there, as PyTorch's), the product and sum fused as its ``fmadd``: float32
    computes them in float64 and rounds once."""
    diff = b - a
    small = np.abs(w) < 0.5
    coeff = np.where(small, w, w - 1) if np.ndim(small) else (w if small else w - 1)
    base = np.where(small, a, b) if np.ndim(small) else (a if small else b)
    if a.dtype == np.float32:  # (float64 products of float32 values are exact)
        return np.asarray(np.asarray(coeff, np.float64) * diff + base, np.float32)
    return np.asarray(coeff * diff + base, a.dtype)


def lerp(input: TensorBase, end: TensorBase, weight) -> TensorBase:
    """``input + weight * (end - input)`` by PyTorch's two-sided formula (``_lerp_values``);
    ``end`` and a tensor ``weight`` must have ``input``'s floating dtype, as in PyTorch."""
    a = input._data
    for name, t in (("end", end), ("weight", weight)):
        if isinstance(t, TensorBase) and t._data.dtype != a.dtype:
            raise RuntimeError(f"expected dtype {cpp_type_name(a.dtype)} for `{name}` but got "
                               f"dtype {cpp_type_name(t._data.dtype)}")
    if not isinstance(end, TensorBase):
        end = wrap(np.asarray(end, a.dtype))
    tensor_weight = isinstance(weight, TensorBase)
    w = weight._data if tensor_weight else a.dtype.type(weight)
    try:
        with np.errstate(invalid="ignore", over="ignore"):
            out = _lerp_values(a, end._data, w)
        np.broadcast_shapes(a.shape, end._data.shape, np.shape(w))
    except ValueError:
        raise broadcast_error("lerp", input, end) from None
    requires = input._requires_grad or end._requires_grad or (
        tensor_weight and weight._requires_grad)
    if not (grad_state.enabled and requires):
        return wrap(out)
    if tensor_weight:
        node: Node = LerpBackward1(input, end, weight)
        node.save_for_backward(input, end, weight)
    else:
        node = LerpBackward0(input, end)
        node.weight, node.shapes = float(weight), (a.shape, end._data.shape)
    return wrap(out, node)
