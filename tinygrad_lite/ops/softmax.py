"""softmax and log_softmax as primitives (PyTorch's ``SoftmaxBackward0`` and
``LogSoftmaxBackward0``).

Composed of a max, a subtraction, exp, a sum and a division, softmax recorded four nodes and its
backward made about nine passes over the input (the division's two gradients, the sum's
broadcast, exp's product, their accumulation). Here the forward writes into one buffer and only
the result is saved; the backward is three passes and one reduction:
- softmax: ``y = exp(x - max) / sum``, ``dx = y * (g - sum(g * y))``;
- log_softmax: ``y = x - max - log(sum(exp(x - max)))``, ``dx = g - exp(y) * sum(g)``.
The rules are written with operators too, so under ``create_graph`` they record and
differentiate again. A NaN anywhere in a slice makes the slice NaN, and an empty tensor gives an
empty result, as in PyTorch.
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import array_sum, is_array, last_axis_dot, normalize_dims, wrap

__all__ = ["softmax", "log_softmax", "SoftmaxBackward0", "LogSoftmaxBackward0"]


class SoftmaxBackward0(Node):
    """``dx = y * (g - sum(g * y, dim))`` from the saved result ``y``."""

    dim: int | None

    def backward(self, grad):
        y = self.saved_output()
        if is_array(grad) and is_array(y):
            if self.dim is not None and self.dim == y.ndim - 1:  # the last dim: one einsum
                out = np.subtract(grad, last_axis_dot(grad, y))
            else:
                out = np.asarray(np.multiply(grad, y))  # (0-d operands give a NumPy scalar)
                np.subtract(grad, array_sum(out, self.dim, keepdims=True), out=out)
            out *= y
            return (out,)
        return (y * (grad - (grad * y).sum(self.dim, keepdim=True)),)


class LogSoftmaxBackward0(Node):
    """``dx = g - exp(y) * sum(g, dim)`` from the saved result ``y``."""

    dim: int | None

    def backward(self, grad):
        y = self.saved_output()
        if is_array(grad) and is_array(y):
            out = np.asarray(np.exp(y))
            out *= array_sum(grad, self.dim, keepdims=True)
            np.subtract(grad, out, out=out)
            return (out,)
        return (grad - y.exp() * grad.sum(self.dim, keepdim=True),)


def _dim(dim: int, ndim: int, op: str) -> int:
    """``dim`` checked and made non-negative (0 for a 0-d tensor, which takes -1 and 0)."""
    dims = normalize_dims(dim, ndim, op)
    return dims[0] if dims else 0


def _shifted(data: np.ndarray, dim: int) -> np.ndarray:
    """``data - max(data, dim)`` in a fresh buffer (the max keeps large inputs from
    overflowing exp)."""
    return np.subtract(data, data.max(axis=dim, keepdims=True))


def _result(out: np.ndarray, x: TensorBase, dim: int,
            node_cls: type[SoftmaxBackward0 | LogSoftmaxBackward0]) -> TensorBase:
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = node_cls(x)
    node.dim = dim if out.ndim else None  # a 0-d tensor's sums run over all (of one) elements
    result = wrap(out, node)
    node.save_output(result)
    return result


def softmax(x: TensorBase, dim: int) -> TensorBase:
    """``exp(x) / sum(exp(x), dim)`` of a floating tensor, computed from ``x - max``."""
    data = x._data
    d = _dim(dim, data.ndim, "softmax")
    if data.ndim == 0 or data.size == 0:  # one element is 1 (NaN stays NaN); empty stays empty
        out = np.asarray(np.exp(data - data)) if data.ndim == 0 else np.empty_like(data)
        return _result(out, x, d, SoftmaxBackward0)
    with np.errstate(invalid="ignore"):  # inf - inf in a slice holding inf: NaN, as PyTorch
        out = _shifted(data, d)
    np.exp(out, out=out)
    out /= array_sum(out, d, keepdims=True)
    return _result(out, x, d, SoftmaxBackward0)


def log_softmax(x: TensorBase, dim: int) -> TensorBase:
    """``x - log(sum(exp(x), dim))`` of a floating tensor, computed from ``x - max``."""
    data = x._data
    d = _dim(dim, data.ndim, "log_softmax")
    if data.ndim == 0 or data.size == 0:  # one element is 0 (NaN stays NaN); empty stays empty
        out = data - data if data.ndim == 0 else np.empty_like(data)
        return _result(np.asarray(out), x, d, LogSoftmaxBackward0)
    with np.errstate(invalid="ignore"):
        out = _shifted(data, d)
    total = array_sum(np.exp(out), d, keepdims=True)
    with np.errstate(divide="ignore"):  # a slice of -inf: log(0) = -inf, then NaN, as PyTorch
        out -= np.log(total)
    return _result(out, x, d, LogSoftmaxBackward0)
