"""The functional API (``tl.exp(x)``, ``tl.matmul(a, b)``...): primitives re-exported with
PyTorch's signatures, and composite ops built from them (their gradients come for free)."""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np

from . import ops
from .ops import (
    cos,
    div,
    exp,
    log,
    maximum,
    mul,
    neg,
    pow,
    relu,
    sigmoid,
    sin,
    tanh,
    where,
)
from .tensor import Tensor

__all__ = [
    "add", "sub", "mul", "div", "pow", "neg", "exp", "log", "sin", "cos", "relu", "maximum",
    "where", "sum", "mean", "max", "amax", "matmul", "reshape", "permute", "expand", "t",
    "transpose", "squeeze", "unsqueeze", "flatten", "sqrt", "tanh", "sigmoid", "softmax",
    "log_softmax",
]

def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other`` with broadcasting."""
    return ops.add(input, other if alpha == 1 else _scaled(other, alpha))


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other`` with broadcasting."""
    return ops.sub(input, other if alpha == 1 else _scaled(other, alpha))


def _scaled(other: Any, alpha: Any) -> Any:
    return ops.mul(other, alpha) if isinstance(other, Tensor) else other * alpha


# ``max(x, dim)`` returns ``(values, indices)`` like ``torch.return_types.max``.
MaxResult = namedtuple("max", ["values", "indices"])

def _shape_args(shape: tuple) -> tuple:
    """Accept both ``f(2, 3)`` and ``f((2, 3))`` for shape arguments."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


# -- reductions ---------------------------------------------------------------------------------


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    """Sum of all elements, or over ``dim`` (int or tuple)."""
    return ops.reduce_sum(input, dim, keepdim, dtype)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Mean of all elements, or over ``dim`` (int or tuple); floating point tensors only."""
    if input.data.dtype.kind != "f":
        raise RuntimeError(
            f"mean: input dtype must be floating point, got {input.dtype}; convert it first, "
            "e.g. x.float().mean()"
        )
    if dim is None:
        count = input.data.size
    else:
        count = math.prod(input.data.shape[d] for d in ops.normalize_dims(dim, input.data.ndim,
                                                                          "mean"))
    return ops.reduce_sum(input, dim, keepdim) / count


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """Maximum over ``dim`` (int or tuple; all dims by default); ties share the gradient."""
    return ops.amax(input, None if dim == () else dim, keepdim)


