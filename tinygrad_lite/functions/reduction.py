"""The functional API, reductions and linear algebra beyond the basics of ``functions.py``."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..dtypes import is_float_dtype
from ..ops import return_types, scan, unary
from ..ops.einsum import einsum as _einsum_op
from ..ops.elementwise import bfloat16_in_float32
from ..ops.norm import euclidean_norm, masked_sqrt
from ..ops.reduce import MmBackward0
from .basic import extremum_with_dim, is_sparse, matmul, sparse_matmul
from .linalg.norms import matrix_norm, vector_norm
from .registry import public

__all__ = [
    "min", "amin", "argmax", "argmin", "prod", "cumsum", "cumprod", "var", "std", "logsumexp",
    "norm", "all", "any", "mm", "bmm", "mv", "dot", "outer", "einsum", "aminmax", "std_mean",
    "var_mean", "dist",
]

# ``tl.return_types.min`` / ``aminmax``, as PyTorch's ``torch.return_types`` (see basic.py).
MinResult = return_types.min
AminmaxResult = return_types.aminmax


@public(out=True)
def min(input: TensorBase, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``min(x)``: the smallest element (ties share the gradient). ``min(x, dim)``: a
    ``(values, indices)`` named tuple. ``min(a, b)``: see minimum."""
    if isinstance(dim, TensorBase):
        return ops.minimum(input, dim)
    if dim is None:
        return ops.amax(input, None, False, name="min")
    return extremum_with_dim(input, dim, keepdim, "min", MinResult)


@public(out=True)
def amin(input: TensorBase, dim: Any = (), keepdim: bool = False) -> TensorBase:
    """Minimum over ``dim`` (int or tuple; all dims by default); ties share the gradient."""
    return ops.amax(input, None if dim == () else dim, keepdim, name="amin")


def _arg(pick, name: str, input: TensorBase, dim: Any, keepdim: bool) -> TensorBase:
    if input._data.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    if dim is not None:
        ops.common.require_int_dim(dim, name)
    if input._data.size == 0:
        dims = () if dim is None else ops.normalize_dims(dim, input._data.ndim, name)
        ops.reduce.empty_reduction_check(input._data.shape, dim, dims, name, IndexError)
    if dim is None:
        out = np.asarray(pick(input._data))
        return wrap(out.reshape((1,) * input._data.ndim) if keepdim else out)
    dims = ops.normalize_dims(dim, input._data.ndim, name)  # (checked: 0 or -1 for a 0-d one)
    if input._data.ndim == 0:
        return wrap(np.asarray(0))
    return wrap(np.asarray(pick(input._data, axis=dims[0], keepdims=keepdim)))


@public(out=True)
def argmax(input: TensorBase, dim: int | None = None, keepdim: bool = False) -> TensorBase:
    """Index of the largest element (of the flattened tensor when ``dim`` is None); int64."""
    return _arg(np.argmax, "argmax", input, dim, keepdim)


@public(out=True)
def argmin(input: TensorBase, dim: int | None = None, keepdim: bool = False) -> TensorBase:
    """Index of the smallest element (of the flattened tensor when ``dim`` is None); int64."""
    return _arg(np.argmin, "argmin", input, dim, keepdim)


@public(out=True)
def prod(input: TensorBase, dim: int | None = None, keepdim: bool = False, *,
         dtype: Any = None) -> TensorBase:
    """Product of all elements, or over ``dim``."""
    return scan.prod(input, dim, keepdim, dtype)


@public(out=True, inplace=True)
def cumsum(input: TensorBase, dim: int, *, dtype: Any = None) -> TensorBase:
    """Cumulative sum along ``dim``."""
    return scan.cumsum(input, dim, dtype)


@public(out=True, inplace=True)
def cumprod(input: TensorBase, dim: int, *, dtype: Any = None) -> TensorBase:
    """Cumulative product along ``dim``."""
    return scan.cumprod(input, dim, dtype)


def _require_float(input: TensorBase, op: str) -> None:
    """PyTorch's error for var/std (and their _mean forms) of a non-floating tensor."""
    if not is_float_dtype(input._data.dtype):
        what = "std and var" if op in ("var", "std") else op
        raise RuntimeError(f"{what} only support floating point and complex dtypes")


