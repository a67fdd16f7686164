"""The Euclidean norm and the square root that makes a standard deviation, as nodes with
PyTorch's backward rules, zero results included.

At a zero result both derivatives are 0/0. PyTorch's rules replace it by 0 (a subgradient) with
``masked_fill`` *after* the division: the first derivative is 0, but differentiating it again
goes back through that division, and what PyTorch reports there is NaN (the second derivative
of ``norm`` at 0, of ``std`` when the upstream gradient itself depends on the input). The rules
here are written the same way, in operators, so under ``create_graph`` they are recorded and
give the same values, the NaN included: a NaN PyTorch reports is information, not noise.

- 2-norm: ``grad * (x / norm).masked_fill(norm == 0, 0)`` (``norm_backward``, p = 2);
- std: ``(grad / (2 * std)).masked_fill(std == 0, 0)`` into the variance's own backward
  (``std_backward``).
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import array_of, array_sum, constant, is_array, normalize_dims, wrap
from .elementwise import where_rule

__all__ = ["euclidean_norm", "masked_sqrt", "nonzero_count"]


def _kept(shape: tuple, dims: tuple) -> tuple:
    return tuple(1 if i in dims else n for i, n in enumerate(shape))


class NormBackward1(Node):
    """``grad * (x / norm)``, 0 where the norm is 0."""

    dims: tuple
    keepdim: bool

    def backward(self, grad):
        (x,) = self.saved_tensors
        norm = self.saved_output()
        shape = _kept(array_of(x).shape, self.dims)
        if not self.keepdim:
            grad, norm = grad.reshape(shape), norm.reshape(shape)
        zero = array_of(norm) == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            if is_array(grad):  # the small factor first: one pass over x (last-bit apart)
                factor = grad / norm
                if zero.any():
                    factor = np.where(zero, np.zeros((), factor.dtype), factor)
                return (x * factor,)
            return (grad * where_rule(constant(zero, grad), 0.0, x / norm),)


def euclidean_norm(x: TensorBase, dim, keepdim: bool) -> TensorBase:
    """``sqrt(sum(x * x))`` over ``dim`` (all dims for None) of a floating tensor."""
    data = x._data
    dims = normalize_dims(dim, data.ndim, "norm")
    out = np.sqrt(np.asarray(array_sum(data * data, dims, keepdim), dtype=data.dtype))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = NormBackward1(x)
    node.dims, node.keepdim = dims, keepdim
    node.save_for_backward(x)
    result = wrap(out, node)
    node.save_output(result)
    return result


class LinalgVectorNormBackward0(Node):
    """The 0-"norm" (the number of nonzero entries): a step function of ``x``. The result stays
    in the graph (``backward`` through it works) and sends no gradient back: PyTorch's rule
    returns an undefined gradient, so ``x.grad`` stays None unless another path fills it."""

    def backward(self, grad):
        return (None,)


def nonzero_count(x: TensorBase, dim, keepdim: bool) -> TensorBase:
    """The 0-norm over ``dim`` (all dims for None): how many entries are nonzero (NaN counts),
    in ``x``'s floating dtype."""
    data = x._data
    dims = normalize_dims(dim, data.ndim, "norm")
    out = np.asarray(np.count_nonzero(data, axis=dims or None, keepdims=keepdim), data.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    return wrap(out, LinalgVectorNormBackward0(x))


class StdBackward0(Node):
    """``grad / (2 * sqrt(v))``, 0 where the result is 0; the variance's rule follows."""

    def backward(self, grad):
        root = self.saved_output()
        zero = array_of(root) == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            if is_array(grad):
                return (np.where(zero, np.zeros((), grad.dtype), grad / (root * 2)),)
            return (where_rule(constant(zero, grad), 0.0, grad / (root * 2)),)


def masked_sqrt(variance: TensorBase) -> TensorBase:
    """``sqrt(variance)`` with PyTorch's std rule at 0 (see the module's docstring)."""
    with np.errstate(invalid="ignore"):
        out = np.asarray(np.sqrt(variance._data))
    if not (grad_state.enabled and variance._requires_grad):
        return wrap(out)
    node = StdBackward0(variance)
    result = wrap(out, node)
    node.save_output(result)
    return result
