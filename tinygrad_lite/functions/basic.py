"""The functional API (``tl.exp(x)``, ``tl.matmul(a, b)``...): primitives re-exported with
PyTorch's signatures, and composite ops built from them (their gradients come for free)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.size import sizes_or_keyword
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import (
    cos,
    elementwise,
    exp,
    log,
    maximum,
    mul,
    neg,
    pow,
    relu,
    return_types,
    sigmoid,
    sin,
    tanh,
)
from ..ops.common import is_half_float
from ..ops.elementwise import SqrtBackward0, bfloat16_in_float32
from ..ops.movement import (
    IndexBackward0,
    SqueezeBackward0,
    SqueezeBackward1,
    SqueezeBackward2,
    TBackward0,
    TransposeBackward0,
    UnsqueezeReshapeBackward0,
)
from ..ops.reduce import reduce_mean
from .registry import declare, public

__all__ = [
    "add", "sub", "mul", "pow", "neg", "exp", "log", "sin", "cos", "relu", "maximum",
    "where", "sum", "mean", "max", "amax", "matmul", "reshape", "permute", "expand", "t",
    "transpose", "squeeze", "unsqueeze", "flatten", "sqrt", "tanh", "sigmoid", "softmax",
    "log_softmax", "multiply", "subtract", "rsub",
]

declare("tanh", "log", "cos", "sigmoid", "sin", out=True, inplace=True, torch_inplace=True)

declare("maximum", out=True, inplace=True)

declare("neg", "pow", "mul", "exp", out=True)


@public(out=True)
def where(condition: Any, input: Any = None, other: Any = None) -> Any:
    """Elementwise ``input`` where ``condition`` is true, else ``other``; with the condition
    alone, its nonzero indices as a tuple (``nonzero(condition, as_tuple=True)``)."""
    if input is None and other is None:
        data = condition._data if isinstance(condition, TensorBase) else np.asarray(condition)
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(data)))
    if input is None or other is None:
        raise TypeError("where() takes the condition alone or with both input and other")
    return ops.where(condition, input, other)


@public(out=True)
def add(input: Any, other: Any, *, alpha: Any = 1) -> TensorBase:
    """``input + alpha * other`` with broadcasting."""
    if type(alpha) is int and alpha == 1:  # (a float or bool 1 is still checked)
        return ops.add(input, other)
    return ops.add(*_scaled_operands(input, other, alpha))


@public(out=True)
def sub(input: Any, other: Any, *, alpha: Any = 1) -> TensorBase:
    """``input - alpha * other`` with broadcasting."""
    if type(alpha) is int and alpha == 1:  # (a float or bool 1 is still checked)
        return ops.sub(input, other)
    elementwise.refuse_bool_sub(input, other)  # before the scaling hides a bool operand
    return ops.sub(*_scaled_operands(input, other, alpha))


def _scaled_operands(input: Any, other: Any, alpha: Any) -> tuple[Any, Any]:
    """``input`` and ``alpha * other`` for add/sub, as PyTorch computes them: the result dtype
    is that of ``input`` and ``other`` alone (``uint8 + bool * 2`` stays uint8), both are
    promoted to it before ``other`` is scaled (``float32 + uint8(200) * 2`` is 401, not 145),
    and ``alpha`` must fit it (no float alpha for integers, bool alpha only for bools)."""
    if not (isinstance(input, TensorBase) or isinstance(other, TensorBase)):
        return input, other * alpha
    a, b = ops.promote(input, other)
    kind = a._data.dtype.kind
    if kind in "iub" and isinstance(alpha, (float, np.floating)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if kind != "b" and isinstance(alpha, (bool, np.bool_)):
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    # a bool result: alpha is cast to bool, and the product is a logical and
    return a, ops.mul(b, bool(alpha) if kind == "b" else alpha)


# ``max(x, dim)`` returns ``(values, indices)``: ``tl.return_types.max``, as PyTorch's
# ``torch.return_types.max`` (printed as ``tinygrad_lite.return_types.max(...)``).
MaxResult = return_types.max


def _shape_args(shape: tuple) -> tuple:
    """Accept both ``f(2, 3)`` and ``f((2, 3))`` for shape arguments."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        return tuple(shape[0])
    return tuple(shape)


# -- reductions ---------------------------------------------------------------------------------