def _variance(input: TensorBase, dim: Any, unbiased: bool | None, keepdim: bool,
              correction: float | None, op: str) -> TensorBase:
    """var's computation for ``op`` (var, std, var_mean, std_mean: the name its warning gives).

    An empty ``dim`` (``()``, ``[]``) reduces all dims, as PyTorch's does. Where the degrees of
    freedom ``count - correction`` are <= 0 the result is inf or NaN and PyTorch warns."""
    _require_float(input, op)
    if correction is None:
        correction = 0 if unbiased is False else 1
    dims = ops.normalize_dims(dim, input._data.ndim, op) or tuple(range(input._data.ndim))
    count = int(np.prod([input._data.shape[d] for d in dims], dtype=np.int64))
    # PyTorch counts the elements per output as 0 when the output is empty, so an empty input
    # always warns
    if (count if input._data.size else 0) - correction <= 0:
        warn(f"{op}(): degrees of freedom is <= 0. Correction should be strictly less than the "
             "reduction factor (input numel divided by output numel).")
    centred = input - ops.reduce_sum(input, dims, True) / builtins.max(count, 1)
    total = ops.reduce_sum(centred * centred, dims, keepdim)
    return total / builtins.max(count - correction, 0)


@public(out=True)
@bfloat16_in_float32
def var(input: TensorBase, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None) -> TensorBase:
    """Variance over ``dim`` with ``correction`` (default 1: Bessel's; ``unbiased=False`` is 0)."""
    if isinstance(dim, bool):  # the legacy var(input, unbiased)
        dim, unbiased = None, dim
    return _variance(input, dim, unbiased, keepdim, correction, "var")


@public(out=True)
@bfloat16_in_float32
def std(input: TensorBase, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction: float | None = None) -> TensorBase:
    """Standard deviation over ``dim`` (``sqrt(var)``, same arguments)."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    # PyTorch's std rule: 0 where the result is 0, through a division (ops/norm.py)
    return masked_sqrt(_variance(input, dim, unbiased, keepdim, correction, "std"))


@public(out=True)
@bfloat16_in_float32
def logsumexp(input: TensorBase, dim: Any, keepdim: bool = False) -> TensorBase:
    """``log(sum(exp(x), dim))``, shifted by the max so it neither overflows nor underflows."""
    if not is_float_dtype(input._data.dtype):  # integers: the default float dtype
        input = ops.cast(input, dtypes.get_default_dtype().np)
    dims = ops.normalize_dims(dim, input._data.ndim, "logsumexp")
    if not dims and input._data.ndim:  # an empty dim: all dims, as in PyTorch ...
        dims = tuple(range(input._data.ndim))
        if not keepdim:  # ... whose out= check then rejects the dropped dims
            raise RuntimeError(f"output with shape [] doesn't match the broadcast shape "
                               f"[{', '.join('1' * input._data.ndim)}]")
    if input._data.size == 0:  # the log of an empty sum is -inf (nothing to shift by)
        return ops.log(ops.reduce_sum(ops.exp(input), dims, keepdim=keepdim))
    peak = ops.amax(input, dims, keepdim=True).detach()
    peak = ops.where(wrap(np.isfinite(peak._data)), peak, 0.0)
    total = ops.log(ops.reduce_sum(ops.exp(input - peak), dims, keepdim=True)) + peak
    if keepdim:
        return total
    return ops.reshape(total, tuple(n for i, n in enumerate(total._data.shape) if i not in dims))


@public(out=True)
@bfloat16_in_float32
def norm(input: TensorBase, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> TensorBase:
    """Vector norm over ``dim`` (all elements by default): p = 2 or 'fro', 1, inf, -inf, 0 or any
    other number."""
    if dtype is not None:
        input = input.to(dtype)
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"norm: input dtype should be floating point, got {input.dtype}")
    if isinstance(dim, (tuple, list)) and not dim:  # PyTorch: () reduces every dim
        dim = None
    if p == "fro" and isinstance(dim, (tuple, list)) and len(dim) > 2:
        p = "matrix"  # as PyTorch: matrix_norm rejects the dims
    elif p == "fro" or p is None:
        p = 2
    if p in ("nuc", "matrix"):  # the sum of singular values of the matrices over dim
        # (every dim when None; an int goes on as a 1-tuple: matrix_norm's "dim must be a
        # 2-tuple" error, as PyTorch gives)
        dims = tuple(range(input.ndim)) if dim is None else (
            (dim,) if isinstance(dim, int) else tuple(dim))
        return matrix_norm(input, "nuc" if p == "nuc" else "fro", dims, keepdim)
    if isinstance(p, str):
        raise RuntimeError(f"norm: p = {p!r} is not supported; use 'fro', 'nuc' or a number")
    if p == 2:
        return euclidean_norm(input, dim, keepdim)  # PyTorch's rule at 0 (ops/norm.py)
    if p == 1:  # (the common other order, directly: a sum has an identity, no empty-dim error)
        return ops.reduce_sum(unary.abs(input), dim, keepdim)
    # the other orders as linalg.vector_norm computes them: its errors for an empty reduction
    # without an identity (inf, p < 0), p = 0's graph node (no gradient)
    return vector_norm(input, p, dim, keepdim)


@public(out=True)
def all(input: TensorBase, dim: Any = None, keepdim: bool = False) -> TensorBase:  # noqa: A001
    """Whether all elements (over ``dim``) are true; a bool tensor (uint8 for uint8 input, as
    PyTorch keeps it)."""
    dims = None if dim is None else ops.normalize_dims(dim, input._data.ndim, "all")
    return _truth(np.all(input._data, axis=dims, keepdims=keepdim), input)


@public(out=True)
def any(input: TensorBase, dim: Any = None, keepdim: bool = False) -> TensorBase:  # noqa: A001
    """Whether any element (over ``dim``) is true; a bool tensor (uint8 for uint8 input, as
    PyTorch keeps it)."""
    dims = None if dim is None else ops.normalize_dims(dim, input._data.ndim, "any")
    return _truth(np.any(input._data, axis=dims, keepdims=keepdim), input)


def _truth(result: Any, input: TensorBase) -> TensorBase:
    """all/any's bool result, as uint8 for a uint8 input."""
    out = np.asarray(result)
    return wrap(out.astype(np.uint8) if input._data.dtype == np.uint8 else out)


