"""Vector and matrix norms (vector_norm, matrix_norm, norm, PyTorch's frobenius_norm and
nuclear_norm) and the condition number cond that they measure, all differentiable."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import dtypes, ops
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...dtypes import is_float_dtype
from ...ops.elementwise import bfloat16_in_float32
from ...ops.linalg import decompositions
from ...ops.linalg.decompositions import svd
from ...ops.linalg.inverse import inv, torch_dtype_name
from ...ops.linalg.lapack import getrf
from ...ops.linalg.lu import check_float_matrix
from ...ops.norm import nonzero_count
from ..registry import public
from .solve import _require_square

__all__ = ["frobenius_norm", "nuclear_norm"]  # the rest are tl.linalg names (linalg.py)


def _ord_text(ord_: float) -> str:
    """An order as PyTorch prints it in messages: ``-1``, ``-1.5``, ``inf``."""
    return f"{ord_:g}"


def _check_dtype(x: TensorBase, dtype: Any, op: str) -> None:
    """PyTorch's dtype checks of a norm: a floating input, and a floating ``dtype`` that the
    input converts to without narrowing."""
    a = x._data.dtype
    if dtype is None:
        if not is_float_dtype(a):
            raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                               f"{torch_dtype_name(a)}")
        return
    target = np.dtype(dtypes.to_dtype(dtype).np)
    if not is_float_dtype(target):
        raise RuntimeError(f"{op}: dtype should be floating point or complex, but got "
                           f"{torch_dtype_name(target)}")
    if is_float_dtype(a) and target.itemsize < a.itemsize:
        raise RuntimeError(f"{op}: the dtype of the input ({torch_dtype_name(a)}) should be "
                           f"convertible without narrowing to the specified dtype "
                           f"({torch_dtype_name(target)})")


@bfloat16_in_float32
def vector_norm(x: TensorBase, ord: float = 2, dim: Any = None, keepdim: bool = False,  # noqa: A002
                *, dtype: Any = None) -> TensorBase:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all elements for None or ``()``); ``inf``/``-inf``:
    the largest/smallest magnitude, 0: the count of nonzeros."""
    if isinstance(ord, str) or ord is None:
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not "
                        f"{type(ord).__name__}")
    _check_dtype(x, dtype, "linalg.vector_norm")
    v = x if dtype is None else x.to(dtype)
    if isinstance(dim, (tuple, list)) and len(dim) == 0:  # PyTorch: () reduces every dim
        dim = None
    if isinstance(dim, (tuple, list)):
        seen = [int(d) % max(v.ndim, 1) for d in dim]
        repeated = next((d for i, d in enumerate(seen) if d in seen[:i]), None)
        if repeated is not None:
            raise RuntimeError(f"dim {repeated} appears multiple times in the list of dims")
    dims = ops.normalize_dims(dim, v.ndim, "linalg.vector_norm")
    if ord < 0 or ord == math.inf:  # no identity: an empty reduction is an error
        if dim is None and v.numel() == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on "
                               "an empty tensor because the operation does not have an identity")
        empty = [d for d in dims if v.shape[d] == 0]
        if dim is not None and empty:  # (PyTorch's message lacks the space before "because")
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on "
                               f"the dimension {empty[0]}because this dimension is empty and "
                               "the operation does not have an identity")
    if dim is None and v.ndim != 1:
        flat = vector_norm(v.reshape(-1), ord, 0, keepdim)
        return flat.reshape(*([1] * v.ndim)) if keepdim else flat.reshape(())
    dim = dims if len(dims) != 1 else dims[0]
    a = v.abs()
    if ord == math.inf:
        return a.amax(dim, keepdim)
    if ord == -math.inf:
        return a.amin(dim, keepdim)
    if ord == 0:
        return nonzero_count(v, dim, keepdim)
    if ord == 2:
        return v.norm(2, dim, keepdim)
    if ord == 1:
        return a.sum(dim, keepdim)
    return p_norm(a, ord, dim, keepdim)


def p_norm(magnitude: TensorBase, p: float, dim: Any, keepdim: bool) -> TensorBase:
    """``(sum |x|^p)^(1/p)`` of magnitudes over ``dim``. |x|^p (p < 1) and the 1/p root have
    infinite slopes at 0: PyTorch gives zero gradients wherever the norm is 0, not
    0 * inf = NaN (for p < 0 a single zero entry makes the norm 0)."""
    zero = magnitude == 0
    if p < 0:
        total = ops.reduce_sum(ops.pow(ops.where(zero, 1.0, magnitude), p), dim, keepdim)
        any_zero = ops.reduce_sum(zero.to(magnitude.dtype), dim, keepdim) > 0
        return ops.where(any_zero, 0.0, ops.pow(total, 1.0 / p))
    powered = ops.where(zero, 0.0, ops.pow(ops.where(zero, 1.0, magnitude), p))
    total = ops.reduce_sum(powered, dim, keepdim)
    empty = total == 0
    return ops.where(empty, 0.0, ops.pow(ops.where(empty, 1.0, total), 1.0 / p))


def _matrix_dims(A: TensorBase, dim: Any) -> tuple[int, int]:  # noqa: N803
    """``dim`` as two distinct non-negative dims of A, checked as PyTorch's matrix_norm."""
    if isinstance(dim, (int, np.integer)) or len(dim) != 2:
        shown = " ".join(str(d) for d in ((dim,) if isinstance(dim, (int, np.integer)) else dim))
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    d0, d1 = ops.normalize_dims(dim[0], A.ndim, "linalg.matrix_norm") + \
        ops.normalize_dims(dim[1], A.ndim, "linalg.matrix_norm")
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    return d0, d1


