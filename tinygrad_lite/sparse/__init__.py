"""``tl.sparse``: COO sparse tensors and their ops, as ``torch.sparse``.

Build one with ``tl.sparse_coo_tensor(indices, values, size)`` or ``dense.to_sparse()``;
multiply with ``sparse @ dense``, ``tl.mm``/``tl.matmul``, ``tl.sparse.mm``, ``tl.spmm`` or
``tl.sparse.addmm``; reduce with ``tl.sparse.sum`` and ``tl.sparse.softmax``/``log_softmax``
(over the stored entries, the missing ones counting as -inf, as in PyTorch). Gradients reach the
dense operand and the values. The sparse tensor is its own class (``SparseTensor``, see
``coo.py``), not a ``Tensor``. Only the COO layout exists (no CSR/CSC/BSR). The product uses
``scipy.sparse`` when installed, else NumPy.
PyTorch's older products with sparse results (``tl.smm``, ``tl.sspaddmm``/``saddmm``,
``tl.hspmm``/``hsmm``; ``tl.dsmm`` is dense) and ``Tensor.sparse_mask`` are in ``products.py``;
the legacy constructors ``tl.sparse.FloatTensor(indices, values, size)`` & co in
``legacy_types.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions
from ..ops.linalg.inverse import torch_dtype_name
from ..tensor import Tensor
from .coo import SparseTensor, sparse_coo_tensor, sparse_sum, to_sparse, wrap_dim
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
    """``mat1 @ mat2`` for a sparse matrix and a dense (dense result) or sparse (sparse) one;
    two dense matrices give the dense product, as in PyTorch."""
    if isinstance(mat1, Tensor):
        return functions.mm(mat1, mat2)
    return _check_sparse(mat1, "mm").mm(mat2)


def spmm(input: SparseTensor, mat2: Tensor) -> Tensor:
    """``input @ mat2``: sparse matrix times dense matrix (PyTorch's ``torch.spmm``)."""
    return _check_sparse(input, "spmm").mm(mat2)


def addmm(mat: Tensor, mat1: SparseTensor, mat2: Tensor, *, beta: float = 1.0,
          alpha: float = 1.0) -> Tensor:
    """``beta * mat + alpha * (mat1 @ mat2)`` with ``mat1`` sparse (or dense, as in
    PyTorch)."""
    if isinstance(mat1, Tensor):
        return functions.addmm(mat, mat1, mat2, beta=beta, alpha=alpha)
    return beta * mat + alpha * _check_sparse(mat1, "addmm").mm(mat2)


def sum(input: SparseTensor, dim: Any = None, dtype: Any = None) -> Any:  # noqa: A001
    """All entries summed (a dense 0-d tensor), or over ``dim`` (sparse while sparse dims
    remain)."""
    if isinstance(input, Tensor):  # PyTorch's error: its sparse sum starts with a coalesce
        raise RuntimeError("coalesce expected sparse coordinate tensor layout but got Strided")
    return sparse_sum(_check_sparse(input, "sum"), dim, dtype)


def _grouped(x: SparseTensor, d: int) -> tuple[Tensor, int]:
    """Each entry's group (the entries of coalesced ``x`` equal on every sparse dimension but
    ``d``) and the number of groups."""
    nd = x.sparse_dim()
    others = np.delete(x._idx, d, axis=0)
    if others.shape[0]:
        shape = tuple(x._size[i] for i in range(nd) if i != d)
        keys = np.ravel_multi_index(tuple(others), shape)
    else:
        keys = np.zeros(x._idx.shape[1], np.int64)
    unique, group = np.unique(keys, return_inverse=True)
    return Tensor._wrap(group.reshape(-1)), int(unique.size)


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


def _softmax(input: SparseTensor, dim: int, dtype: Any, log: bool) -> SparseTensor:
    """Softmax (or log-softmax) over the stored entries along ``dim`` of the coalesced input;
    along a dense dimension, the dense one of each value."""
    op = "log_softmax" if log else "softmax"
    x = _check_sparse(input, op)
    x = (x if dtype is None else x.to(dtype)).coalesce()
    if not x.dtype.is_floating_point:
        raise NotImplementedError(f'"{op}" not implemented for '
                                  f"'{torch_dtype_name(x.dtype.np)}'")
    d = wrap_dim(dim, x.dim())
    nd = x.sparse_dim()
    if d >= nd:
        dense = x._vals.log_softmax(d - nd + 1) if log else x._vals.softmax(d - nd + 1)
        return SparseTensor(x._idx, dense, x._size, True)
    group, groups = _grouped(x, d)
    shifted, totals = _shifted_exp(x, group, groups)
    values = shifted - totals.log() if log else shifted.exp() / totals
    return SparseTensor(x._idx, values, x._size, True)


def softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Softmax over the stored entries along ``dim`` (missing entries count as -inf, so they
    stay missing); the result has the input's (coalesced) indices."""
    return _softmax(input, dim, dtype, False)


def log_softmax(input: SparseTensor, dim: int, dtype: Any = None) -> SparseTensor:
    """Log-softmax over the stored entries along ``dim`` (see ``softmax``)."""
    return _softmax(input, dim, dtype, True)


# Tensor.to_sparse / to_sparse_coo: the sparse layout lives above the Tensor layer, so the
# methods are attached to the class here (the package imports this module at start-up).
Tensor.to_sparse = to_sparse  # type: ignore[attr-defined]
Tensor.to_sparse_coo = to_sparse  # type: ignore[attr-defined]


def _dense_to_dense(self: Tensor, dtype: Any = None, *, masked_grad: bool = True) -> Any:
    """A dense tensor's ``to_dense()``: the tensor itself (or converted to ``dtype``)."""
    return self if dtype is None else self.to(dtype)


Tensor.to_dense = _dense_to_dense  # type: ignore[attr-defined]