@public(out=True)
def sum(input: TensorBase, dim: Any = None, keepdim: bool = False, *,
        dtype: Any = None) -> TensorBase:  # noqa: A001
    """Sum of all elements, or over ``dim`` (int or tuple)."""
    if not isinstance(input, TensorBase) and is_sparse(input):
        return input.sum(dim, keepdim, dtype)
    return ops.reduce_sum(input, dim, keepdim, dtype)


@public(out=True)
@bfloat16_in_float32
def mean(input: TensorBase, dim: Any = None, keepdim: bool = False, *,
         dtype: Any = None) -> TensorBase:
    """Mean of all elements, or over ``dim`` (int or tuple); floating point tensors (or a
    floating ``dtype`` to compute in) only."""
    if dtype is not None:
        target = dtypes.to_dtype(dtype).np
        if is_half_float(target) and not is_half_float(input._data.dtype):
            # PyTorch sums a wider input into float32, divides, then rounds once to float16 or
            # bfloat16 (casting the input first would round every element)
            return ops.cast(reduce_mean(ops.cast(input, np.dtype(np.float32)), dim, keepdim),
                            target)
        input = ops.cast(input, target)
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(
            f"mean: input dtype must be floating point, got {input.dtype}; convert it first, "
            "e.g. x.float().mean()"
        )
    return reduce_mean(input, dim, keepdim)


@public(out=True)
def amax(input: TensorBase, dim: Any = (), keepdim: bool = False) -> TensorBase:
    """Maximum over ``dim`` (int or tuple; all dims by default); ties share the gradient."""
    return ops.amax(input, None if dim == () else dim, keepdim)


