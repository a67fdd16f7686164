"""``tl.sparse``: COO sparse tensors and their ops, as ``torch.sparse``.

Build one with ``tl.sparse_coo_tensor(indices, values, size)`` or ``dense.to_sparse()``;
multiply with ``sparse @ dense``, ``tl.sparse.mm``, ``tl.spmm`` or ``tl.sparse.addmm``; reduce
with ``tl.sparse.sum`` and ``tl.sparse.softmax``/``log_softmax`` (over the stored entries, the
missing ones counting as -inf, as in PyTorch). Gradients reach the dense operand and the values.
The sparse tensor is its own class (``SparseTensor``, see ``coo.py``), not a ``Tensor``: the
dense ``tl.mm``/``tl.matmul`` do not take it (use the functions here or ``@``), nor does
``dense @ sparse``. The product uses ``scipy.sparse`` when installed, else NumPy.
PyTorch's older products with sparse results (``tl.smm``, ``tl.sspaddmm``/``saddmm``,
``tl.hspmm``/``hsmm``; ``tl.dsmm`` is dense) and ``Tensor.sparse_mask`` are in ``products.py``;
the legacy constructors ``tl.sparse.FloatTensor(indices, values, size)`` & co in
``legacy_types.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions
from ..tensor import Tensor
from .coo import SparseTensor, sparse_coo_tensor, sparse_sum, to_sparse
from .legacy_types import (
    BFloat16Tensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from .products import dsmm, hsmm, hspmm, saddmm, smm, sspaddmm  # noqa: F401 - tl.smm & co

__all__ = ["SparseTensor", "sparse_coo_tensor", "mm", "spmm", "addmm", "sum", "softmax",
           "log_softmax", "to_sparse", "FloatTensor", "DoubleTensor", "HalfTensor",
           "BFloat16Tensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor", "ByteTensor"]


def _check_sparse(x: Any, op: str) -> SparseTensor:
    if not isinstance(x, SparseTensor):
        raise TypeError(f"{op}: expected a sparse COO tensor, got {type(x).__name__}")
    return x


def mm(mat1: SparseTensor, mat2: Any) -> Any:
    """``mat1 @ mat2`` for a sparse matrix and a dense (dense result) or sparse (sparse) one."""
    return _check_sparse(mat1, "mm").mm(mat2)


def spmm(input: SparseTensor, mat2: Tensor) -> Tensor:
    """``input @ mat2``: sparse matrix times dense matrix (PyTorch's ``torch.spmm``)."""
    return _check_sparse(input, "spmm").mm(mat2)


def addmm(mat: Tensor, mat1: SparseTensor, mat2: Tensor, *, beta: float = 1.0,
          alpha: float = 1.0) -> Tensor:
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse."""
    return beta * mat + alpha * _check_sparse(mat1, "addmm").mm(mat2)


def sum(input: SparseTensor, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A001
    """All entries summed (a dense 0-d tensor), or over ``dim`` (sparse while sparse dims
    remain)."""
    return sparse_sum(_check_sparse(input, "sum"), dim, dtype)


def _grouped(input: SparseTensor, dim: int, op: str) -> tuple[SparseTensor, Tensor, int]:
    """The coalesced input, each entry's group (the entries equal on every sparse dimension
    but ``dim``) and the number of groups."""
    x = _check_sparse(input, op).coalesce()
    nd = x.sparse_dim()
    d = dim % x.dim()
    if d >= nd:
        raise RuntimeError(f"{op}: dim {dim} is a dense dimension; use the dense {op} on "
                           "the values")
    others = np.delete(x._idx, d, axis=0)
    if others.shape[0]:
        shape = tuple(x._size[i] for i in range(nd) if i != d)
        keys = np.ravel_multi_index(tuple(others), shape)
    else:
        keys = np.zeros(x._idx.shape[1], np.int64)
    unique, group = np.unique(keys, return_inverse=True)
    return x, Tensor._wrap(group.reshape(-1)), int(unique.size)


def _shifted_exp(x: SparseTensor, group: Tensor, groups: int) -> tuple[Tensor, Tensor]:
    """``v - max(group)`` (the max as a constant, for stability) and the per-group sums of its
    exponential, gathered back to the entries."""
    vals = x._vals
    peak = np.full((groups,) + tuple(vals.shape[1:]), -np.inf, vals._data.dtype)
    np.maximum.at(peak, group._data, vals._data)
    shifted = vals - Tensor._wrap(peak[group._data])
    zeros = functions.zeros((groups,) + tuple(vals.shape[1:]), dtype=vals.dtype)
    totals = functions.index_add(zeros, 0, group, shifted.exp())
    return shifted, totals[group]


def softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Softmax over the stored entries along ``dim`` (missing entries count as -inf, so they
    stay missing); the result has the input's (coalesced) indices."""
    x, group, groups = _grouped(input if dtype is None else input.to(dtype), dim, "softmax")
    shifted, totals = _shifted_exp(x, group, groups)
    return SparseTensor(x._idx, shifted.exp() / totals, x._size, True)


def log_softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Log-softmax over the stored entries along ``dim`` (see ``softmax``)."""
    x, group, groups = _grouped(input if dtype is None else input.to(dtype), dim,
                                "log_softmax")
    shifted, totals = _shifted_exp(x, group, groups)
    return SparseTensor(x._idx, shifted - totals.log(), x._size, True)


# Tensor.to_sparse / to_sparse_coo: the sparse layout lives above the Tensor layer, so the
# methods are attached to the class here (the package imports this module at start-up).
Tensor.to_sparse = to_sparse  # type: ignore[attr-defined]
Tensor.to_sparse_coo = to_sparse  # type: ignore[attr-defined]


def _dense_to_dense(self: Tensor, dtype: Any = None, *, masked_grad: bool = True) -> Any:
    """A dense tensor's ``to_dense()``: the tensor itself (or converted to ``dtype``)."""
    return self if dtype is None else self.to(dtype)


Tensor.to_dense = _dense_to_dense  # type: ignore[attr-defined]
