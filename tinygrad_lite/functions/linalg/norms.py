"""Vector and matrix norms (vector_norm, matrix_norm, norm, PyTorch's frobenius_norm and
nuclear_norm) and the condition number cond that they measure, all differentiable."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import ops
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...dtypes import is_float_dtype
from ...ops.elementwise import bfloat16_in_float32
from ...ops.linalg import decompositions
from ...ops.linalg.decompositions import svd
from ...ops.linalg.inverse import inv
from ...ops.linalg.lu import check_float_matrix, getrf
from ..registry import public
from .solve import _require_square

__all__ = ["frobenius_norm", "nuclear_norm"]  # the rest are tl.linalg names (linalg.py)


@bfloat16_in_float32
def vector_norm(x: TensorBase, ord: float = 2, dim: Any = None, keepdim: bool = False,  # noqa: A002
                *, dtype: Any = None) -> TensorBase:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all elements by default); ``inf``/``-inf``: the
    largest/smallest magnitude, 0: the count of nonzeros."""
    v = x if dtype is None else x.to(dtype)
    if dim is None:
        v, dim = v.reshape(-1), 0
        if keepdim:
            raise RuntimeError("vector_norm with keepdim=True needs an explicit dim here")
    a = v.abs()
    if ord == math.inf:
        return a.amax(dim, keepdim)
    if ord == -math.inf:
        return a.amin(dim, keepdim)
    if ord == 0:
        return (a != 0).to(v.dtype).sum(dim, keepdim)
    if ord == 2:
        return v.norm(2, dim, keepdim)
    if ord == 1:
        return a.sum(dim, keepdim)
    return p_norm(a, ord, dim, keepdim)


def p_norm(magnitude: TensorBase, p: float, dim: Any, keepdim: bool) -> TensorBase:
    """``(sum |x|^p)^(1/p)`` of magnitudes over ``dim``. |x|^p (p < 1) and the 1/p root have
    infinite slopes at 0: PyTorch gives zero gradients at zero entries and zero norms there,
    not 0 * inf = NaN (for p < 0 a zero entry makes the norm 0 by the formula itself)."""
    if p < 0:
        return ops.pow(ops.reduce_sum(ops.pow(magnitude, p), dim, keepdim), 1.0 / p)
    zero = magnitude == 0
    powered = ops.where(zero, 0.0, ops.pow(ops.where(zero, 1.0, magnitude), p))
    total = ops.reduce_sum(powered, dim, keepdim)
    empty = total == 0
    return ops.where(empty, 0.0, ops.pow(ops.where(empty, 1.0, total), 1.0 / p))


def matrix_norm(A: TensorBase, ord: Any = "fro", dim: tuple = (-2, -1),  # noqa: N803, A002
                keepdim: bool = False, *, dtype: Any = None) -> TensorBase:
    """The 'fro', 'nuc', 2/-2 (extreme singular values) or 1/-1/inf/-inf matrix norm."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    m = A if dtype is None else A.to(dtype)
    if ord == "fro":
        return (m * m).sum(dim, keepdim).sqrt()
    d0, d1 = dim
    if ord in ("nuc", 2, -2):
        if is_float_dtype(m._data.dtype) and m._data.dtype.itemsize < 4:
            raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
        d0, d1 = d0 % m.ndim, d1 % m.ndim
        sv = decompositions.svd(m.movedim((d0, d1), (-2, -1)), False)[1]
        out = sv.sum(-1) if ord == "nuc" else sv.amax(-1) if ord == 2 else sv.amin(-1)
        if keepdim:  # put the two reduced dims back where they were
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)
        return out
    if ord in (1, -1):
        sums = m.abs().sum(d0, True)
        out = sums.amax(d1, True) if ord == 1 else sums.amin(d1, True)
    elif ord in (math.inf, -math.inf):
        sums = m.abs().sum(d1, True)
        out = sums.amax(d0, True) if ord == math.inf else sums.amin(d0, True)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return out if keepdim else out.squeeze(max(d0 % m.ndim, d1 % m.ndim)).squeeze(
        min(d0 % m.ndim, d1 % m.ndim))


def norm(A: TensorBase, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803, A002
         dtype: Any = None) -> TensorBase:
    """``tl.linalg.norm``: a vector norm (1-D, or an int ``dim``) or a matrix norm (2-D, or a
    pair ``dim``); without ``ord``, the 2-norm / Frobenius norm."""
    if isinstance(dim, (tuple, list)) and len(dim) == 2 or (dim is None and A.ndim == 2
                                                            and ord is not None):
        return matrix_norm(A, "fro" if ord is None else ord, tuple(dim or (-2, -1)), keepdim,
                           dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


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