# -- linear algebra -----------------------------------------------------------------------------


def _expect_dims(op: str, **tensors: tuple) -> None:
    for name, (t, n) in tensors.items():
        if t._data.ndim != n:
            raise RuntimeError(f"{op}: {name} must be a {n}-D tensor, got shape {t._data.shape} "
                               f"({t._data.ndim}-D)")


@public(out=True)
def mm(input: TensorBase, mat2: TensorBase) -> TensorBase:
    """Matrix product of two 2-D tensors (either may be sparse: ``torch.mm(adj, x)``)."""
    if is_sparse(input) or is_sparse(mat2):
        return sparse_matmul(input, mat2)
    _expect_dims("mm", input=(input, 2), mat2=(mat2, 2))
    return ops.matmul2d(input, mat2)


@public(out=True)
def bmm(input: TensorBase, mat2: TensorBase) -> TensorBase:
    """Batched matrix product of two 3-D tensors with equal batch sizes."""
    _expect_dims("bmm", input=(input, 3), mat2=(mat2, 3))
    if input._data.shape[0] != mat2._data.shape[0]:
        raise RuntimeError(f"bmm: batch sizes differ: input has shape {input._data.shape} and "
                           f"mat2 has shape {mat2._data.shape}")
    return BmmBackward0.rename(ops.matmul2d(input, mat2))


class BmmBackward0(MmBackward0):
    """``bmm``: the batched product (PyTorch's name)."""


@public(out=True)
def mv(input: TensorBase, vec: TensorBase) -> TensorBase:
    """Product of a 2-D matrix and a 1-D vector."""
    _expect_dims("mv", input=(input, 2), vec=(vec, 1))
    return matmul(input, vec)