def matrix_norm(A: TensorBase, ord: Any = "fro", dim: Any = (-2, -1),  # noqa: N803, A002
                keepdim: bool = False, *, dtype: Any = None) -> TensorBase:
    """The 'fro', 'nuc', 2/-2 (extreme singular values) or 1/-1/inf/-inf matrix norm."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    _check_dtype(A, dtype, "linalg.matrix_norm")
    d0, d1 = _matrix_dims(A, dim)
    m = A if dtype is None else A.to(dtype)
    if ord == "fro":  # the 2-norm of the entries, with its zero gradient at a zero matrix
        return vector_norm(m, 2, (d0, d1), keepdim)
    if not (ord in ("nuc", 2, -2, 1, -1) or ord in (math.inf, -math.inf)):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if m.numel() == 0 and ord not in (-2, -1, -math.inf):  # PyTorch: 0, without an error
        return (m * 0).sum((d0, d1), keepdim)  # (zeros, and a zero gradient)
    if ord in ("nuc", 2, -2):
        if is_float_dtype(m._data.dtype) and m._data.dtype.itemsize < 4:
            raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
        sv = decompositions.svd(m.movedim((d0, d1), (-2, -1)), False)[1]
        out = sv.sum(-1) if ord == "nuc" else sv.amax(-1) if ord == 2 else sv.amin(-1)
        if keepdim:  # put the two reduced dims back where they were
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)
        return out
    if ord in (1, -1):
        sums = m.abs().sum(d0, True)
        out = sums.amax(d1, True) if ord == 1 else sums.amin(d1, True)
    else:
        sums = m.abs().sum(d1, True)
        out = sums.amax(d0, True) if ord == math.inf else sums.amin(d0, True)
    return out if keepdim else out.squeeze(max(d0, d1)).squeeze(min(d0, d1))


def norm(A: TensorBase, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803, A002
         dtype: Any = None) -> TensorBase:
    """``tl.linalg.norm``: a vector norm (1-D, or an int ``dim``) or a matrix norm (2-D, or a
    pair ``dim``); without ``ord``, the 2-norm / Frobenius norm."""
    if dim is not None:
        single = isinstance(dim, (int, np.integer)) or len(dim) == 1
        if isinstance(ord, str) or not single:  # a string order is a matrix norm's
            return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype)
        return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                           f"1D or 2D. Got {A.ndim}D.")
    if A.ndim == 2 or isinstance(ord, str):
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)
    return vector_norm(A, ord, None, keepdim, dtype=dtype)


def _inverse_or_inf(A: TensorBase) -> TensorBase:  # noqa: N803
    """``inv(A)``, inf-filled for the singular matrices of the batch (PyTorch's inv_ex)."""
    a = A._data
    check_float_matrix(a, "linalg.inv")
    singular = getrf(a)[2] > 0
    if not singular.any():
        return inv(A)
    flags = wrap(singular[..., None, None])
    safe = ops.where(flags, wrap(np.eye(a.shape[-1], dtype=a.dtype)), A)
    return ops.where(flags, math.inf, inv(safe))


def cond(A: TensorBase, p: Any = None) -> TensorBase:  # noqa: N803
    """The condition number in the ``p`` norm (default 2: largest over smallest singular
    value; 'fro', 'nuc', +-1, +-inf need square matrices, and a singular one gives inf)."""
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord_ = 2 if p is None else p
    if isinstance(ord_, str):
        if ord_ not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord_}")
        _require_square(a, f"linalg.cond(ord={ord_})")
    else:
        if abs(ord_) not in (1, 2, math.inf):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {float(ord_):g}")
        if abs(ord_) != 2:
            text = f"{ord_:f}" if isinstance(ord_, float) else str(ord_)
            _require_square(a, f"linalg.cond(ord={text})")
    if a.size == 0:  # NumPy leaves it undefined; PyTorch returns 0
        return wrap(np.zeros(a.shape[:-2], a.dtype if is_float_dtype(a.dtype) else np.float32))
    if ord_ in (2, -2, "nuc"):
        s = svd(A, full_matrices=False).S
        if ord_ == "nuc":
            return s.sum(-1) * (1.0 / s).sum(-1)
        largest, smallest = s[..., 0], s[..., -1]
        return largest / smallest if ord_ == 2 else smallest / largest
    result = matrix_norm(A, ord_) * matrix_norm(_inverse_or_inf(A), ord_)
    undefined = np.isnan(result._data)  # 0 * inf: inf, as PyTorch
    return ops.where(wrap(undefined), math.inf, result) if undefined.any() else result


@public(method=False, out=True)
def frobenius_norm(input: TensorBase, dim: Any, keepdim: bool = False) -> TensorBase:
    """Deprecated: ``sqrt(sum x^2)`` over ``dim`` (one or two dims)."""
    warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
         "It will be removed in a future PyTorch release. Please use "
         "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return vector_norm(input, 2, dim, keepdim)


@public(method=False, out=True)
def nuclear_norm(input: TensorBase, dim: Any = None, keepdim: bool = False) -> TensorBase:
    """Deprecated: the sum of the singular values of the matrices over ``dim`` (a pair; the
    two dims of a 2-D input by default). ``nuclear_norm(input, keepdim)`` is accepted, as
    PyTorch's."""
    warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. "
         "It will be removed in a future PyTorch release. Please use "
         "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        if input.ndim != 2:
            raise RuntimeError(f"nuclear_norm: expected a 2-D tensor without dim, got a "
                               f"{input.ndim}-D tensor of shape {tuple(input.shape)}")
        dim = (0, 1)
    return matrix_norm(input, "nuc", tuple(dim), keepdim)
