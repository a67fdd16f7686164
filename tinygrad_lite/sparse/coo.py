"""``SparseTensor``: PyTorch's COO layout (``torch.sparse_coo``), as its own class.

A sparse tensor is ``indices`` (an int64 array of shape ``(sparse_dim, nnz)``), ``values`` (a
dense Tensor of shape ``(nnz, *dense_shape)``) and a size. It is not a ``Tensor`` subclass, so
the dense Tensor stays simple; what it supports is listed on the class. Gradients flow to the
values Tensor through ``to_dense``, ``coalesce``, products with dense matrices, ``sum`` and
``softmax``; a tensor made with ``requires_grad=True`` reports them as a sparse ``.grad``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from .. import dtypes, functions
from .._core.size import Size
from .._core.tensor_base import TensorBase
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.sparse_mm import spmm
from ..tensor import Tensor

__all__ = ["SparseTensor", "sparse_coo_tensor", "to_sparse", "wrap_dim"]


class SparseTensor:
    """A COO sparse tensor: ``shape``/``size()``, ``dtype``, ``is_sparse``, ``layout``,
    ``sparse_dim()``/``dense_dim()``, ``_nnz()``, ``indices()``/``values()`` (coalesced only)
    and ``_indices()``/``_values()``, ``coalesce()``, ``to_dense()``, ``@``/``mm``/``matmul``
    with a dense matrix, ``t()``, ``sum``, ``*``/``mul`` by a scalar, a dense tensor or a
    sparse one, ``abs``, ``pow``, ``+`` with a sparse or dense tensor,
    ``detach``/``clone``/``to``, ``requires_grad``/``grad``."""

    is_sparse = True
    is_cuda = False
    layout = "torch.sparse_coo"
    __array_ufunc__ = None  # ndarray op SparseTensor: let this class answer

    def __init__(self, indices: np.ndarray, values: TensorBase, size: tuple[int, ...],
                 coalesced: bool = False) -> None:
        self._idx = indices
        self._vals = values
        self._size = Size(size)
        self._coalesced = coalesced

    # -- attributes ------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        """The size of each dimension."""
        return self._size

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of dimension ``dim``."""
        return self._size if dim is None else self._size[dim]

    def dim(self) -> int:
        """The number of dimensions (sparse plus dense)."""
        return len(self._size)

    ndim = property(dim)

    @property
    def dtype(self) -> dtypes.DType:
        """The values' dtype."""
        return self._vals.dtype

    @property
    def device(self) -> Any:
        """The values' device (the CPU)."""
        return self._vals.device

    def sparse_dim(self) -> int:
        """How many leading dimensions are indexed by ``indices``."""
        return int(self._idx.shape[0])

    def narrow_copy(self, dim: int, start: int, length: int) -> SparseTensor:
        """The entries with ``start <= index < start + length`` along ``dim`` (a sparse dim:
        the entries kept and their index shifted; a dense dim: the values narrowed)."""
        nd = len(self._size)
        if not -nd <= dim < nd:
            raise IndexError(f"narrow_copy: dim {dim} is out of range for a sparse tensor of "
                             f"{nd} dims")
        dim %= nd
        start = start + self._size[dim] if start < 0 else start
        if start < 0 or length < 0 or start + length > self._size[dim]:
            raise RuntimeError(f"narrow_copy: start ({start}) + length ({length}) exceeds "
                               f"dimension size ({self._size[dim]})")
        size = list(self._size)
        size[dim] = length
        if dim < self.sparse_dim():
            keep = (self._idx[dim] >= start) & (self._idx[dim] < start + length)
            idx = self._idx[:, keep].copy()
            idx[dim] -= start
            return SparseTensor(idx, self._vals[functions.tensor(keep)], tuple(size),
                                self._coalesced)
        values = self._vals.narrow(dim - self.sparse_dim() + 1, start, length).clone()
        return SparseTensor(self._idx.copy(), values, tuple(size), self._coalesced)

    def dense_dim(self) -> int:
        """How many trailing dimensions each value has."""
        return self._vals.ndim - 1

    def _nnz(self) -> int:
        """The number of stored entries (duplicates counted until ``coalesce``)."""
        return int(self._idx.shape[1])

    def numel(self) -> int:
        """The number of elements of the dense equivalent."""
        return int(np.prod(self._size, dtype=np.int64))

    def is_coalesced(self) -> bool:
        """Whether the indices are sorted and unique."""
        return self._coalesced

    def _indices(self) -> Tensor:
        """The indices as stored (int64, ``(sparse_dim, nnz)``)."""
        return Tensor._wrap(self._idx)

    def _values(self) -> TensorBase:
        """The values as stored (a Tensor that gradients flow to)."""
        return self._vals

    def indices(self) -> Tensor:
        """The indices of a coalesced tensor."""
        self._require_coalesced("indices")
        return self._indices()

    def values(self) -> TensorBase:
        """The values of a coalesced tensor."""
        self._require_coalesced("values")
        return self._vals

    def _require_coalesced(self, what: str) -> None:
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                               ".coalesce() first")

    # -- autograd --------------------------------------------------------------------------
    @property
    def requires_grad(self) -> bool:
        """Whether gradients flow to the values."""
        return self._vals.requires_grad

    def requires_grad_(self, requires_grad: bool = True) -> SparseTensor:
        """Make the values a leaf that requires grad (PyTorch's rules for leaves)."""
        self._vals.requires_grad_(requires_grad)
        return self

    @property
    def grad(self) -> SparseTensor | None:
        """The values' gradient as a sparse tensor with these indices (leaves only)."""
        g = self._vals.grad
        if g is None:
            return None
        if self._coalesced:
            return SparseTensor(self._idx, g, self._size, True)
        # Duplicate entries each hold the gradient at their index: keep one of them, or the
        # dense gradient would count it twice (PyTorch's has one entry per distinct index).
        keys = self._flat_keys()
        _, first = np.unique(keys, return_index=True)
        return SparseTensor(self._idx[:, first], g[Tensor._wrap(first)], self._size)

    @property
    def is_leaf(self) -> bool:
        """Whether the values are a leaf of the graph."""
        return self._vals.is_leaf

    def detach(self) -> SparseTensor:
        """The same indices and values, outside the graph."""
        return SparseTensor(self._idx, self._vals.detach(), self._size, self._coalesced)

    def clone(self) -> SparseTensor:
        """A copy (values cloned, so gradients flow back)."""
        return SparseTensor(self._idx.copy(), self._vals.clone(), self._size, self._coalesced)

    def to(self, *args: Any, **kwargs: Any) -> SparseTensor:
        """Convert the values (``to(tl.float64)``; ``"cpu"`` accepted)."""
        return SparseTensor(self._idx, self._vals.to(*args, **kwargs), self._size,
                            self._coalesced)

    def float(self) -> SparseTensor:
        """Values as float32."""
        return self.to(dtypes.float32)

    def double(self) -> SparseTensor:
        """Values as float64."""
        return self.to(dtypes.float64)

    def cpu(self) -> SparseTensor:
        """This tensor."""
        return self

    # -- conversions -----------------------------------------------------------------------
    def _flat_keys(self) -> np.ndarray:
        """Each entry's row-major position among the sparse dimensions."""
        if self._idx.shape[0] == 0:
            return np.zeros(self._idx.shape[1], np.int64)
        return np.ravel_multi_index(tuple(self._idx), self._size[:self.sparse_dim()])

    def coalesce(self) -> SparseTensor:
        """Sorted, unique indices; the values of duplicate indices summed."""
        if self._coalesced:
            return self
        sparse_shape = tuple(self._size[:self.sparse_dim()])
        keys = self._flat_keys()
        unique, inverse = np.unique(keys, return_inverse=True)
        if unique.size == keys.size:  # no duplicates: only a reordering
            order = np.argsort(keys, kind="stable")
            values = self._vals[Tensor._wrap(order)]
        else:
            zeros = functions.zeros((unique.size,) + tuple(self._vals.shape[1:]),
                                    dtype=self._vals.dtype)
            values = functions.index_add(zeros, 0, Tensor._wrap(inverse.reshape(-1)),
                                         self._vals)
        indices = np.stack(np.unravel_index(unique, sparse_shape)).astype(np.int64) \
            if sparse_shape else np.zeros((0, unique.size), np.int64)
        return SparseTensor(indices.reshape(len(sparse_shape), -1), values, self._size, True)

    def to_dense(self, dtype: Any = None, *, masked_grad: bool = True) -> TensorBase:
        """The dense tensor (duplicates add up); differentiable in the values."""
        if dtype is not None:
            raise RuntimeError("dtype argument is not supported by sparse_to_dense")
        sparse_shape = tuple(self._size[:self.sparse_dim()])
        rows = int(np.prod(sparse_shape, dtype=np.int64))
        dense = functions.zeros((rows,) + tuple(self._vals.shape[1:]), dtype=self._vals.dtype)
        out = functions.index_add(dense, 0, Tensor._wrap(self._flat_keys()), self._vals)
        return out.reshape(tuple(self._size))

    def to_sparse(self, sparse_dim: int | None = None, **kwargs: Any) -> SparseTensor:
        """This tensor (already sparse; another ``sparse_dim`` is refused, as PyTorch)."""
        if sparse_dim is not None and sparse_dim != self.sparse_dim():
            raise RuntimeError("to_sparse: conversion from Sparse to Sparse with sparse_dim "
                               "argument !=self.sparse_dim() is not supported")
        return self

    def numpy(self) -> np.ndarray:
        """Refused, as PyTorch: convert with ``to_dense()`` first."""
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    # -- arithmetic ------------------------------------------------------------------------
    def _matrix(self, op: str) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
        if self.sparse_dim() != 2:  # PyTorch's message (its sparse mm is an addmm)
            raise RuntimeError(f"addmm: matrices expected, got {self.sparse_dim()}D tensor")
        if self.dense_dim() != 0:
            raise RuntimeError(f"{op}: expected a 2-D sparse matrix (sparse_dim 2, dense_dim "
                               f"0), got sparse_dim {self.sparse_dim()} and dense_dim "
                               f"{self.dense_dim()}")
        return self._idx[0], self._idx[1], (int(self._size[0]), int(self._size[1]))

    def mm(self, other: Any) -> Any:
        """``self @ other`` for a dense matrix (a dense result) or a sparse one (sparse)."""
        rows, cols, shape = self._matrix("mm")
        if isinstance(other, SparseTensor):
            return self.mm(other.to_dense()).to_sparse()
        if not isinstance(other, Tensor):
            raise TypeError(f"mm: expected a Tensor or sparse tensor, got {type(other).__name__}")
        if other.ndim not in (1, 2):
            raise RuntimeError(f"addmm: matrices expected, got {other.ndim}D tensor")
        if other.shape[0] != shape[1]:  # PyTorch's messages (its mm is an addmm)
            raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size {shape[1]}, "
                               f"got {other.shape[0]}")
        if other.dtype != self.dtype:
            raise RuntimeError(f"expected scalar type {torch_dtype_name(self.dtype.np)} but "
                               f"found {torch_dtype_name(other.dtype.np)}")
        if other.ndim == 1:
            return spmm(rows, cols, shape, self._vals, other.reshape(-1, 1)).reshape(-1)
        return spmm(rows, cols, shape, self._vals, other)

    matmul = mm
    __matmul__ = mm

    def t(self) -> SparseTensor:
        """The transpose of a 2-D sparse matrix."""
        if self.sparse_dim() > 2 or self.dense_dim() != 0:
            raise RuntimeError(f"t() expects a tensor with <= 2 sparse and 0 dense dimensions, "
                               f"but got {self.sparse_dim()} sparse and {self.dense_dim()} "
                               "dense dimensions")
        if self.dim() < 2:
            return self
        return SparseTensor(self._idx[::-1].copy(), self._vals, (self._size[1], self._size[0]))

    def transpose(self, dim0: int, dim1: int) -> SparseTensor:
        """Swap two sparse dimensions."""
        nd = self.sparse_dim()
        d0, d1 = dim0 % self.dim(), dim1 % self.dim()
        if d0 >= nd or d1 >= nd:
            raise RuntimeError("transpose: only sparse dimensions of a sparse tensor can be "
                               "swapped here")
        order = list(range(nd))
        order[d0], order[d1] = order[d1], order[d0]
        size = list(self._size)
        size[d0], size[d1] = size[d1], size[d0]
        return SparseTensor(self._idx[order].copy(), self._vals, tuple(size))

    def __mul__(self, other: Any) -> SparseTensor:
        """Elementwise product with a scalar, a dense tensor that broadcasts to this size, or a
        sparse tensor of the same size (their common entries); the result is sparse."""
        if isinstance(other, (int, float)) or (isinstance(other, Tensor) and other.ndim == 0):
            return SparseTensor(self._idx, self._vals * other, self._size, self._coalesced)
        if isinstance(other, SparseTensor):
            return self._mul_sparse(other)
        if isinstance(other, Tensor):
            _check_broadcast(tuple(other.shape), tuple(self._size))
            full = other.expand(*self._size)
            picked = full[tuple(Tensor._wrap(i) for i in self._idx)] if self.sparse_dim() \
                else full.unsqueeze(0).expand(self._nnz(), *self._size)
            return SparseTensor(self._idx, self._vals * picked, self._size, self._coalesced)
        raise TypeError(f"mul: unsupported operand {type(other).__name__}")

    def _mul_sparse(self, other: SparseTensor) -> SparseTensor:
        """The product at the indices both store (duplicates summed first)."""
        if self.shape != other.shape or self.sparse_dim() != other.sparse_dim():
            raise RuntimeError("sparse_binary_op_intersection_cpu(): expects sparse inputs "
                               "with equal dimensionality, number of sparse dimensions, and "
                               "shape of sparse dimensions")
        a, b = self.coalesce(), other.coalesce()
        _, ia, ib = np.intersect1d(a._flat_keys(), b._flat_keys(), assume_unique=True,
                                   return_indices=True)
        values = a._vals[Tensor._wrap(ia)] * b._vals[Tensor._wrap(ib)]
        return SparseTensor(a._idx[:, ia], values, self._size, True)

    __rmul__ = __mul__
    mul = __mul__

    def __abs__(self) -> SparseTensor:
        x = self.coalesce()  # |a + b| differs from |a| + |b|: duplicates are summed first
        return SparseTensor(x._idx, x._vals.abs(), self._size, True)

    abs = __abs__

    def pow(self, exponent: Any) -> SparseTensor:
        """The stored values to a positive power (zeros stay zero)."""
        if exponent == 0:
            raise RuntimeError("pow: cannot raise to zeroth power on sparse tensor; it would "
                               "make the result tensor dense")
        # (a + b)**p differs from a**p + b**p: duplicates are summed first
        x = self.coalesce()
        return SparseTensor(x._idx, x._vals ** exponent, self._size, True)

    __pow__ = pow

    def __truediv__(self, other: Any) -> SparseTensor:
        return self * (1.0 / other)

    def __neg__(self) -> SparseTensor:
        return self * -1

    def __add__(self, other: Any) -> Any:
        if isinstance(other, SparseTensor):
            if other.shape != self.shape:
                raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                                   f"{list(self.shape)} != {list(other.shape)}")
            dtype = dtypes.from_numpy_dtype(dtypes.promote_types(self.dtype.np, other.dtype.np))
            values = functions.cat([self._vals.to(dtype), other._vals.to(dtype)])
            return SparseTensor(np.concatenate([self._idx, other._idx], 1), values,
                                self._size).coalesce()
        if isinstance(other, Tensor):
            return self.to_dense() + other
        raise TypeError(f"add: unsupported operand {type(other).__name__}")

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        return self + (-other)

    def sum(self, dim: Any = None, keepdim: bool = False, dtype: Any = None) -> Any:
        """``tl.sparse.sum``: all entries (dense 0-d), or over ``dim``."""
        return sparse_sum(self, dim, dtype)

    def __repr__(self) -> str:
        # As PyTorch: the parts print without their dtype; the sparse tensor's own dtype
        # (unless a default one) and its autograd state close the line.
        idx = _part_repr(Tensor._wrap(self._idx)).replace("\n", "\n" + " " * 15)
        vals = _part_repr(self._vals.detach()).replace("\n", "\n" + " " * 14)
        tail = ""
        if self.dtype not in (dtypes.get_default_dtype(), dtypes.int64, dtypes.bool):
            tail += f", dtype={self.dtype!r}"
        tail += ", layout=torch.sparse_coo"
        if self._vals.grad_fn is not None:
            tail += f", grad_fn=<{type(self._vals.grad_fn).__name__}>"
        elif self._vals.requires_grad:
            tail += ", requires_grad=True"
        return (f"tensor(indices={idx},\n       values={vals},\n       size="
                f"{tuple(self._size)}, nnz={self._nnz()}{tail})")

    def __len__(self) -> int:
        return int(self._size[0])