def max(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max(x)``: the largest element (ties share the gradient). ``max(x, dim)``: a
    ``(values, indices)`` named tuple, where the gradient goes to the selected index, as in
    PyTorch. ``max(a, b)``: see maximum."""
    if isinstance(dim, Tensor):
        return maximum(input, dim)
    if dim is None:
        return ops.amax(input, None, False, name="max")
    return extremum_with_dim(input, dim, keepdim, "max", MaxResult)


# -- linear algebra -----------------------------------------------------------------------------


def matmul(input: Any, other: Any) -> Tensor:
    """Matrix product with PyTorch's rules: 1-D operands are promoted to a row (left) or column
    (right) and the added dim removed afterwards; batch dims broadcast."""
    a = input if isinstance(input, Tensor) else Tensor._wrap(np.asarray(input))
    b = other if isinstance(other, Tensor) else Tensor._wrap(np.asarray(other))
    if a.data.ndim == 0 or b.data.ndim == 0:
        raise RuntimeError(
            f"matmul: both arguments need at least 1 dimension, got shapes {a.data.shape} and "
            f"{b.data.shape}"
        )
    if a.data.ndim >= 2 and b.data.ndim >= 2:
        return ops.matmul2d(a, b)
    if a.data.shape[-1] != b.data.shape[-2 if b.data.ndim >= 2 else -1]:
        raise RuntimeError(
            f"matmul: shapes {a.data.shape} and {b.data.shape} cannot be multiplied (inner "
            f"dimensions {a.data.shape[-1]} and {b.data.shape[-2 if b.data.ndim >= 2 else -1]} "
            "differ)"
        )
    a2 = a.unsqueeze(0) if a.data.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b.data.ndim == 1 else b
    out = ops.matmul2d(a2, b2)
    if b.data.ndim == 1:
        out = out.squeeze(-1)
    if a.data.ndim == 1:
        out = out.squeeze(-1 if b.data.ndim == 1 else -2)
    return out


# -- shape --------------------------------------------------------------------------------------


def reshape(input: Tensor, *shape: Any) -> Tensor:
    """``input`` with a new shape of the same size; one entry may be -1."""
    return ops.reshape(input, _shape_args(shape))


def permute(input: Tensor, *dims: Any) -> Tensor:
    """``input`` with its dimensions reordered."""
    return ops.permute(input, _shape_args(dims))


def expand(input: Tensor, *sizes: Any) -> Tensor:
    """A broadcast view with new sizes (-1 keeps a size); no copy."""
    return ops.expand(input, _shape_args(sizes))


def t(input: Tensor) -> Tensor:
    """The transpose of a matrix (dims 0 and 1 swapped); 0-D and 1-D tensors come back as is."""
    if input.data.ndim > 2:
        raise RuntimeError(f"t: expects a tensor with <= 2 dimensions, but got shape "
                           f"{input.data.shape}; use transpose(dim0, dim1) or .mT")
    return input if input.data.ndim < 2 else ops.permute(input, (1, 0))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``input`` with dims ``dim0`` and ``dim1`` swapped."""
    ndim = input.data.ndim
    if ndim == 0:
        return input
    d0, d1 = (ops.normalize_dims(d, ndim, "transpose")[0] for d in (dim0, dim1))
    order = list(range(ndim))
    order[d0], order[d1] = d1, d0
    return ops.permute(input, tuple(order))


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    """Remove dims of size 1 (all of them, or those in ``dim`` that have size 1)."""
    shape = input.data.shape
    dims = ops.normalize_dims(dim, input.data.ndim, "squeeze")
    return ops.reshape(input, tuple(n for i, n in enumerate(shape) if not (i in dims and n == 1)))


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a dim of size 1 at position ``dim``."""
    shape = list(input.data.shape)
    (d,) = ops.normalize_dims(dim, len(shape) + 1, "unsqueeze")
    shape.insert(d, 1)
    return ops.reshape(input, tuple(shape))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims ``start_dim..end_dim`` into one."""
    shape = input.data.shape
    if not shape:
        return ops.reshape(input, (1,))
    (s,) = ops.normalize_dims(start_dim, len(shape), "flatten")
    (e,) = ops.normalize_dims(end_dim, len(shape), "flatten")
    return ops.reshape(input, shape[:s] + (-1 if input.data.size else 0,) + shape[e + 1:])


# -- composite math -----------------------------------------------------------------------------


def sqrt(input: Tensor) -> Tensor:
    """Elementwise square root."""
    return pow(input if input.data.dtype.kind == "f" else input.float(), 0.5)


def _float_only(input: Tensor, op: str) -> None:
    if input.data.dtype.kind != "f":
        raise RuntimeError(f"{op}: not implemented for integer or bool tensors (got "
                           f"{input.dtype}); convert with .float() or pass dtype=")


def softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)``, shifted by the max so large logits do not overflow."""
    if dtype is not None:
        input = input.to(dtype)
    _float_only(input, "softmax")
    ops.normalize_dims(dim, input.data.ndim, "softmax")
    shifted = input - ops.amax(input, dim, keepdim=True).detach()
    e = exp(shifted)
    return e / ops.reduce_sum(e, dim, keepdim=True)


def log_softmax(input: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """``log(softmax(x))`` computed stably as ``x - max - log(sum(exp(x - max)))``."""
    if dtype is not None:
        input = input.to(dtype)
    _float_only(input, "log_softmax")
    ops.normalize_dims(dim, input.data.ndim, "log_softmax")
    shifted = input - ops.amax(input, dim, keepdim=True).detach()
    return shifted - log(ops.reduce_sum(exp(shifted), dim, keepdim=True))


# The rest of the functional API lives in themed modules; they import the names above, so they
# are imported last. Every name is re-exported here: ``functions`` is the whole ``tl.*`` API.
from .functions_index import *  # noqa: E402, F403
from .functions_index import __all__ as _index_all  # noqa: E402
from .functions_math import *  # noqa: E402, F403
from .functions_math import __all__ as _math_all  # noqa: E402
from .functions_reduce import *  # noqa: E402, F403
from .functions_reduce import __all__ as _reduce_all  # noqa: E402
from .functions_reduce import extremum_with_dim  # noqa: E402
from .functions_shape import *  # noqa: E402, F403
from .functions_shape import __all__ as _shape_all  # noqa: E402
from .functions_shape import pad  # noqa: E402, F401 - nn.functional.pad's semantics; no tl.pad

__all__ += [*_math_all, *_reduce_all, *_shape_all, *_index_all]
