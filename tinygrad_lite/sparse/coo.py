"""``SparseTensor``: PyTorch's COO layout (``torch.sparse_coo``), as its own class.

A sparse tensor is ``indices`` (an int64 array of shape ``(sparse_dim, nnz)``), ``values`` (a
dense Tensor of shape ``(nnz, *dense_shape)``) and a size. It is not a ``Tensor`` subclass, so
the dense Tensor stays simple; what it supports is listed on the class. Gradients flow to the
values Tensor through ``to_dense``, ``coalesce``, products with dense matrices, ``sum`` and
``softmax``; a tensor made with ``requires_grad=True`` reports them as a sparse ``.grad``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes, functions
from .._core.size import Size
from .._core.tensor_base import TensorBase
from ..ops.sparse_mm import spmm
from ..tensor import Tensor

__all__ = ["SparseTensor", "sparse_coo_tensor", "to_sparse"]


class SparseTensor:
    """A COO sparse tensor: ``shape``/``size()``, ``dtype``, ``is_sparse``, ``layout``,
    ``sparse_dim()``/``dense_dim()``, ``_nnz()``, ``indices()``/``values()`` (coalesced only)
    and ``_indices()``/``_values()``, ``coalesce()``, ``to_dense()``, ``@``/``mm``/``matmul``
    with a dense matrix, ``t()``, ``sum``, ``*`` by a scalar, ``+`` with a sparse or dense
    tensor, ``detach``/``clone``/``to``, ``requires_grad``/``grad``."""

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
        return None if g is None else SparseTensor(self._idx, g, self._size, self._coalesced)

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
        sparse_shape = tuple(self._size[:self.sparse_dim()])
        rows = int(np.prod(sparse_shape, dtype=np.int64))
        dense = functions.zeros((rows,) + tuple(self._vals.shape[1:]), dtype=self._vals.dtype)
        out = functions.index_add(dense, 0, Tensor._wrap(self._flat_keys()), self._vals)
        out = out.reshape(tuple(self._size))
        return out if dtype is None else out.to(dtype)

    def to_sparse(self, *args: Any, **kwargs: Any) -> SparseTensor:
        """This tensor (already sparse)."""
        return self

    def numpy(self) -> np.ndarray:
        """Refused, as PyTorch: convert with ``to_dense()`` first."""
        raise TypeError("can't convert a sparse tensor to numpy; call .to_dense() first")

    # -- arithmetic ------------------------------------------------------------------------
    def _matrix(self, op: str) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
        if self.sparse_dim() != 2 or self.dense_dim() != 0:
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
        if other.ndim not in (1, 2) or other.shape[0] != shape[1]:
            raise RuntimeError(f"mm: a sparse matrix of size {tuple(shape)} cannot be "
                               f"multiplied by a dense tensor of shape {tuple(other.shape)}")
        if other.dtype != self.dtype:
            raise RuntimeError(f"mm: expected the dense operand to have dtype {self.dtype}, "
                               f"got {other.dtype}")
        if other.ndim == 1:
            return spmm(rows, cols, shape, self._vals, other.reshape(-1, 1)).reshape(-1)
        return spmm(rows, cols, shape, self._vals, other)

    matmul = mm
    __matmul__ = mm

    def t(self) -> SparseTensor:
        """The transpose of a 2-D sparse matrix."""
        self._matrix("t")
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
        if isinstance(other, (int, float)) or (isinstance(other, Tensor) and other.ndim == 0):
            return SparseTensor(self._idx, self._vals * other, self._size, self._coalesced)
        raise TypeError("sparse * : only a scalar (or 0-d tensor) factor is supported; use "
                        "to_dense() for elementwise products")

    __rmul__ = __mul__

    def __truediv__(self, other: Any) -> SparseTensor:
        return self * (1.0 / other)

    def __neg__(self) -> SparseTensor:
        return self * -1

    def __add__(self, other: Any) -> Any:
        if isinstance(other, SparseTensor):
            if other.shape != self.shape:
                raise RuntimeError(f"add: sparse tensors of sizes {tuple(self.shape)} and "
                                   f"{tuple(other.shape)} differ")
            values = functions.cat([self._vals, other._vals.to(self.dtype)])
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
        idx = repr(Tensor._wrap(self._idx)).replace("\n", "\n" + " " * 15)
        vals = repr(self._vals).replace("\n", "\n" + " " * 14)
        return (f"tensor(indices={idx},\n       values={vals},\n       size="
                f"{tuple(self._size)}, nnz={self._nnz()}, layout=torch.sparse_coo)")

    def __len__(self) -> int:
        return int(self._size[0])


def sparse_sum(input: SparseTensor, dim: Any = None, dtype: Any = None) -> Any:
    """Sum of all entries (a dense 0-d tensor), or over ``dim``: a sparse result while sparse
    dimensions remain, else dense."""
    vals = input._vals if dtype is None else input._vals.to(dtype)
    if dim is None:
        return vals.sum()
    dims = sorted({d % input.dim() for d in ((dim,) if isinstance(dim, int) else dim)})
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
    if idx.size and idx.min() < 0:
        raise RuntimeError(f"found negative index {int(idx.min())} in the indices")
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
            raise RuntimeError(f"values has dense shape {tuple(vals.shape[1:])}, but size says "
                               f"{full[sparse_dim:]}")
        for d in range(sparse_dim):
            if idx.shape[1] and idx[d].max() >= full[d]:
                raise RuntimeError(f"size is inconsistent with indices: for dim {d}, size is "
                                   f"{full[d]} but found index {int(idx[d].max())}")
    if requires_grad:
        vals = vals.detach().requires_grad_(True) if vals.grad_fn is not None or \
            not vals.is_leaf else vals.requires_grad_(True)
    return SparseTensor(idx, vals, full, bool(is_coalesced))


def to_sparse(input: Tensor, sparse_dim: int | None = None, *, layout: Any = None,
              blocksize: Any = None, dense_dim: Any = None) -> SparseTensor:
    """``Tensor.to_sparse()``: the nonzero entries (of the first ``sparse_dim`` dimensions)
    as a coalesced COO tensor; differentiable."""
    if layout not in (None, "torch.sparse_coo") or blocksize is not None:
        raise RuntimeError(f"to_sparse: only the COO layout is supported, got {layout}")
    nd = input.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= nd <= input.ndim:
        raise RuntimeError(f"to_sparse: sparse_dim must be in [0, {input.ndim}], got {nd}")
    data = input._data.reshape(input._data.shape[:nd] + (-1,))
    mask = (data != 0).any(-1) if nd < input.ndim else input._data != 0
    indices = np.stack(np.nonzero(mask)).astype(np.int64).reshape(nd, -1)
    values = input[tuple(Tensor._wrap(i) for i in indices)] if nd else input.unsqueeze(0)
    return SparseTensor(indices, values, tuple(input.shape), True)
