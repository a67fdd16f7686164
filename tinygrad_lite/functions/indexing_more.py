"""Indexing functions PyTorch has both as ``torch.*`` and as Tensor methods: ``put`` (writes at
flat indices), ``index_reduce`` (prod/mean/amax/amin of slices gathered by an index, with
gradients), ``nonzero_static``, ``as_strided``/``as_strided_scatter`` and the ``unsafe_*``
splits. Each is composed from recorded ops, so gradients come from them.

``as_strided`` reads this tensor's own elements in row-major order at ``storage_offset +
sum(i_k * stride_k)``: the same elements as PyTorch's for a contiguous tensor; PyTorch reads
the underlying storage instead, which differs for a view that starts inside a larger one. The
result is a copy (a gather, whose gradient is a scatter-add), not a view sharing memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of, is_float_dtype
from ..ops.linalg.inverse import torch_dtype_name
from .basic import amax, reshape
from .reduction import amin, prod
from .registry import public
from .scatters import index_put
from .shape import chunk, split
from .shape_extra import split_with_sizes

__all__ = ["put", "index_reduce", "nonzero_static", "as_strided", "as_strided_scatter",
           "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]

_REDUCTIONS = ("prod", "mean", "amax", "amin")


@public(out=True, inplace=True)
def put(input: TensorBase, index: TensorBase, source: TensorBase,
        accumulate: bool = False) -> TensorBase:
    """A copy of ``input`` with ``source`` written at the flat (row-major) positions ``index``
    (negative ones count from the end); ``accumulate`` adds instead, repeated indices adding
    up."""
    idx = index._data
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{torch_dtype_name(idx.dtype)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {torch_dtype_name(input._data.dtype)} and source.dtype "
                           f"= {torch_dtype_name(source._data.dtype)}")
    if source._data.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements,"
                         f" but got source.numel() = {source._data.size}, index.numel() = "
                         f"{idx.size}")
    n = input._data.size
    flat_idx = idx.reshape(-1)
    bad = flat_idx[(flat_idx >= n) | (flat_idx < -n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} "
                         "elements.")
    flat = reshape(input, (-1,))
    out = index_put(flat, (wrap(flat_idx % max(n, 1)),), reshape(source, (-1,)), accumulate)
    return reshape(out, input.shape)


def _check_index_reduce(input: TensorBase, dim: int, index: TensorBase, source: TensorBase,
                        reduce: str) -> np.ndarray:
    """PyTorch's checks of ``index_reduce``; returns the index as an array."""
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin"
                           f" but got {reduce}.")
    idx = index._data
    if idx.dtype not in (np.int32, np.int64):
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{torch_dtype_name(idx.dtype)}")
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{idx.ndim} with type: {torch_dtype_name(idx.dtype)} and size: "
                         f"{list(idx.shape)}")
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_reduce_(): self ({torch_dtype_name(input._data.dtype)}) and "
                           f"source ({torch_dtype_name(source._data.dtype)}) must have the same "
                           "scalar type")
    s_shape, x_shape = list(input._data.shape or (1,)), list(source._data.shape or (1,))
    if len(s_shape) != len(x_shape) or s_shape[:dim] + s_shape[dim + 1:] != \
            x_shape[:dim] + x_shape[dim + 1:]:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input._data.shape)} "
                           f"source.shape = {list(source._data.shape)}")
    if idx.size != x_shape[dim]:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({x_shape[dim]}), for dim: {dim}")
    if idx.size and (idx.min() < 0 or idx.max() >= s_shape[dim]):
        raise IndexError("index out of range in self")
    return idx.reshape(-1).astype(np.int64)


