"""Solving linear systems by substitution and from factors: solve_triangular, cholesky_solve,
cholesky_inverse, tensorsolve and tensorinv (LU's solves are in lu.py, LDL^T's in ldl.py)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import ops
from ..._core.tensor_base import TensorBase, wrap
from ...dtypes import is_float_dtype
from ...ops.linalg.inverse import inv, solve, torch_dtype_name
from ...ops.linalg.lapack import trsm
from ..registry import public
from .lu import broadcast_batch, linalg_solve, triangular_system

__all__ = ["cholesky_solve", "cholesky_inverse"]


def _zero_diagonal(x: TensorBase) -> bool:
    return bool((np.diagonal(x._data, axis1=-2, axis2=-1) == 0).any())


def _not_implemented(op: str, dtype: np.dtype) -> None:
    """PyTorch's error for a triangular solver's input of a dtype other than float32/64."""
    if not is_float_dtype(dtype) or dtype.itemsize < 4:
        raise NotImplementedError(f'"{op}_cpu" not implemented for '
                                  f"'{torch_dtype_name(dtype)}'")


def solve_triangular(A: TensorBase, B: TensorBase, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> TensorBase:
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for the upper or lower triangle of
    ``A`` (ones on its diagonal when ``unitriangular``; the rest of A is not read). The batch
    dims of A and B broadcast; X has A's dtype."""
    op = "linalg.solve_triangular"
    for name, x in (("B", B), ("A", A)):
        if x.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    n = A.shape[-1]
    if A.shape[-2] != n:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {n} matrices")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    _not_implemented("triangular_solve", A._data.dtype)
    b = B if B._data.dtype == A._data.dtype else B.to(A.dtype)
    if left:
        return triangular_system(A, b, not upper, unitriangular)
    return triangular_system(A, b.mT, not upper, unitriangular, transpose=True).mT


@public(out=True)
def cholesky_solve(B: TensorBase, L: TensorBase, upper: bool = False) -> TensorBase:  # noqa: N803
    """``X`` with ``(L L^T) X = B`` (``(U^T U) X = B`` when ``upper``) given the Cholesky factor,
    of which only the lower (upper) triangle is read; the batch dims of B and L broadcast. The
    gradient of L is PyTorch's, that of the whole matrix ``L L^T`` is formed from."""
    for name, x in (("b", B), ("u", L)):
        if x.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {x.ndim} "
                               "dimensions instead")
    n = L.shape[-1]
    if L.shape[-2] != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} "
                           f"by {n} matrices")
    if B.shape[-2] != n:
        raise RuntimeError("Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{n} by {n} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    if B._data.dtype != L._data.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{torch_dtype_name(B._data.dtype)} and A of type "
                           f"{torch_dtype_name(L._data.dtype)} instead.")
    _not_implemented("cholesky_solve", L._data.dtype)
    factor, b = broadcast_batch(L, B)
    # the triangle's values (what LAPACK's potrs reads), the whole matrix's gradient
    mask = wrap(np.triu(np.ones((n, n), bool)) if upper else np.tril(np.ones((n, n), bool)))
    factor = factor + (ops.where(mask, factor, 0.0) - factor).detach()
    lower = factor.mT if upper else factor
    if _zero_diagonal(lower):  # LAPACK's inf/NaN, without a gradient
        z = trsm(lower._data, b._data, True)
        return wrap(trsm(lower._data.swapaxes(-1, -2), z, False))
    return solve(lower.mT, solve(lower, b))


@public(out=True)
def cholesky_inverse(L: TensorBase, upper: bool = False) -> TensorBase:  # noqa: N803
    """``(L L^T)^-1`` from the Cholesky factor."""
    lower = L.mT if upper else L
    li = inv(lower)
    return li.mT @ li


def _require_square(a: np.ndarray, op: str) -> None:
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def tensorinv(A: TensorBase, ind: int = 2) -> TensorBase:  # noqa: N803
    """The inverse of A for ``tensordot(A, X, ind)``: shape ``A.shape[ind:] + A.shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = tuple(A.shape[ind:]), tuple(A.shape[:ind])
    rows, cols = math.prod(end), math.prod(start)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {rows} != {cols}")
    return inv(A.reshape(rows, cols)).reshape(*end, *start)


def tensorsolve(A: TensorBase, B: TensorBase, dims: Any = None) -> TensorBase:  # noqa: N803
    """X with ``tensordot(A, X, X.ndim) = B`` (``dims``: A's dims moved to the end first)."""
    if dims is not None:  # the dims in ``dims`` moved to the end, in that order
        moved = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)  # noqa: N806
    result_shape = tuple(A.shape[B.ndim:])
    rows, cols = math.prod(B.shape), math.prod(result_shape)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return linalg_solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*result_shape)
