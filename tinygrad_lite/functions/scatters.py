"""The functional API, out-of-place writes: ``index_put`` (and ``index_put_``),
``diagonal_scatter``, ``select_scatter``, ``slice_scatter``, and ``as_strided`` with its
``as_strided_scatter`` (a strided view's elements as an index).

Each is the index_put primitive (``ops/indexing.py``) at an index built here, so each is
differentiable in both the input (zero gradient where overwritten) and the written values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from .._core.tensor_base import TensorBase, wrap
from ..ops import inplace
from ..ops.indexing import index_put as _index_put
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.movement import indexed_view, memory_root
from .basic import reshape

__all__ = ["index_put", "index_put_", "diagonal_scatter", "select_scatter", "slice_scatter",
           "as_strided", "as_strided_scatter"]


def _index_tuple(indices: Any) -> tuple:
    """PyTorch's ``indices`` (a tuple or list of integer or bool tensors) as a NumPy index, bool
    masks expanded to their nonzero coordinates (which is what they select)."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if not indices:
        raise RuntimeError("index_put(): expected at least one index tensor")
    out: list = []
    for k, index in enumerate(indices):
        if not isinstance(index, TensorBase):
            raise TypeError(f"expected Tensor as element {k} in argument 1, but got "
                            f"{type(index).__name__}")
        arr = index._data
        if arr.dtype == np.bool_:
            out.extend(np.nonzero(arr))
        elif arr.dtype.kind == "i":
            out.append(arr)
        else:  # PyTorch's uint8 masks are deprecated, and index_put refuses them too
            raise IndexError(f"tensors used as indices must be long, int or bool tensors, not "
                             f"{arr.dtype}")
    return tuple(out)


def index_put(input: TensorBase, indices: Any, values: TensorBase,
              accumulate: bool = False) -> TensorBase:
    """A copy of ``input`` with ``values`` (broadcast) written at ``input[indices]``; with
    ``accumulate``, added there instead (repeated indices add up)."""
    index = _index_tuple(indices)
    if not isinstance(values, TensorBase):
        raise TypeError(f"index_put(): argument 'values' must be Tensor, not "
                        f"{type(values).__name__}")
    if values._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Index put requires the source and destination dtypes match, got "
            f"{torch_dtype_name(input._data.dtype)} for the destination and "
            f"{torch_dtype_name(values._data.dtype)} for the source.")
    if len(index) > input._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input._data.ndim} (got "
                         f"{len(index)})")
    return _index_put(input, index, values, accumulate, op="index_put")


def index_put_(input: TensorBase, indices: Any, values: TensorBase,
               accumulate: bool = False) -> TensorBase:
    """In place: ``index_put``."""
    return inplace.apply(input, "index_put_",
                         lambda s: index_put(s, indices, values, accumulate))


def _dim(dim: int, shape: tuple, op: str, view: str) -> int:
    """``dim`` range-checked; PyTorch refuses select and slice views of a 0-dim tensor."""
    if not shape:
        if view == "diagonal":  # diagonal's second dimension (1) is out of range of [-1, 0]
            ops.normalize_dims(1, 1, op)
        raise IndexError(f"{view}() cannot be applied to a 0-dim tensor.")
    return ops.normalize_dims(dim, len(shape), op)[0]


def _scatter_into(input: TensorBase, src: Any, index: tuple, slice_shape: tuple,
                  op: str) -> TensorBase:
    """``input`` with ``src`` written at ``index``, whose selection has ``slice_shape``
    (``src`` must have exactly that shape; its dtype is converted to ``input``'s)."""
    if not isinstance(src, TensorBase):
        raise TypeError(f"{op}(): argument 'src' (position 2) must be Tensor, not "
                        f"{type(src).__name__}")
    if src._data.shape != tuple(slice_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(slice_shape)}")
    return _index_put(input, index, src, op=op)


def diagonal_scatter(input: TensorBase, src: TensorBase, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> TensorBase:
    """A copy of ``input`` with ``src`` written on ``input.diagonal(offset, dim1, dim2)``."""
    shape = input._data.shape
    d1, d2 = (_dim(d, shape, "diagonal_scatter", "diagonal") for d in (dim1, dim2))
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    # the coordinates of each diagonal element, laid out as diagonal() lays out the diagonal
    positions = np.diagonal(np.arange(int(np.prod(shape))).reshape(shape), offset, d1, d2)
    index = np.unravel_index(positions, shape)
    return _scatter_into(input, src, index, positions.shape, "diagonal_scatter")


def select_scatter(input: TensorBase, src: TensorBase, dim: int, index: int) -> TensorBase:
    """A copy of ``input`` with ``src`` written on ``input.select(dim, index)``."""
    shape = input._data.shape
    d = _dim(dim, shape, "select_scatter", "select")
    n = shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(shape)} at dimension {d}")
    at = (slice(None),) * d + (int(index) % n,)
    return _scatter_into(input, src, at, shape[:d] + shape[d + 1:], "select_scatter")


