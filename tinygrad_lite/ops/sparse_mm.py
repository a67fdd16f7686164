"""The sparse x dense product (forward and backward), with ``scipy.sparse`` when installed.

``spmm(rows, cols, n_rows, values, dense)`` is ``A @ dense`` for the COO matrix
``A[rows[k], cols[k]] += values[k]``. Without SciPy the product is one gather of the needed
rows of ``dense``, a multiply, and one ``np.add.reduceat`` over row-sorted nonzeros: no Python
loop over nonzeros. Its backward is written in tensor ops (the transposed product is the same
op), so it can be differentiated again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import is_array, wrap
from .elementwise import cast
from .movement import getitem, reshape
from .reduce import reduce_sum

__all__ = ["spmm", "matmul_arrays", "SparseDenseMmBackward0"]


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


class SparseDenseMmBackward0(Node):
    """``A @ dense`` with A given by (rows, cols, shape, values); differentiable in ``values``
    and ``dense``. Each gradient comes in its input's dtype."""

    rows: np.ndarray
    cols: np.ndarray
    shape: tuple[int, int]

    def backward(self, grad):
        values, dense = self.saved_tensors
        plain = is_array(grad)
        if plain:  # a plain backward: the same tensor ops, unrecorded (grad mode is off)
            values, dense, grad = wrap(values), wrap(dense), wrap(grad)
        grad_values = grad_dense = None
        if self.next_edges[1] is not None:  # A^T @ grad: the same product, rows and cols swapped
            grad_dense = _in_dtype(spmm(self.cols, self.rows, (self.shape[1], self.shape[0]),
                                        values, grad), dense, plain)
        if self.next_edges[0] is not None:  # dA[k] = <grad[rows[k]], dense[cols[k]]>
            picked = getitem(grad, wrap(self.rows)) * getitem(dense, wrap(self.cols))
            if picked.ndim > 1:
                picked = reduce_sum(reshape(picked, (picked.shape[0], -1)), (1,), False)
            grad_values = _in_dtype(picked, values, plain)
        return grad_values, grad_dense


def _in_dtype(grad: TensorBase, like: TensorBase, plain: bool) -> Any:
    """``grad`` in ``like``'s dtype, as an array in a plain backward."""
    if grad._data.dtype != like._data.dtype:
        grad = cast(grad, like._data.dtype)
    return grad._data if plain else grad


def spmm(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int], values: TensorBase,
         dense: TensorBase) -> TensorBase:
    """``A @ dense`` for the COO matrix A (``A[rows[k], cols[k]] += values[k]``) of ``shape``."""
    out = matmul_arrays(rows, cols, shape, values._data, dense._data)
    if not (grad_state.enabled and (values._requires_grad or dense._requires_grad)):
        return wrap(out)
    node = SparseDenseMmBackward0(values, dense)
    node.rows, node.cols, node.shape = rows, cols, shape
    node.save_for_backward(values, dense)
    return wrap(out, node)