def _check_broadcast(dense: tuple[int, ...], size: tuple[int, ...]) -> None:
    """Refuse a dense factor that does not broadcast to the sparse size: PyTorch's message
    when the shapes clash; a larger result (which PyTorch makes) is not supported here."""
    nd = max(len(dense), len(size))
    for i in range(1, min(len(dense), len(size)) + 1):
        if dense[-i] != size[-i] and dense[-i] != 1:
            raise RuntimeError(f"The size of tensor a ({dense[-i]}) must match the size of "
                               f"tensor b ({size[-i]}) at non-singleton dimension {nd - i}")
    if len(dense) > len(size):
        raise RuntimeError(f"mul: a sparse tensor of size {list(size)} times a dense tensor of "
                           f"shape {list(dense)}: a result larger than the sparse tensor is not "
                           "supported")


def _part_repr(part: Any) -> str:
    """The repr of a sparse tensor's indices or values: without ``dtype=``, with ``size=``
    when empty (even 1-D), as PyTorch prints them."""
    text = re.sub(r", dtype=[\w.]+\)$", ")", repr(part))
    if part.numel() == 0 and "size=" not in text:
        text = f"{text[:-1]}, size={tuple(part.shape)})"
    return text


def wrap_dim(dim: int, ndim: int) -> int:
    """``dim`` in ``[0, ndim)``; PyTorch's IndexError when it is out of range."""
    if not -ndim <= dim < ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim % ndim


