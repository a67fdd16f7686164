"""Binary math primitives beyond arithmetic: ``atan2`` and ``hypot``, each forward beside its
backward rule (broadcasting and promotion as for ``+``; integer inputs give float32)."""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import broadcast_error, sum_to, wrap
from .elementwise import cast, promote

__all__ = ["atan2", "hypot"]

_FLOAT32 = np.dtype(np.float32)


def _float_operands(input: object, other: object) -> tuple[TensorBase, TensorBase]:
    """Promote the operands to one dtype; integers and bools compute in float32."""
    a, b = promote(input, other)
    if not is_float_dtype(a._data.dtype):
        a, b = cast(a, _FLOAT32), cast(b, _FLOAT32)
    return a, b


def _binary(op: str, ufunc: np.ufunc, node_cls: type[Atan2Backward0 | HypotBackward0],
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
    """d atan2(y, x) = (x dy - y dx) / (x^2 + y^2); NaN at the origin, as in PyTorch."""

    needs_output = False

    def backward(self, grad):
        y, x = self.saved_tensors
        ey, ex = self.next_edges
        with np.errstate(divide="ignore", invalid="ignore"):
            share = grad / (x * x + y * y)
            return (sum_to(share * x, y.shape) if ey else None,
                    sum_to(-(share * y), x.shape) if ex else None)


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
