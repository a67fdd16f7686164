"""More shape and indexing functions, composed from cat/reshape/expand/getitem/index_put so
their gradients come for free: meshgrid, the stacks, repeat_interleave, rot90, take,
index_add/index_copy/index_fill, block_diag, cartesian_prod, combinations,
tril/triu_indices, atleast_nd, tensor_split and friends."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import ops
from .._core.size import Size
from .._core.tensor_base import TensorBase, wrap
from .basic import transpose
from .creation import tensor as _tensor
from .indexing import index_select, same_dtype
from .registry import declare, public
from .shape import cat, flip, movedim, split, stack

__all__ = ["meshgrid", "hstack", "vstack", "dstack", "column_stack", "row_stack",
           "repeat_interleave", "moveaxis", "swapaxes", "swapdims", "rot90", "take",
           "index_add", "index_copy", "index_fill", "masked_scatter",
           "block_diag", "cartesian_prod", "combinations", "tril_indices", "triu_indices",
           "atleast_1d", "atleast_2d", "atleast_3d", "tensor_split", "hsplit", "vsplit",
           "dsplit", "fliplr", "flipud", "narrow_copy", "ravel", "split_with_sizes", "argwhere",
           "adjoint", "broadcast_shapes", "broadcast_tensors"]


def _seq(tensors: Any) -> list[TensorBase]:
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def meshgrid(*tensors: Any, indexing: str = "ij") -> tuple:
    """Coordinate grids from 1-D tensors: ``ij`` (matrix) or ``xy`` (Cartesian) indexing."""
    ts = _seq(tensors)
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if any(t.ndim > 1 for t in ts):
        raise RuntimeError("meshgrid: expects 0- or 1-dimensional tensors")
    ts = [t.reshape(-1) for t in ts]
    swap = indexing == "xy" and len(ts) >= 2
    if swap:
        ts[0], ts[1] = ts[1], ts[0]
    shape = tuple(t.shape[0] for t in ts)
    grids = []
    for i, t in enumerate(ts):
        view = [1] * len(ts)
        view[i] = -1
        grids.append(t.reshape(*view).expand(*shape))
    if swap:  # xy: the grids of the swapped inputs, handed back in the callers' order
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least one dimension."""
    out = [t.reshape(1) if t.ndim == 0 else t for t in _seq(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least two dimensions (a vector becomes a row)."""
    out = [t.reshape(1, -1) if t.ndim < 2 else t for t in _seq(tensors)]
    return out[0] if len(out) == 1 else tuple(out)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least three dimensions (as NumPy's atleast_3d)."""
    out = []
    for t in _seq(tensors):
        if t.ndim == 0:
            t = t.reshape(1, 1, 1)
        elif t.ndim == 1:
            t = t.reshape(1, -1, 1)
        elif t.ndim == 2:
            t = t.unsqueeze(-1)
        out.append(t)
    return out[0] if len(out) == 1 else tuple(out)


@public(out=True)
def hstack(tensors: Any) -> TensorBase:
    """Concatenate column-wise (along dim 1; dim 0 for 1-D tensors)."""
    ts = [atleast_1d(t) for t in tensors]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


@public(out=True)
def vstack(tensors: Any) -> TensorBase:
    """Concatenate row-wise, 1-D tensors as rows."""
    return cat([atleast_2d(t) for t in tensors], 0)


row_stack = vstack
declare("row_stack", out=True)


@public(out=True)
def dstack(tensors: Any) -> TensorBase:
    """Concatenate along the third dimension."""
    return cat([atleast_3d(t) for t in tensors], 2)


@public(out=True)
def column_stack(tensors: Any) -> TensorBase:
    """Stack 1-D tensors as columns (2-D tensors are concatenated as they are)."""
    return cat([t.reshape(-1, 1) if t.ndim < 2 else t for t in tensors], 1)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> TensorBase:
    """Each element (or slice along ``dim``) repeated ``repeats`` times (an int or one count per
    element); with a single integer tensor argument, the indices ``i`` repeated ``input[i]``
    times."""
    if repeats is None:
        counts = input._data.astype(np.int64)
        return wrap(np.repeat(np.arange(len(counts)), counts))
    x = input if dim is not None else input.reshape(-1)
    d = 0 if dim is None else dim % max(x.ndim, 1)
    counts = repeats._data if isinstance(repeats, TensorBase) else np.asarray(repeats)
    n = x.shape[d]
    if counts.ndim and counts.size not in (1, n):
        raise RuntimeError(f"repeat_interleave: repeats must have the same size as input "
                           f"along dim ({n}), got {counts.size}")
    if (counts < 0).any():
        raise RuntimeError("repeat_interleave: repeats can not be negative")
    if counts.size == 1 and x.ndim:  # one count for every slice: no index needed
        return ops.movement.repeat_interleave(x, int(counts.reshape(-1)[0]), d)
    index = np.repeat(np.arange(n), np.broadcast_to(counts.reshape(-1), (n,)))
    return index_select(x, d, wrap(index))


def moveaxis(input: TensorBase, source: Any, destination: Any) -> TensorBase:
    """``movedim`` (NumPy's name)."""
    return movedim(input, source, destination)


@public(inplace='shape')
def swapaxes(input: TensorBase, axis0: int, axis1: int) -> TensorBase:
    """``transpose`` (NumPy's name)."""
    return transpose(input, axis0, axis1)


swapdims = swapaxes
declare("swapdims", inplace='shape')


def rot90(input: TensorBase, k: int = 1, dims: Any = (0, 1)) -> TensorBase:
    """Rotated by 90 degrees ``k`` times in the plane ``dims`` (from the first axis towards
    the second)."""
    if len(dims) != 2 or dims[0] % input.ndim == dims[1] % input.ndim:
        raise RuntimeError(f"rot90: expected total rotation dims == 2 and distinct, got {dims}")
    k %= 4
    a, b = dims
    if k == 1:
        return transpose(flip(input, (b,)), a, b)
    if k == 2:
        return flip(input, (a, b))
    if k == 3:
        return flip(transpose(input, a, b), (b,))
    return input


@public(out=True)
def take(input: TensorBase, index: TensorBase) -> TensorBase:
    """Elements of the flattened input at ``index`` (its shape kept)."""
    return input.reshape(-1)[index]


def _along(dim: int, ndim: int, index: Any) -> tuple:
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


@public(out=True, inplace=True)
def index_add(input: TensorBase, dim: int, index: TensorBase, source: TensorBase, *,
              alpha: float = 1) -> TensorBase:
    """A copy of ``input`` with ``alpha * source`` slices added at ``index`` along ``dim``
    (repeats add up)."""
    same_dtype(input, source, "index_add_(): self ({0}) and source ({1}) must have the same "
                              "scalar type")
    d = dim % input.ndim
    values = source if alpha == 1 else source * alpha
    return ops.index_put(input, _along(d, input.ndim, index._data), values, accumulate=True,
                         op="index_add")


@public(out=True, inplace=True)
def index_copy(input: TensorBase, dim: int, index: TensorBase, source: TensorBase) -> TensorBase:
    """A copy of ``input`` with ``source`` slices written at ``index`` along ``dim``."""
    same_dtype(input, source, "index_copy_(): self and source expected to have the same "
                              "dtype, but got (self) {0} and (source) {1}")
    d = dim % input.ndim
    return ops.index_put(input, _along(d, input.ndim, index._data), source, op="index_copy")


@public(inplace=True)
def index_fill(input: TensorBase, dim: int, index: TensorBase, value: Any) -> TensorBase:
    """A copy of ``input`` with ``value`` at ``index`` along ``dim``."""
    d = dim % input.ndim
    v = value if isinstance(value, TensorBase) else wrap(np.asarray(value,
                                                                    input._data.dtype))
    return ops.index_put(input, _along(d, input.ndim, index._data), v, op="index_fill")


@public(inplace=True)
def masked_scatter(input: TensorBase, mask: TensorBase, source: TensorBase) -> TensorBase:
    """A copy of ``input`` with consecutive elements of ``source`` written where ``mask``
    (broadcast) is true, in row-major order."""
    same_dtype(input, source, "masked_scatter: expected self and source to have same dtypes "
                              "but got {0} and {1}")
    m = np.broadcast_to(mask._data.astype(bool), input.shape)
    n = int(m.sum())
    if source.numel() < n:
        raise RuntimeError(f"masked_scatter: expected source to have at least {n} elements, "
                           f"got {source.numel()}")
    return ops.index_put(input, np.nonzero(m), source.reshape(-1)[:n], op="masked_scatter")


def block_diag(*tensors: TensorBase) -> TensorBase:
    """A block-diagonal matrix of the given matrices (vectors as rows, scalars as 1x1)."""
    blocks = [t.reshape(1, 1) if t.ndim == 0 else t.reshape(1, -1) if t.ndim == 1 else t
              for t in tensors]
    cols = sum(b.shape[1] for b in blocks)
    rows, start = [], 0
    for b in blocks:
        left = start
        right = cols - start - b.shape[1]
        rows.append(ops.shape.pad_constant(b, ((0, 0), (left, right)), 0.0))
        start += b.shape[1]
    return cat(rows, 0)


def cartesian_prod(*tensors: TensorBase) -> TensorBase:
    """All combinations of one element from each 1-D tensor, as rows."""
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.reshape(-1) for g in grids], 1)