@public(out=True)
def dot(input: TensorBase, other: TensorBase) -> TensorBase:
    """Inner product of two 1-D tensors of the same size."""
    _expect_dims("dot", input=(input, 1), other=(other, 1))
    a, b = input._data.dtype, other._data.dtype
    if a != b:  # PyTorch's dot does not promote
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{dtypes.torch_dtype_name(a)} and {dtypes.torch_dtype_name(b)}")
    if input._data.shape != other._data.shape:
        raise RuntimeError(f"dot: inconsistent tensor size: expected tensors of the same number "
                           f"of elements, got {input._data.shape} and {other._data.shape}")
    product = input * other
    # an integer dot product keeps its dtype (wrapping), unlike sum's int64
    return ops.reduce_sum(product, dtype=dtypes.from_numpy_dtype(product._data.dtype)
                          if product._data.dtype.kind in "iu" else None)


@public(out=True)
def outer(input: TensorBase, vec2: TensorBase) -> TensorBase:
    """Outer product of two 1-D tensors."""
    _expect_dims("outer", input=(input, 1), vec2=(vec2, 1))
    return ops.reshape(input, (-1, 1)) * vec2


def _subscript(index: Any) -> str:
    """One entry of einsum's sublist format as a letter: 0-25 are A-Z, 26-51 are a-z (as
    PyTorch maps them), Ellipsis is ``...``."""
    if index is Ellipsis:
        return "..."
    if isinstance(index, (int, np.integer)) and 0 <= index < 26:
        return chr(ord("A") + int(index))
    if isinstance(index, (int, np.integer)) and 26 <= index < 52:
        return chr(ord("a") + int(index) - 26)
    raise ValueError(f"einsum(): subscript {index!r} in a subscript list is not within the "
                     "valid range [0, 52)")


@public(method=False)
def einsum(*args: Any) -> TensorBase:
    """Einstein summation, differentiable: ``einsum("ij,jk->ik", a, b)`` (any equation NumPy's
    einsum accepts; the operands may also come as one list), or the sublist format
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if not args:
        raise TypeError("einsum(): expected an equation and operands")
    if isinstance(args[0], TensorBase):
        if len(args) < 2:
            raise ValueError("einsum(): the sublist format needs at least one operand and "
                             "its subscript list")
        equation = ",".join("".join(_subscript(i) for i in sub) for sub in args[1::2])
        if len(args) % 2:
            equation += "->" + "".join(_subscript(i) for i in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = tuple(operands[0])
    return _einsum_op(equation, *operands)


def aminmax(input: TensorBase, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(min, max)`` over ``dim`` (all elements by default), a named tuple like PyTorch's."""
    if dim is not None:
        ops.common.require_int_dim(dim, "aminmax")
    axis = None if dim is None else dim  # (amax raises PyTorch's errors for empty tensors)
    return AminmaxResult(ops.amax(input, axis, keepdim, name="amin"),
                         ops.amax(input, axis, keepdim, name="amax"))


@bfloat16_in_float32
def var_mean(input: TensorBase, dim: Any = None, unbiased: bool | None = None,
             keepdim: bool = False, *, correction: float | None = None) -> tuple:
    """``(var, mean)`` over ``dim``, with var's arguments."""
    if isinstance(dim, bool):  # the legacy var_mean(input, unbiased)
        dim, unbiased = None, dim
    return (_variance(input, dim, unbiased, keepdim, correction, "var_mean"),
            _mean(input, dim, keepdim))


@bfloat16_in_float32
def std_mean(input: TensorBase, dim: Any = None, unbiased: bool | None = None,
             keepdim: bool = False, *, correction: float | None = None) -> tuple:
    """``(std, mean)`` over ``dim``, with std's arguments."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return (masked_sqrt(_variance(input, dim, unbiased, keepdim, correction, "std_mean")),
            _mean(input, dim, keepdim))


def _mean(input: TensorBase, dim: Any, keepdim: bool) -> TensorBase:
    """The mean half of var_mean/std_mean (keepdim honoured for dim=None too)."""
    if dim is not None:
        return input.mean(dim=dim, keepdim=keepdim)
    mean = input.mean()
    return ops.reshape(mean, (1,) * input._data.ndim) if keepdim else mean


def dist(input: TensorBase, other: Any, p: float = 2) -> TensorBase:
    """The ``p``-norm of ``input - other`` (broadcast), a 0-dim tensor (in the difference's
    promoted dtype: norm accumulates bfloat16 in float32)."""
    if not isinstance(other, TensorBase):
        raise TypeError(f"dist(): argument 'other' (position 2) must be Tensor, not "
                        f"{type(other).__name__}")
    return norm(input - other, p)