@public(out=True)
def max(input: TensorBase, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max(x)``: the largest element (ties share the gradient). ``max(x, dim)``: a
    ``(values, indices)`` named tuple, where the gradient goes to the selected index, as in
    PyTorch. ``max(a, b)``: see maximum."""
    if isinstance(dim, TensorBase):
        return maximum(input, dim)
    if dim is None:
        return ops.amax(input, None, False, name="max")
    return extremum_with_dim(input, dim, keepdim, "max", MaxResult)


# -- linear algebra -----------------------------------------------------------------------------


def is_sparse(x: Any) -> bool:
    """Whether ``x`` is a sparse tensor (``tl.sparse``, a layer above: recognised by its
    ``is_sparse`` flag, as a dense tensor's is False)."""
    return not isinstance(x, TensorBase) and getattr(x, "is_sparse", False) is True


def sparse_matmul(input: Any, other: Any) -> Any:
    """A matrix product with a sparse operand, through the sparse matrix's own ``mm``:
    ``dense @ sparse`` as ``(sparse^T @ dense^T)^T``."""
    if is_sparse(input):
        return input.mm(other)
    if not isinstance(input, TensorBase) or input.ndim not in (1, 2):
        raise RuntimeError(f"matmul: a dense operand of a sparse product must be a 1-D or 2-D "
                           f"tensor, got {type(input).__name__} of shape "
                           f"{tuple(getattr(input, 'shape', ()))}")
    if input.ndim == 1:
        return other.t().mm(input)
    return other.t().mm(input.t()).t()


@public(out=True)
def matmul(input: Any, other: Any) -> TensorBase:
    """Matrix product with PyTorch's rules: 1-D operands are promoted to a row (left) or column
    (right) and the added dim removed afterwards; batch dims broadcast."""
    if is_sparse(input) or is_sparse(other):
        return sparse_matmul(input, other)
    a = input if isinstance(input, TensorBase) else wrap(np.asarray(input))
    b = other if isinstance(other, TensorBase) else wrap(np.asarray(other))
    if a._data.ndim == 0 or b._data.ndim == 0:
        raise RuntimeError(
            f"matmul: both arguments need at least 1 dimension, got shapes {a._data.shape} and "
            f"{b._data.shape}"
        )
    if a._data.ndim >= 2 and b._data.ndim >= 2:
        return ops.matmul2d(a, b)
    if a._data.shape[-1] != b._data.shape[-2 if b._data.ndim >= 2 else -1]:
        raise RuntimeError(
            f"matmul: shapes {a._data.shape} and {b._data.shape} cannot be multiplied (inner "
            f"dimensions {a._data.shape[-1]} and {b._data.shape[-2 if b._data.ndim >= 2 else -1]} "
            "differ)"
        )
    a2 = a.unsqueeze(0) if a._data.ndim == 1 else a
    b2 = b.unsqueeze(-1) if b._data.ndim == 1 else b
    out = ops.matmul2d(a2, b2)
    if b._data.ndim == 1:
        out = out.squeeze(-1)
    if a._data.ndim == 1:
        out = out.squeeze(-1 if b._data.ndim == 1 else -2)
    return out


# -- shape --------------------------------------------------------------------------------------


def reshape(input: TensorBase, *sizes: Any, shape: Any = None) -> TensorBase:
    """``input`` with a new shape of the same size; one entry may be -1."""
    if shape is not None:
        sizes = sizes_or_keyword(sizes, shape, "reshape", "shape")
    shape = _shape_args(sizes)
    if shape and min(shape) < -1:
        i = next(i for i, n in enumerate(shape) if n < -1)
        raise RuntimeError(f"reshape: invalid shape dimension {shape[i]} at index {i} of shape "
                           f"{list(shape)} (input of shape {tuple(input._data.shape)})")
    return ops.reshape(input, shape)


def permute(input: TensorBase, *order: Any, dims: Any = None) -> TensorBase:
    """``input`` with its dimensions reordered."""
    if dims is not None:
        order = sizes_or_keyword(order, dims, "permute", "dims")
    elif not order:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return ops.permute(input, _shape_args(order))


def expand(input: TensorBase, *sizes: Any, size: Any = None) -> TensorBase:
    """A broadcast view with new sizes (-1 keeps a size); no copy."""
    if size is not None:
        sizes = sizes_or_keyword(sizes, size, "expand", "size")
    return ops.expand(input, _shape_args(sizes))


@public(inplace='shape')
def t(input: TensorBase) -> TensorBase:
    """The transpose of a matrix (dims 0 and 1 swapped); 0-D and 1-D tensors come back as is."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t: expects a tensor with <= 2 dimensions, but got shape "
                           f"{input._data.shape}; use transpose(dim0, dim1) or .mT")
    if input._data.ndim < 2:  # a view of the same shape, as PyTorch's (not ``input`` itself)
        return ops.permute(input, tuple(range(input._data.ndim)), TBackward0)
    return ops.permute(input, (1, 0), TBackward0)


@public(inplace='shape')
def transpose(input: TensorBase, dim0: int, dim1: int) -> TensorBase:
    """``input`` with dims ``dim0`` and ``dim1`` swapped."""
    ndim = input._data.ndim
    if ndim == 0:
        for d in (dim0, dim1):  # 0 and -1 only, as in PyTorch
            ops.normalize_dims(d, 0, "transpose")
        return input
    d0, d1 = (ops.normalize_dims(d, ndim, "transpose")[0] for d in (dim0, dim1))
    order = list(range(ndim))
    order[d0], order[d1] = d1, d0
    return ops.permute(input, tuple(order), TransposeBackward0)


@public(inplace='shape')
def squeeze(input: TensorBase, dim: Any = None) -> TensorBase:
    """Remove dims of size 1 (all of them, or those in ``dim`` that have size 1)."""
    shape = input._data.shape
    dims = ops.normalize_dims(dim, input._data.ndim, "squeeze")
    node = SqueezeBackward0 if dim is None else SqueezeBackward2 if isinstance(
        dim, (tuple, list)) else SqueezeBackward1
    return ops.reshape(input, tuple(n for i, n in enumerate(shape) if not (i in dims and n == 1)),
                       node)


@public(inplace='shape')
def unsqueeze(input: TensorBase, dim: int) -> TensorBase:
    """Insert a dim of size 1 at position ``dim``."""
    shape = list(input._data.shape)
    if not isinstance(dim, (int, np.integer)):  # (a tuple would pass the dims check below)
        if isinstance(dim, bool) or not hasattr(dim, "__index__"):
            raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not "
                            f"{type(dim).__name__}")
        dim = dim.__index__()
    (d,) = ops.normalize_dims(dim, len(shape) + 1, "unsqueeze")
    shape.insert(d, 1)
    return ops.reshape(input, tuple(shape), UnsqueezeReshapeBackward0)


def flatten(input: TensorBase, start_dim: int = 0, end_dim: int = -1) -> TensorBase:
    """Merge dims ``start_dim..end_dim`` into one."""
    shape = input._data.shape
    (s,) = ops.normalize_dims(start_dim, len(shape), "flatten") or (0,)
    (e,) = ops.normalize_dims(end_dim, len(shape), "flatten") or (0,)
    if not shape:
        return ops.reshape(input, (1,))
    if s > e:
        raise RuntimeError(f"flatten() has invalid args: start_dim cannot come after end_dim "
                           f"(start_dim={start_dim}, end_dim={end_dim}, shape {shape})")
    if s == e:  # nothing to merge: the tensor itself, as PyTorch's
        return input
    merged = math.prod(shape[s:e + 1])  # explicit: -1 is ambiguous when a size is 0
    return ops.reshape(input, shape[:s] + (merged,) + shape[e + 1:])


# -- composite math -----------------------------------------------------------------------------


@public(out=True, inplace=True, torch_inplace=True)
def sqrt(input: TensorBase) -> TensorBase:
    """Elementwise square root."""
    if not is_float_dtype(input._data.dtype):  # integers: the default float dtype
        input = ops.cast(input, dtypes.get_default_dtype().np)
    return SqrtBackward0.rename(pow(input, 0.5))


def _float_only(input: TensorBase, op: str) -> None:
    if not is_float_dtype(input._data.dtype):  # (PyTorch's NotImplementedError: a RuntimeError)
        raise NotImplementedError(f"{op}: not implemented for integer or bool tensors (got "
                                  f"{input.dtype}); convert with .float() or pass dtype=")


@public(out=True)
def softmax(input: TensorBase, dim: int, dtype: Any = None) -> TensorBase:
    """``exp(x) / exp(x).sum(dim)``, shifted by the max so large logits do not overflow."""
    if dtype is not None:  # (before the bfloat16 rounding: softmax(bf16, dtype=float32) is
        input = input.to(dtype)  # float32)
    return _softmax(input, dim)


@bfloat16_in_float32
def _softmax(input: TensorBase, dim: int) -> TensorBase:
    _float_only(input, "softmax")
    return ops.softmax(input, dim)


@public(out=True)
def log_softmax(input: TensorBase, dim: int, dtype: Any = None) -> TensorBase:
    """``log(softmax(x))`` computed stably as ``x - max - log(sum(exp(x - max)))``."""
    if dtype is not None:
        input = input.to(dtype)
    return _log_softmax(input, dim)


@bfloat16_in_float32
def _log_softmax(input: TensorBase, dim: int) -> TensorBase:
    _float_only(input, "log_softmax")
    return ops.log_softmax(input, dim)


def extremum_with_dim(input: TensorBase, dim: Any, keepdim: bool, name: str, result: type) -> Any:
    """``max``/``min`` over one dim: ``(values, indices)``; the gradient goes to the selected
    index only (the first of ties, as NumPy's argmax picks), as in PyTorch."""
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}: dim must be an int, got {dim!r}; use a{name} to reduce "
                        "several dims")
    dims = ops.normalize_dims(dim, input._data.ndim, name)  # (checked: 0 or -1 for a 0-d one)
    if input._data.ndim == 0:
        return result(input, wrap(np.asarray(0)))
    d = dims[0]
    if input._data.shape[d] == 0:
        raise IndexError(f"{name}: cannot reduce over dimension {d} of size 0 "
                         f"({input._data.shape})")
    pick = np.argmin if name == "min" else np.argmax
    index = pick(input._data, axis=d, keepdims=keepdim)
    grid = ops.common.open_grid(index.shape)  # the other dims, in the result's shape
    if keepdim:
        grid[d] = index
    else:
        grid.insert(d, index)
    values = ops.getitem(input, tuple(grid))  # one gather: PyTorch's MaxBackward0/MinBackward0
    return result((MinBackward0 if name == "min" else MaxBackward0).rename(values), wrap(index))


class MaxBackward0(IndexBackward0):
    """``max(x, dim)``: its values gathered at the indices (PyTorch's name)."""


class MinBackward0(IndexBackward0):
    """``min(x, dim)``."""


# PyTorch's NumPy-style spellings
multiply, subtract = mul, sub
declare("multiply", "subtract", inplace=True)


def rsub(input: Any, other: Any, *, alpha: Any = 1) -> TensorBase:
    """``other - alpha * input`` (``sub`` with the operands swapped)."""
    if type(alpha) is int and alpha == 1:
        return ops.sub(other, input)
    elementwise.refuse_bool_sub(other, input)
    return ops.sub(*_scaled_operands(other, input, alpha))