def combinations(input: TensorBase, r: int = 2, with_replacement: bool = False) -> TensorBase:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (as itertools)."""
    n = input.shape[0]
    chooser = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    picks = np.array(list(chooser(range(n), r)), np.int64).reshape(-1, r)
    if picks.size == 0:
        return input.new_zeros(0) if r else input.new_zeros(0)
    return input[wrap(picks)]


def tril_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None, layout: Any = None) -> TensorBase:
    """The (2, N) indices of the lower triangle of a ``row x col`` matrix."""
    return _tensor(np.stack(np.tril_indices(row, offset, col)), dtype=dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype: Any = None,
                 device: Any = None, layout: Any = None) -> TensorBase:
    """The (2, N) indices of the upper triangle of a ``row x col`` matrix."""
    return _tensor(np.stack(np.triu_indices(row, offset, col)), dtype=dtype)


def tensor_split(input: TensorBase, indices_or_sections: Any, dim: int = 0) -> tuple:
    """Split into ``n`` nearly equal parts (the first ones one longer), or at the given
    indices."""
    d = dim % input.ndim
    n = input.shape[d]
    if isinstance(indices_or_sections, TensorBase):
        indices_or_sections = indices_or_sections.tolist()
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise RuntimeError(f"tensor_split: number of sections must be larger than 0, got {k}")
        sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    else:
        bounds = [0, *[min(max(int(i), 0), n) for i in indices_or_sections], n]
        sizes = [max(b - a, 0) for a, b in zip(bounds[:-1], bounds[1:])]
    return split(input, sizes, d)


def hsplit(input: TensorBase, indices_or_sections: Any) -> tuple:
    """``tensor_split`` along dim 1 (dim 0 for 1-D), requiring equal parts for an int."""
    return tensor_split(input, indices_or_sections, 1 if input.ndim > 1 else 0)


def vsplit(input: TensorBase, indices_or_sections: Any) -> tuple:
    """``tensor_split`` along dim 0."""
    return tensor_split(input, indices_or_sections, 0)


def dsplit(input: TensorBase, indices_or_sections: Any) -> tuple:
    """``tensor_split`` along dim 2."""
    return tensor_split(input, indices_or_sections, 2)


def fliplr(input: TensorBase) -> TensorBase:
    """Columns reversed (dim 1)."""
    return flip(input, (1,))


def flipud(input: TensorBase) -> TensorBase:
    """Rows reversed (dim 0)."""
    return flip(input, (0,))


@public(out=True)
def narrow_copy(input: TensorBase, dim: int, start: int, length: int) -> TensorBase:
    """``narrow`` as a copy."""
    return input.narrow(dim, start, length).clone()


def ravel(input: TensorBase) -> TensorBase:
    """The elements as a 1-D tensor, in row-major order."""
    return ops.reshape(input, (-1,))


def split_with_sizes(input: TensorBase, split_sizes: Any, dim: int = 0) -> tuple:
    """``split`` into pieces of exactly ``split_sizes`` (which must add up to the dim)."""
    sizes = [int(n) for n in split_sizes]
    d = ops.normalize_dims(dim, input._data.ndim, "split_with_sizes")[0]
    if sum(sizes) != input._data.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input._data.shape[d]} (input tensor's size at dimension {dim}), "
                           f"but got split_sizes={sizes}")
    return split(input, sizes, dim)


def argwhere(input: TensorBase) -> TensorBase:
    """The indices of the nonzero elements, one row per element: ``(count, ndim)`` int64."""
    return wrap(np.argwhere(input._data).astype(np.int64, copy=False))


def adjoint(input: TensorBase) -> TensorBase:
    """The conjugate transpose of the last two dims (the transpose: tensors are real)."""
    if input._data.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input._data.ndim}-D tensor.")
    return transpose(input, -2, -1)


@public(method=False)
def broadcast_shapes(*shapes: Any) -> Any:
    """The shape that tensors of these shapes broadcast to (a ``Size``)."""
    norm = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*norm))
    except ValueError:
        raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape; "
                           f"got {norm}") from None


@public(method=False)
def broadcast_tensors(*tensors: Any) -> tuple:
    """Each tensor expanded to the common broadcast shape (views, sharing the gradient)."""
    seq = _seq(tensors)
    shape = tuple(broadcast_shapes(*(t._data.shape for t in seq)))
    return tuple(t if t._data.shape == shape else ops.expand(t, shape) for t in seq)