def sparse_sum(input: SparseTensor, dim: Any = None, dtype: Any = None) -> Any:
    """Sum of all entries (a dense 0-d tensor), or over ``dim``: a sparse result while sparse
    dimensions remain, else dense."""
    vals = input._vals if dtype is None else input._vals.to(dtype)
    if dim is None:
        return vals.sum()
    dims = [wrap_dim(d, input.dim()) for d in ((dim,) if isinstance(dim, int) else dim)]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    dims.sort()
    nd = input.sparse_dim()
    dense_dims = [d - nd + 1 for d in dims if d >= nd]
    if dense_dims:
        vals = vals.sum(dense_dims)
    keep = [d for d in range(nd) if d not in dims]
    if not keep:
        return vals.sum(0)
    size = [input._size[d] for d in keep] + [s for d, s in enumerate(input._size)
                                             if d >= nd and d not in dims]
    return SparseTensor(input._idx[keep], vals, tuple(size)).coalesce()


def sparse_coo_tensor(indices: Any, values: Any, size: Any = None, *, dtype: Any = None,
                      device: Any = None, requires_grad: bool = False,
                      check_invariants: bool | None = None,
                      is_coalesced: bool | None = None) -> SparseTensor:
    """A COO sparse tensor from ``indices`` (``(sparse_dim, nnz)`` integers), ``values``
    (``(nnz, *dense_shape)``) and ``size`` (inferred from the largest index when None)."""
    idx = np.asarray(indices._data if isinstance(indices, Tensor) else indices)
    if idx.size == 0 and idx.ndim < 2:
        idx = idx.reshape(len(size) if size is not None else 1, 0)
    if idx.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(idx.shape)}")
    if idx.dtype.kind not in "iufb":
        raise RuntimeError(f"indices must be an int64 tensor, got {idx.dtype}")
    if idx.dtype.kind == "f" and not np.isfinite(idx).all():
        raise RuntimeError("sparse_coo_tensor: indices must be finite numbers")
    idx = idx.astype(np.int64)  # floats and bools convert (truncated), as in PyTorch
    if isinstance(values, Tensor):
        vals = values if dtype is None else values.to(dtype)
    else:
        vals = functions.tensor(values, dtype=dtype)
    if vals.ndim == 0:
        raise RuntimeError("values must have at least one dimension (nnz, *dense_shape)")
    if idx.shape[1] != vals.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{idx.shape[1]}, nnz from values: {vals.shape[0]}")
    if idx.size and idx.min() < 0:  # checked always (PyTorch only with check_invariants)
        d = int(np.nonzero((idx < 0).any(1))[0][0])
        raise RuntimeError(f"found negative index {int(idx[d].min())} for dim {d}")
    sparse_dim = idx.shape[0]
    if size is None:
        sparse_size = tuple(int(m) + 1 for m in idx.max(1)) if idx.shape[1] else (0,) * sparse_dim
        full = sparse_size + tuple(vals.shape[1:])
    else:
        full = tuple(int(s) for s in size)
        if len(full) != sparse_dim + vals.ndim - 1:
            raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: "
                               f"len(size) = {len(full)}, sparse_dim = {sparse_dim}, dense_dim "
                               f"= {vals.ndim - 1}")
        if tuple(vals.shape[1:]) != full[sparse_dim:]:
            raise RuntimeError(f"values has incorrect size, expected "
                               f"{[vals.shape[0], *full[sparse_dim:]]}, got {list(vals.shape)}")
        for d in range(sparse_dim):
            if idx.shape[1] and idx[d].max() >= full[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                                   f"{full[d]} but found index {int(idx[d].max())}")
    if requires_grad:
        vals = vals.detach().requires_grad_(True) if vals.grad_fn is not None or \
            not vals.is_leaf else vals.requires_grad_(True)
    # at most one entry is coalesced whatever the flag says (PyTorch sets it so)
    return SparseTensor(idx, vals, full, bool(is_coalesced) or idx.shape[1] <= 1)


