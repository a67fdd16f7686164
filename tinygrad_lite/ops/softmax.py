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

With the compiled kernels on (family ``softmax``), softmax over the last dim of a contiguous
float32/float64 tensor runs a kernel for each row's max and shift, NumPy's exp, and a kernel for
each row's sum and division (or log); the backward rules are one row-wise kernel pass each.
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import array_sum, is_array, last_axis_dot, normalize_dims, wrap
from .kernel_choice import kernels_for, run, run_kernels

__all__ = ["softmax", "log_softmax", "SoftmaxBackward0", "LogSoftmaxBackward0",
           "last_dim_softmax_kernel", "last_dim_softmax_grad_kernel"]


class SoftmaxBackward0(Node):
    """``dx = y * (g - sum(g * y, dim))`` from the saved result ``y``."""

    dim: int | None

    def backward(self, grad):
        y = self.saved_output()
        if is_array(grad) and is_array(y):
            kern = _last_dim_kernels(y, self.dim, grad)
            if kern is not None:
                return (run_kernels(_softmax_grad_kernel, kern, grad, y),)
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
            kern = _last_dim_kernels(y, self.dim, grad)
            if kern is not None:
                return (run_kernels(_log_softmax_grad_kernel, kern, grad, y),)
            out = np.asarray(np.exp(y))
            out *= array_sum(grad, self.dim, keepdims=True)
            np.subtract(grad, out, out=out)
            return (out,)
        return (grad - y.exp() * grad.sum(self.dim, keepdim=True),)


def _last_dim_kernels(data: np.ndarray, dim: int | None, *others: np.ndarray):
    """The softmax kernels when ``dim`` is the last of ``data`` and the arrays qualify."""
    if dim is None or data.ndim == 0 or dim != data.ndim - 1 or data.shape[-1] == 0:
        return None
    if any(o.shape != data.shape for o in others):
        return None
    return kernels_for("softmax", data, *others)


def _rows(a: np.ndarray) -> np.ndarray:
    """A contiguous array as (rows, last dim)."""
    return a.reshape(-1, a.shape[-1])


def _shift_kernel(kern, data: np.ndarray) -> np.ndarray:
    """``data - max(data, -1)`` by the kernel, in a fresh buffer."""
    out = np.empty_like(data)
    run(kern, "shift_rows", data.size, _rows(data), _rows(out),
        np.empty(out.size // out.shape[-1], out.dtype))
    return out


# The kernel paths: plain arrays in, fresh arrays out (see kernel_choice.run_kernels)


def _softmax_kernel(kern, data: np.ndarray) -> np.ndarray:
    out = _shift_kernel(kern, data)
    np.exp(out, out=out)
    run(kern, "softmax_normalize", out.size, _rows(out))
    return out


def _log_softmax_kernel(kern, data: np.ndarray) -> np.ndarray:
    out = _shift_kernel(kern, data)
    run(kern, "log_softmax_normalize", out.size, _rows(out), _rows(np.exp(out)))
    return out


def _softmax_grad_kernel(kern, grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.empty_like(y)
    run(kern, "softmax_backward", y.size, _rows(grad), _rows(y), _rows(out))
    return out


def _log_softmax_grad_kernel(kern, grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = np.exp(y)
    run(kern, "log_softmax_backward", y.size, _rows(grad), _rows(out))
    return out


def last_dim_softmax_kernel(data: np.ndarray) -> np.ndarray | None:
    """Softmax over the last dim of a plain array by the kernels (a fresh array), or None when
    they do not take it (for the fused attention's scores)."""
    kern = _last_dim_kernels(data, data.ndim - 1) if data.size else None
    return None if kern is None else run_kernels(_softmax_kernel, kern, data)


def last_dim_softmax_grad_kernel(grad: np.ndarray, y: np.ndarray) -> np.ndarray | None:
    """``(grad - sum(grad * y, -1)) * y`` of plain arrays by the kernel (a fresh array), or
    None when it does not take them."""
    kern = _last_dim_kernels(y, y.ndim - 1, grad) if y.size else None
    return None if kern is None else run_kernels(_softmax_grad_kernel, kern, grad, y)


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
    kern = _last_dim_kernels(data, d)
    if kern is not None:
        return _result(run_kernels(_softmax_kernel, kern, data), x, d, SoftmaxBackward0)
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
    kern = _last_dim_kernels(data, d)
    if kern is not None:
        return _result(run_kernels(_log_softmax_kernel, kern, data), x, d, LogSoftmaxBackward0)
    with np.errstate(invalid="ignore"):
        out = _shifted(data, d)
    total = array_sum(np.exp(out), d, keepdims=True)
    with np.errstate(divide="ignore"):  # a slice of -inf: log(0) = -inf, then NaN, as PyTorch
        out -= np.log(total)
    return _result(out, x, d, LogSoftmaxBackward0)
