"""PyTorch's older sparse x dense products and the sparse accessors of dense tensors.

``smm``/``hspmm``/``hsmm``/``sspaddmm``/``saddmm`` give sparse results, as PyTorch's: the
product's row ``r`` is stored (every column of it) when ``mat1`` stores an entry in row ``r``
(``smm``: COO with one entry per (row, column); ``hspmm``: a hybrid COO, one index per row and
a dense row as its value); ``sspaddmm`` stores ``beta * input``'s entries followed by
``alpha * mat1 @ mat2``'s, uncoalesced. ``dsmm`` is the dense product. Each result is computed
with the differentiable sparse x dense kernel, so gradients reach ``mat1``'s values and
``mat2`` (PyTorch has no derivative for ``smm``, ``hspmm`` and ``sspaddmm``; here the gradients
are those of the dense product restricted to the stored entries).

``Tensor.sparse_mask(mask)`` picks a dense (or sparse) tensor's values at a sparse mask's
indices (differentiable). Dense tensors also get PyTorch's ``sparse_dim()`` (0) and
``dense_dim()`` (ndim), and ``coalesce``/``indices``/``values``/``is_coalesced``/``smm``/
``sspaddmm``, which raise as they do for PyTorch's strided tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.sparse_mm import spmm
from ..tensor import Tensor
from .coo import SparseTensor

__all__ = ["smm", "sspaddmm", "saddmm", "hspmm", "hsmm", "dsmm", "sparse_mask"]


def _name(dtype: Any) -> str:
    """PyTorch's name of a tl dtype in error messages (``Float``, ``Double``)."""
    return torch_dtype_name(dtype.np)