def to_sparse(input: Tensor, sparse_dim: int | None = None, *, layout: Any = None,
              blocksize: Any = None, dense_dim: Any = None) -> SparseTensor:
    """``Tensor.to_sparse()``: the nonzero entries (of the first ``sparse_dim`` dimensions)
    as a coalesced COO tensor; differentiable."""
    if layout not in (None, "torch.sparse_coo") or blocksize is not None:
        raise RuntimeError(f"to_sparse: only the COO layout is supported, got {layout}")
    nd = input.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= nd <= input.ndim:
        raise RuntimeError(f"dense_to_sparse: sparse_dim argument must be in [0,{input.ndim}] "
                           f"range, but {nd} is given")
    if nd == 0 and input.ndim:
        raise RuntimeError("dense_to_sparse: sparse_dim argument must be in >0 when "
                           "self.dim()>0")
    if nd == 0:  # a 0-d tensor: one entry (none if it is zero) with no index
        nnz = int(input._data != 0)
        return SparseTensor(np.zeros((0, nnz), np.int64), input.reshape(1)[:nnz], (), True)
    # each index of the sparse dims is stored when any of its dense values is nonzero
    data = input._data.reshape(input._data.shape[:nd] + (-1,)) if input._data.size else \
        np.zeros(input._data.shape[:nd] + (0,), input._data.dtype)
    mask = (data != 0).any(-1) if nd < input.ndim else input._data != 0
    indices = np.stack(np.nonzero(mask)).astype(np.int64).reshape(nd, -1)
    values = input[tuple(Tensor._wrap(i) for i in indices)]
    return SparseTensor(indices, values, tuple(input.shape), True)
