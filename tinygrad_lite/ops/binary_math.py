"""Binary math primitives beyond arithmetic: ``atan2``, ``hypot`` and ``xlogy``/``xlog1py``,
each forward beside its backward rule (broadcasting and promotion as for ``+``; integer inputs
give float32)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import array_of, broadcast_error, is_array, sum_to, wrap
from .elementwise import cast, promote, where_rule

__all__ = ["atan2", "hypot", "xlogy", "xlog1py", "copysign"]

_FLOAT32 = np.dtype(np.float32)


def _float_operands(input: object, other: object) -> tuple[TensorBase, TensorBase]:
    """Promote the operands to one dtype; integers and bools compute in float32."""
    a, b = promote(input, other)
    if not is_float_dtype(a._data.dtype):
        a, b = cast(a, _FLOAT32), cast(b, _FLOAT32)
    return a, b


def _binary(op: str, ufunc: Callable[[np.ndarray, np.ndarray], np.ndarray],
            node_cls: type[Atan2Backward0 | HypotBackward0 | XlogyBackward0 | CopysignBackward0],
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
