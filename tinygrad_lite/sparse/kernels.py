"""The sparse x dense product (forward and backward), with ``scipy.sparse`` when installed.

``spmm(rows, cols, n_rows, values, dense)`` is ``A @ dense`` for the COO matrix
``A[rows[k], cols[k]] += values[k]``. Without SciPy the product is one gather of the needed
rows of ``dense``, a multiply, and one ``np.add.reduceat`` over row-sorted nonzeros: no Python
loop over nonzeros. Its backward is written in tensor ops (the transposed product is the same
Function), so it can be differentiated again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["spmm", "matmul_arrays"]


def matmul_arrays(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int],
                  values: np.ndarray, dense: np.ndarray) -> np.ndarray:
    """``A @ dense`` for the COO matrix A of ``shape`` (duplicates add up), in NumPy arrays."""
    dtype = np.result_type(values.dtype, dense.dtype)
    out_shape = (shape[0],) + dense.shape[1:]
    if rows.size == 0:
        return np.zeros(out_shape, dtype)
    try:
        import scipy.sparse as sp  # optional: much faster for large products
    except ImportError:
        sp = None
    if sp is not None and dense.ndim == 2:
        a = sp.csr_matrix((values.astype(dtype, copy=False), (rows, cols)), shape=shape)
        return np.asarray(a @ dense.astype(dtype, copy=False), dtype=dtype)
    if rows.size > 1 and np.any(rows[1:] < rows[:-1]):
        order = np.argsort(rows, kind="stable")
        rows, cols, values = rows[order], cols[order], values[order]
    r = rows  # sorted: each output row's products are one contiguous run for reduceat
    products = dense[cols] * values.reshape((-1,) + (1,) * (dense.ndim - 1))
    starts = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
    out = np.zeros(out_shape, dtype)
    out[r[starts]] = np.add.reduceat(products, starts, axis=0)
    return out


class _SparseDenseMM(Function):
    """``A @ dense`` with A given by (rows, cols, shape, values); differentiable in ``values``
    and ``dense``."""

    @staticmethod
    def forward(ctx: Any, values: Tensor, dense: Tensor, rows: np.ndarray, cols: np.ndarray,
                shape: tuple[int, int]) -> Tensor:
        ctx.rows, ctx.cols, ctx.shape = rows, cols, shape
        ctx.save_for_backward(values, dense)
        return Tensor._wrap(matmul_arrays(rows, cols, shape, values._data, dense._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        values, dense = ctx.saved_tensors
        grad_values = grad_dense = None
        if ctx.needs_input_grad[1]:  # A^T @ grad: the same product with rows and cols swapped
            grad_dense = _SparseDenseMM.apply(values, grad, ctx.cols, ctx.rows,
                                              (ctx.shape[1], ctx.shape[0]))
        if ctx.needs_input_grad[0]:  # dA[k] = <grad[rows[k]], dense[cols[k]]>
            picked = grad[Tensor._wrap(ctx.rows)] * dense[Tensor._wrap(ctx.cols)]
            grad_values = picked.reshape(picked.shape[0], -1).sum(1) if picked.ndim > 1 \
                else picked
        return grad_values, grad_dense, None, None, None


def spmm(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], values: Any,
         dense: Any) -> Tensor:
    """``A @ dense`` for the COO matrix A (``A[rows[k], cols[k]] += values[k]``) of ``shape``."""
    out: Tensor = _SparseDenseMM.apply(values, dense, rows, cols, shape)
    return out