def _check_product(mat1: Any, mat2: Any, op: str) -> None:
    """PyTorch's checks of a sparse matrix times a dense matrix."""
    if not isinstance(mat1, SparseTensor):
        raise RuntimeError(f"{op}: expected mat1 to be a sparse COO matrix, got "
                           f"{type(mat1).__name__} (a dense tensor has no {op})")
    if not isinstance(mat2, Tensor):
        raise TypeError(f"{op}(): argument 'mat2' must be Tensor, not {type(mat2).__name__}")
    if mat1.sparse_dim() != 2 or mat1.dense_dim() != 0:
        raise RuntimeError(f"{op}: Argument #2: matrices expected, got {mat1.sparse_dim()}D "
                           "tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"{op}: Argument #3: matrices expected, got {mat2.ndim}D tensor")
    if mat2.shape[0] != mat1.shape[1]:
        raise RuntimeError(f"{op}: Argument #3: Expected dim 0 size {mat1.shape[1]}, got "
                           f"{mat2.shape[0]}")
    if mat2.dtype != mat1.dtype:
        raise RuntimeError(f"expected scalar type {_name(mat1.dtype)} but found "
                           f"{_name(mat2.dtype)}")


def _stored_rows(mat1: SparseTensor, mat2: Tensor) -> tuple[np.ndarray, Any]:
    """The rows ``mat1`` stores entries in (sorted, unique) and those rows of ``mat1 @ mat2``."""
    rows, cols = mat1._idx[0], mat1._idx[1]
    shape = (int(mat1.shape[0]), int(mat1.shape[1]))
    product = spmm(rows, cols, shape, mat1._vals, mat2)
    used = np.unique(rows).astype(np.int64)
    return used, product[Tensor._wrap(used)]


def _product_entries(mat1: SparseTensor, mat2: Tensor) -> tuple[np.ndarray, Any]:
    """``mat1 @ mat2`` as COO entries: every column of each stored row, row-major."""
    used, rows = _stored_rows(mat1, mat2)
    k = int(mat2.shape[1])
    indices = np.stack([np.repeat(used, k), np.tile(np.arange(k, dtype=np.int64), used.size)])
    return indices, rows.reshape(-1)


def smm(input: SparseTensor, mat: Tensor) -> SparseTensor:
    """Sparse matrix times dense matrix, as a sparse COO matrix (the stored rows of ``input``)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("tensor.sspaddmm(...) can only be called on sparse tensors")
    _check_product(input, mat, "sspaddmm")
    indices, values = _product_entries(input, mat)
    return SparseTensor(indices, values, (input.shape[0], mat.shape[1]))


def sspaddmm(input: SparseTensor, mat1: SparseTensor, mat2: Tensor, *, beta: Any = 1,
             alpha: Any = 1) -> SparseTensor:
    """``beta * input + alpha * (mat1 @ mat2)`` with ``input`` and ``mat1`` sparse: a sparse
    result holding ``input``'s entries, then the product's (uncoalesced)."""
    if not isinstance(input, SparseTensor):
        raise RuntimeError("sspaddmm: expected input to be a sparse COO tensor, got a dense "
                           "tensor (use tl.addmm for a dense input)")
    _check_product(mat1, mat2, "sspaddmm")
    size = (int(mat1.shape[0]), int(mat2.shape[1]))
    if input.sparse_dim() != 2 or input.dense_dim() != 0:
        raise RuntimeError(f"sspaddmm: Argument #1: matrices expected, got {input.dim()}D tensor")
    for d in (0, 1):
        if input.shape[d] != size[d]:
            raise RuntimeError(f"sspaddmm: Argument #1: Expected dim {d} size {size[d]}, got "
                               f"{input.shape[d]}")
    if input.dtype != mat1.dtype:
        raise RuntimeError(f"dtype of values ({_name(mat1.dtype)}) must match dtype of sparse "
                           f"tensor ({_name(input.dtype)})")
    indices, values = _product_entries(mat1, mat2)
    merged = functions.cat([input._vals * beta, values * alpha])
    return SparseTensor(np.concatenate([input._idx, indices], 1), merged, size)


saddmm = sspaddmm  # torch.saddmm: the same function under its older name


def hspmm(mat1: SparseTensor, mat2: Tensor) -> SparseTensor:
    """Sparse matrix times dense matrix as a hybrid COO matrix: one sparse dimension (the
    stored rows of ``mat1``) whose values are the product's dense rows."""
    _check_product(mat1, mat2, "hspmm")
    used, rows = _stored_rows(mat1, mat2)
    return SparseTensor(used.reshape(1, -1), rows, (mat1.shape[0], mat2.shape[1]))


hsmm = hspmm  # torch.hsmm: the same product as hspmm


def dsmm(input: Any, mat2: Tensor) -> Any:
    """Sparse (or dense) matrix times dense matrix, as a dense matrix."""
    if isinstance(input, Tensor):
        return functions.mm(input, mat2)
    if isinstance(mat2, Tensor) and mat2.ndim < 2:
        raise IndexError("dsmm: Dimension out of range (expected to be in range of [-1, 0], "
                         "but got 1)")
    _check_product(input, mat2, "dsmm")
    return input.mm(mat2)


def _sparse_from_sparse(self: SparseTensor, mask: SparseTensor) -> Any:
    """``self``'s values at ``mask``'s indices (zero where ``self`` stores none)."""
    if self.sparse_dim() != mask.sparse_dim():
        return _masked_values(self.to_dense(), mask)
    src = self.coalesce()
    keys, wanted = src._flat_keys(), mask._flat_keys()
    dense_shape = tuple(src._vals.shape[1:])
    if keys.size == 0:
        return functions.zeros((wanted.size,) + dense_shape, dtype=src.dtype)
    pos = np.minimum(np.searchsorted(keys, wanted), keys.size - 1)
    found = (keys[pos] == wanted).reshape((-1,) + (1,) * len(dense_shape))
    return functions.where(Tensor._wrap(found), src._vals[Tensor._wrap(pos)], 0.0)


def _masked_values(self: Any, mask: SparseTensor) -> Any:
    """A dense tensor's values at ``mask``'s indices: shape ``(nnz, *dense_shape)``."""
    if mask.sparse_dim() == 0:
        return self.unsqueeze(0).expand(mask._nnz(), *self.shape)
    return self[tuple(Tensor._wrap(i) for i in mask._idx)]


def sparse_mask(self: Any, mask: SparseTensor) -> SparseTensor:
    """A sparse tensor with ``mask``'s indices (as stored) and ``self``'s values there; the
    values of ``mask`` are ignored. Differentiable in ``self``."""
    if not isinstance(mask, SparseTensor):
        raise NotImplementedError("sparse_mask: the mask must be a sparse COO tensor, got a "
                                  f"{type(mask).__name__}")
    if tuple(self.shape) != tuple(mask.shape):
        raise RuntimeError(f"sparse_mask(): operands have incompatible sizes; self has size "
                           f"{list(self.shape)} but mask has size {list(mask.shape)}")
    values = _sparse_from_sparse(self, mask) if isinstance(self, SparseTensor) \
        else _masked_values(self, mask)
    return SparseTensor(mask._idx, values, tuple(mask.shape), mask.is_coalesced())


# -- methods ------------------------------------------------------------------------------
def _strided_error(op: str, what: str = "sparse coordinate tensor") -> RuntimeError:
    return RuntimeError(f"{op} expected {what} layout but got Strided")


def _dense_coalesce(self: Tensor) -> Any:
    """Refused, as PyTorch: a dense tensor has no COO indices to coalesce."""
    raise _strided_error("coalesce")


def _dense_is_coalesced(self: Tensor) -> bool:
    """Refused, as PyTorch: only a sparse COO tensor is coalesced or not."""
    raise _strided_error("is_coalesced")


def _dense_indices(self: Tensor) -> Any:
    """Refused, as PyTorch: a dense tensor has no COO indices."""
    raise _strided_error("indices")


def _dense_values(self: Tensor) -> Any:
    """Refused, as PyTorch: a dense tensor has no sparse values."""
    raise _strided_error("values", "sparse tensor")


def _dense_sparse_dim(self: Tensor) -> int:
    """0: a dense tensor has no sparse dimensions."""
    return 0


def _dense_dense_dim(self: Tensor) -> int:
    """The number of dimensions: all of a dense tensor's dimensions are dense."""
    return int(self.ndim)


def _sspaddmm_method(self: Any, mat1: SparseTensor, mat2: Tensor, *, beta: Any = 1,
                     alpha: Any = 1) -> SparseTensor:
    """``tl.sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)``."""
    return sspaddmm(self, mat1, mat2, beta=beta, alpha=alpha)


# The sparse layout lives above the Tensor layer, so both classes get these methods here (the
# package imports this module at start-up), as ``sparse/__init__.py`` does for ``to_sparse``.
Tensor.smm = smm  # type: ignore[attr-defined]
Tensor.sspaddmm = _sspaddmm_method  # type: ignore[attr-defined]
Tensor.sparse_mask = sparse_mask  # type: ignore[attr-defined]
SparseTensor.smm = smm  # type: ignore[attr-defined]
SparseTensor.sspaddmm = _sspaddmm_method  # type: ignore[attr-defined]
SparseTensor.sparse_mask = sparse_mask  # type: ignore[attr-defined]
Tensor.coalesce = _dense_coalesce  # type: ignore[attr-defined]
Tensor.is_coalesced = _dense_is_coalesced  # type: ignore[attr-defined]
Tensor.indices = _dense_indices  # type: ignore[attr-defined]
Tensor.values = _dense_values  # type: ignore[attr-defined]
Tensor.sparse_dim = _dense_sparse_dim  # type: ignore[attr-defined]
Tensor.dense_dim = _dense_dense_dim  # type: ignore[attr-defined]
