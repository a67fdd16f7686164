"""Product and cumulative primitives: prod, cumsum, cumprod.

Their gradients divide by the input where it is nonzero (so they stay differentiable under
create_graph); where the input has zeros, the exact "product of the others" is computed in NumPy
as a constant, which is right to first order (PyTorch also special-cases zeros).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import array_of, constant, is_array, normalize_dims, wrap
from .elementwise import cast

_INT64 = np.dtype(np.int64)


def _prod_of_others(x: np.ndarray, dims: tuple) -> np.ndarray:
    """For each element, the product of the other elements of its reduction group (exact, no
    division: works with zeros)."""
    rest = [d for d in range(x.ndim) if d not in dims]
    perm = rest + list(dims)
    xt = x.transpose(perm)
    flat = xt.reshape(xt.shape[:len(rest)] + (-1,))
    ones = np.ones(flat.shape[:-1] + (1,), x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], -1), -1)
    right = np.cumprod(np.concatenate([ones, flat[..., :0:-1]], -1), -1)[..., ::-1]
    return (left * right).reshape(xt.shape).transpose(np.argsort(perm))


class ProdBackward0(Node):
    dims: tuple[int, ...]
    kept_shape: tuple[int, ...]

    def backward(self, grad):
        (x,) = self.saved_tensors
        g = grad.reshape(self.kept_shape)
        xa = array_of(x)
        if (xa == 0).any():
            return (g * constant(_prod_of_others(xa, self.dims), grad),)
        return (g * self.saved_output().reshape(self.kept_shape) / x,)


class ProdBackward1(ProdBackward0):
    """``prod(dim)`` (PyTorch's name)."""


def prod(x: TensorBase, dim=None, keepdim: bool = False, dtype=None) -> TensorBase:
    """Product over ``dim`` (an int, or None for all elements); bool and int give int64."""
    if dtype is not None:
        x = cast(x, dtypes.to_dtype(dtype).np)
    elif x._data.dtype.kind in "biu":
        x = cast(x, _INT64)
    if dim is not None and not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod: dim must be an int or None, got {dim!r}")
    dims = normalize_dims(dim, x._data.ndim, "prod")
    out = np.asarray(x._data.prod(axis=dims, keepdims=keepdim))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = ProdBackward0(x) if dim is None else ProdBackward1(x)
    node.save_for_backward(x)
    node.dims = dims
    node.kept_shape = tuple(1 if i in dims else n for i, n in enumerate(x._data.shape))
    result = wrap(out, node)
    node.save_output(result)
    return result


def _scan_input(x: TensorBase, dim: int, dtype, op: str) -> tuple[TensorBase, int]:
    if dtype is not None:
        x = cast(x, dtypes.to_dtype(dtype).np)
    elif x._data.dtype.kind in "biu":
        x = cast(x, _INT64)
    (d,) = normalize_dims(dim, x._data.ndim, op)
    return x, d


class CumsumBackward0(Node):
    dim: int

    def backward(self, grad):
        return (reverse_cumsum(grad, self.dim) if grad.ndim else grad,)


def cumsum(x: TensorBase, dim: int, dtype=None) -> TensorBase:
    """Cumulative sum along ``dim``."""
    x, d = _scan_input(x, dim, dtype, "cumsum")
    out = np.cumsum(x._data, axis=d) if x._data.ndim else x._data.copy()
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = CumsumBackward0(x)
    node.dim = d
    return wrap(out, node)


def _cumprod_grad_with_zeros(x: np.ndarray, grad: np.ndarray, dim: int) -> np.ndarray:
    """d(sum(grad * cumprod(x)))/dx exactly, in O(n^2) along ``dim`` (used only with zeros)."""
    xm, gm = np.moveaxis(x, dim, -1), np.moveaxis(grad, dim, -1)
    out = np.empty_like(xm)
    for k in range(xm.shape[-1]):
        others = xm.copy()
        others[..., k] = 1
        out[..., k] = (np.cumprod(others, -1)[..., k:] * gm[..., k:]).sum(-1)
    return np.moveaxis(out, -1, dim)


class CumprodBackward0(Node):
    dim: int

    def backward(self, grad):
        (x,) = self.saved_tensors
        if not grad.ndim:
            return (grad,)
        xa = array_of(x)
        if (xa == 0).any():
            if not is_array(grad):
                # the exact rule at zeros is computed in NumPy: differentiating it again would
                # silently give 0, so refuse instead
                raise RuntimeError(
                    "cumprod: create_graph=True (differentiating twice) through an input that "
                    f"contains zeros is not supported (input shape {xa.shape}); first-order "
                    "gradients are exact"
                )
            exact = _cumprod_grad_with_zeros(xa, array_of(grad), self.dim)
            return (constant(exact, grad),)
        return (reverse_cumsum(grad * self.saved_output(), self.dim) / x,)


def cumprod(x: TensorBase, dim: int, dtype=None) -> TensorBase:
    """Cumulative product along ``dim``."""
    x, d = _scan_input(x, dim, dtype, "cumprod")
    out = np.cumprod(x._data, axis=d) if x._data.ndim else x._data.copy()
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = CumprodBackward0(x)
    node.save_for_backward(x)
    node.dim = d
    result = wrap(out, node)
    node.save_output(result)
    return result


# -- backward-rule helpers that build on the ops above (arrays in a plain backward, tensors
# under create_graph; see common.py) --------------------------------------------------------

def reverse_cumsum(x, dim: int):
    """Sums from the end along ``dim`` (the adjoint of a cumulative sum)."""
    flip = (slice(None),) * dim + (slice(None, None, -1),)
    if is_array(x):
        return np.cumsum(x[flip], axis=dim)[flip]
    return cumsum(x[flip], dim)[flip]