def slice_scatter(input: TensorBase, src: TensorBase, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> TensorBase:
    """A copy of ``input`` with ``src`` written on ``input[..., start:end:step, ...]`` (at
    dimension ``dim``)."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    shape = input._data.shape
    d = _dim(dim, shape, "slice_scatter", "slice")
    part = slice(start, end, step)
    length = len(range(*part.indices(shape[d])))
    at = (slice(None),) * d + (part,)
    return _scatter_into(input, src, at, shape[:d] + (length,) + shape[d + 1:],
                         "slice_scatter")


def _strided_index(input: TensorBase, size: Any, stride: Any, storage_offset: Any,
                   op: str, storage: int | None = None) -> np.ndarray:
    """The flat positions ``storage_offset + sum(i_k * stride_k)`` of an ``as_strided`` view
    (shape ``size``), checked to lie inside ``storage`` elements (the tensor's, by default)."""
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
    have = input._data.size if storage is None else storage
    if needed > have:
        item = input._data.itemsize
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset {offset},"
                           f" and itemsize {item} requiring a storage size of {needed * item} are"
                           f" out of bounds for storage of size {have * item}")
    return index


def _flat_storage(data: np.ndarray) -> tuple[np.ndarray, int] | None:
    """The memory ``data`` views (the array at the root of its ``base`` chain, as its storage)
    as a flat array of its dtype, and where ``data``'s first element lies in it; None when that
    memory cannot be read so (not dense, or of another dtype)."""
    root = memory_root(data)
    if root.dtype != data.dtype or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    flat = root.reshape(-1, order="A")  # (memory order: a view)
    if not data.itemsize or not data.size:
        return flat, 0
    first = data.__array_interface__["data"][0] - flat.__array_interface__["data"][0]
    return flat, first // data.itemsize


def as_strided(input: TensorBase, size: Any, stride: Any,
               storage_offset: int | None = None) -> TensorBase:
    """The elements at ``storage_offset + sum(i_k * stride_k)`` of the tensor's memory (its
    storage, as in PyTorch: a view's base's), in shape ``size``; ``storage_offset`` defaults to
    the tensor's own. A view of that memory when every element read is one of the tensor's
    (read-only where elements repeat), recorded as the index of those elements for the gradient,
    which adds back into repeated positions; else a copy."""
    data = input._data
    found = _flat_storage(data)
    if found is None:  # the tensor's own elements in row-major order, as its storage
        index = _strided_index(input, size, stride, storage_offset, "as_strided")
        return ops.getitem(reshape(input, (-1,)), wrap(index))
    flat, own = found
    index = _strided_index(input, size, stride, own if storage_offset is None else storage_offset,
                           "as_strided", flat.size)
    x = input if data.ndim else reshape(input, (1,))
    # where each of the tensor's elements lies in the memory, and which element lies where
    steps = np.array(x._data.strides, np.int64) // data.itemsize
    where = own + sum(np.arange(n).reshape([n if j == k else 1 for j in range(x.ndim)]) * s
                      for k, (n, s) in enumerate(zip(x._data.shape, steps)))
    element = np.full(flat.size, -1, np.int64)
    element[np.asarray(where).ravel()] = np.arange(data.size)
    picked = element[index]
    if (picked >= 0).all():
        at = np.unravel_index(picked, x._data.shape)
        start = int(index.min()) if index.size else 0
        # (a view whose base is the memory, so storage_offset() finds its place in it)
        out = np.ndarray(index.shape, data.dtype, flat, start * data.itemsize,
                         tuple(int(s) * data.itemsize for s in stride))
        if np.unique(index).size != index.size:
            out.flags.writeable = False  # PyTorch refuses writes to overlapping elements too
        return indexed_view(x, at, out)
    # some elements read lie outside the tensor: their values, without a gradient
    inside = picked >= 0
    mine = ops.getitem(x, np.unravel_index(np.where(inside, picked, 0), x._data.shape))
    return ops.where(wrap(inside), mine, wrap(flat[index]))


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