@public(out=True, inplace=True)
def index_reduce(input: TensorBase, dim: int, index: TensorBase, source: TensorBase,
                 reduce: str, *, include_self: bool = True) -> TensorBase:
    """A copy of ``input`` whose slices ``index[i]`` along ``dim`` become the ``reduce``
    ("prod", "mean", "amax", "amin") of the ``source`` slices ``i`` sent there (and of their
    own values with ``include_self``); slices nobody sends to keep their values. Differentiable
    in both: the members of each slice are gathered into a padded block and reduced by the
    ordinary reductions (amax/amin split the gradient evenly between ties; integer means round
    down, as PyTorch's)."""
    d = ops.normalize_dims(dim, max(input.ndim, 1), "index_reduce")[0]
    idx = _check_index_reduce(input, d, index, source, reduce)
    self_ = input if input.ndim else reshape(input, (1,))
    src = source if source.ndim else reshape(source, (1,))
    self_, src = self_.movedim(d, 0), src.movedim(d, 0)  # work along dim 0
    targets, slot = np.unique(idx, return_inverse=True)  # touched rows; each member's group
    groups = len(targets)
    if not groups:
        return input
    counts = np.bincount(slot.reshape(-1), minlength=groups)
    members = src if not include_self else ops.cat([self_[wrap(targets)], src], 0)
    group_of = slot.reshape(-1) if not include_self else np.concatenate([np.arange(groups),
                                                                         slot.reshape(-1)])
    counts = counts + (1 if include_self else 0)
    # member k of group g goes to row g, column (its rank within g) of a padded block
    order = np.argsort(group_of, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size) - np.repeat(np.cumsum(counts) - counts, counts)
    dt = input._data.dtype
    fill: Any = {"prod": 1, "mean": 0}.get(reduce)
    if fill is None:
        info = finfo_of(dt) if is_float_dtype(dt) else np.iinfo(dt)
        low, high = (-np.inf, np.inf) if is_float_dtype(dt) else (info.min, info.max)
        fill = low if reduce == "amax" else high
    block = wrap(np.full((groups, int(counts.max()), *self_.shape[1:]), fill, dt))
    block = index_put(block, (wrap(group_of), wrap(rank)), members)
    if reduce == "prod":
        reduced = prod(block, 1)
    elif reduce == "amax":
        reduced = amax(block, 1)
    elif reduce == "amin":
        reduced = amin(block, 1)
    else:
        shape = (groups,) + (1,) * (self_.ndim - 1)
        reduced = block.sum(1) / wrap(counts.reshape(shape).astype(dt))
        if not is_float_dtype(dt):
            reduced = reduced.floor()
    if reduced._data.dtype != dt:  # integer prod and mean come back as int64 / float
        reduced = ops.cast(reduced, dt)
    out = index_put(self_, (wrap(targets),), reduced).movedim(0, d)
    return out if input.ndim else reshape(out, ())


@public(out=True)
def nonzero_static(input: TensorBase, *, size: int, fill_value: int = -1) -> TensorBase:
    """``nonzero`` with exactly ``size`` rows: cut off, or padded with ``fill_value``."""
    if int(size) < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, got {size}")
    found = np.argwhere(input._data).astype(np.int64)[:size]
    out = np.full((int(size), input._data.ndim), fill_value, np.int64)
    out[:len(found)] = found
    return wrap(out)


def _strided_index(input: TensorBase, size: Any, stride: Any, storage_offset: Any,
                   op: str) -> np.ndarray:
    """The flat positions ``storage_offset + sum(i_k * stride_k)`` of an ``as_strided`` view
    (shape ``size``), checked to lie inside the tensor's elements."""
    size, stride = [int(n) for n in size], [int(n) for n in stride]
    offset = 0 if storage_offset is None else int(storage_offset)
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(stride)} strides for "
                           f"{len(size)} sizes)")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{op}: Negative strides are not supported at the moment, got "
                           f"strides: {stride}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    index = np.full(size, offset, np.int64)
    for k, (n, s) in enumerate(zip(size, stride, strict=True)):
        index = index + (np.arange(n) * s).reshape([n if j == k else 1 for j in range(len(size))])
    needed = 0 if 0 in size else offset + sum((n - 1) * s for n, s in zip(size, stride,
                                                                         strict=True)) + 1
    have = input._data.size
    if needed > have:
        item = input._data.itemsize
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset {offset},"
                           f" and itemsize {item} requiring a storage size of {needed * item} are"
                           f" out of bounds for storage of size {have * item}")
    return index


def as_strided(input: TensorBase, size: Any, stride: Any,
               storage_offset: int | None = None) -> TensorBase:
    """The elements at ``storage_offset + sum(i_k * stride_k)`` in shape ``size`` (see the
    module docstring: a copy, whose gradient adds back into overlapping positions)."""
    index = _strided_index(input, size, stride, storage_offset, "as_strided")
    return ops.getitem(reshape(input, (-1,)), wrap(index))


def as_strided_scatter(input: TensorBase, src: TensorBase, size: Any, stride: Any,
                       storage_offset: int | None = None) -> TensorBase:
    """A copy of ``input`` with ``src`` written where ``as_strided(size, stride,
    storage_offset)`` would read."""
    index = _strided_index(input, size, stride, storage_offset, "as_strided_scatter")
    if np.unique(index).size != index.size:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           f"tensor before performing the operation. (as_strided_scatter with "
                           f"size {list(index.shape)} and stride {list(stride)} overlaps)")
    if tuple(src.shape) != index.shape:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(index.shape)}")
    flat = index_put(reshape(input, (-1,)), (wrap(index.reshape(-1)),),
                     reshape(src.to(input.dtype), (-1,)))
    return reshape(flat, input.shape)


def unsafe_chunk(input: TensorBase, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` (PyTorch's variant without view tracking; the same pieces here)."""
    return chunk(input, chunks, dim)


def unsafe_split(input: TensorBase, split_size: int, dim: int = 0) -> tuple:
    """``split`` into pieces of ``split_size`` (without view tracking in PyTorch)."""
    return split(input, split_size, dim)


def unsafe_split_with_sizes(input: TensorBase, split_sizes: Any, dim: int = 0) -> tuple:
    """``split_with_sizes`` (without view tracking in PyTorch)."""
    return split_with_sizes(input, split_sizes, dim)
