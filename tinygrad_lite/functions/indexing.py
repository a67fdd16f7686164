"""The functional API, indexing: gather/scatter (and scatter_reduce), index_select,
index_add/copy/fill/reduce, take, put, masks (masked_scatter), nonzero (and nonzero_static).

Reads are composites of getitem (whose backward accumulates repeated indices); writes use the
index_put primitive (``ops/indexing.py``), which differentiates both the input and the values.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of, is_float_dtype
from ..ops.elementwise import WhereBackward0
from ..ops.indexing import index_put
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.movement import IndexBackward0
from .basic import amax, reshape
from .reduction import amin, prod
from .registry import public
from .scatters import index_put as checked_index_put  # the tl.index_put (its checks)

__all__ = ["gather", "scatter", "scatter_add", "index_select", "masked_fill", "masked_select",
           "take_along_dim", "nonzero", "scatter_reduce", "put", "index_reduce", "nonzero_static",
           "take", "index_add", "index_copy", "index_fill", "masked_scatter"]


def _index_array(index: Any, op: str) -> np.ndarray:
    arr = index._data if isinstance(index, TensorBase) else np.asarray(index)
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: expected an integer (int64) index tensor, got dtype "
                           f"{arr.dtype}")
    return arr


def _grid(input: TensorBase, dim: int, index: Any, op: str) -> tuple[int, np.ndarray, tuple]:
    """Check a gather/scatter index and build the advanced index that selects
    ``input[i][j][index[i][j][k]]`` (for dim 2) at every position of ``index``. As in PyTorch,
    a 0-d input or index counts as 1-D (callers pass those through ``_as_1d``), and an index
    must lie in ``[0, size)``: negative ones are out of bounds (a RuntimeError)."""
    idx = _index_array(index, op)
    ndim = input._data.ndim
    d = ops.normalize_dims(dim, ndim, op)[0]
    if max(idx.ndim, 1) != max(ndim, 1):
        raise RuntimeError(f"{op}: index tensor must have the same number of dimensions as input "
                           f"tensor: index has shape {idx.shape}, input has shape "
                           f"{input._data.shape}")
    for k, (a, b) in enumerate(zip(idx.shape, input._data.shape)):
        if k != d and a > b:
            raise RuntimeError(f"{op}: size does not match at dimension {k}: expected index "
                               f"{idx.shape} to be smaller than self {input._data.shape} apart "
                               f"from dimension {d}")
    n = input._data.shape[d] if ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise RuntimeError(f"{op}: index {bad} is out of bounds for dimension {d} with size {n}")
    grid = ops.common.open_grid(idx.shape)
    grid[d] = idx
    return d, idx, tuple(grid)


def _as_1d(x: Any) -> Any:
    """A 0-d tensor as a 1-element 1-D one (gather/scatter read a 0-d input, index or source
    as 1-D); anything else unchanged."""
    return reshape(x, (1,)) if isinstance(x, TensorBase) and x._data.ndim == 0 else x


def _has_0d(*tensors: Any) -> bool:
    return any(isinstance(t, TensorBase) and t._data.ndim == 0 for t in tensors)


@public(out=True)
def gather(input: TensorBase, dim: int, index: TensorBase, *,
           sparse_grad: bool = False) -> TensorBase:
    """``out[i][j] = input[i][index[i][j]]`` (for dim 1): values picked along ``dim``
    (``sparse_grad`` only changes the layout of PyTorch's gradient: ignored, it is dense)."""
    if _has_0d(input, index):
        ops.normalize_dims(dim, input._data.ndim, "gather")
        return reshape(gather(_as_1d(input), dim, _as_1d(index)), tuple(index.shape))
    _, _, grid = _grid(input, dim, index, "gather")
    return GatherBackward0.rename(ops.getitem(input, grid))


class GatherBackward0(IndexBackward0):
    """``gather``: an advanced index along ``dim`` (PyTorch's name)."""


@public(out=True)
def take_along_dim(input: TensorBase, indices: TensorBase, dim: int | None = None) -> TensorBase:
    """Like gather, but ``input`` and ``indices`` (int64) broadcast in the other dims, and
    negative indices count from the end; dim=None works on the flattened tensor (as gather:
    no negatives)."""
    idx = _index_array(indices, "take_along_dim")
    if idx.dtype != np.int64:
        raise RuntimeError(f"take_along_dim(): dtype of indices should be Long (int64) but got "
                           f"{torch_dtype_name(idx.dtype)}")
    if dim is None:
        return gather(ops.reshape(input, (-1,)), 0, wrap(idx.reshape(-1)))
    d = ops.normalize_dims(dim, input._data.ndim, "take_along_dim")[0]
    if idx.ndim != input._data.ndim:
        raise RuntimeError(f"take_along_dim: input and indices should have the same number of "
                           f"dimensions, but got {input._data.ndim} and {idx.ndim}")
    try:
        shape = np.broadcast_shapes(input._data.shape[:d] + (1,) + input._data.shape[d + 1:],
                                    idx.shape[:d] + (1,) + idx.shape[d + 1:])
    except ValueError:
        raise RuntimeError(f"take_along_dim: shapes {input._data.shape} and {idx.shape} cannot "
                           f"be broadcast together outside dimension {d}") from None
    in_shape = shape[:d] + (input._data.shape[d],) + shape[d + 1:]
    if idx.size and idx.min() < 0:  # along a dim PyTorch counts negatives from the end
        idx = np.where(idx < 0, idx + input._data.shape[d], idx)
    idx = np.broadcast_to(idx, shape[:d] + (idx.shape[d],) + shape[d + 1:])
    return gather(ops.expand(input, in_shape), d, wrap(idx))


def same_dtype(input: TensorBase, src: Any, message: str) -> None:
    """PyTorch's scatter and index writes take a source tensor of ``input``'s dtype only (they do
    not cast); ``message`` (formatted with the two dtype names) is its RuntimeError."""
    if isinstance(src, TensorBase) and src._data.dtype != input._data.dtype:
        raise RuntimeError(message.format(torch_dtype_name(input._data.dtype),
                                          torch_dtype_name(src._data.dtype)))


# the message of scatter, scatter_add and scatter_reduce
SCATTER_DTYPES = "scatter(): Expected self.dtype to be equal to src.dtype (self {0}, src {1})"


def _scatter_source(src: Any, index_shape: tuple, input: TensorBase) -> Any:
    """The part of ``src`` that scatter uses: its leading ``index_shape`` block."""
    if isinstance(src, TensorBase):
        if max(src._data.ndim, 1) != max(len(index_shape), 1) or any(
                a > b for a, b in zip(index_shape, src._data.shape)):
            raise RuntimeError(f"scatter: expected index {index_shape} to be no larger than "
                               f"src {src._data.shape} in every dimension")
        return ops.getitem(src, tuple(slice(k) for k in index_shape))
    return src


@public(out=True, inplace=True)
def scatter(input: TensorBase, dim: int, index: TensorBase, src: Any = None, *, value: Any = None,
            reduce: str | None = None) -> TensorBase:
    """A copy of ``input`` with ``src`` (a tensor or number) written at ``index`` along
    ``dim``; ``reduce='add'`` adds instead, ``reduce='multiply'`` multiplies (repeats add up or
    multiply up)."""
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter: one of 'src' or 'value' is required")
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError(f"scatter: reduce argument must be either add or multiply, got "
                           f"'{reduce}'")
    same_dtype(input, src, SCATTER_DTYPES)
    if _has_0d(input, index, src):
        ops.normalize_dims(dim, input._data.ndim, "scatter")
        out = scatter(_as_1d(input), dim, _as_1d(index), _as_1d(src), reduce=reduce)
        return reshape(out, tuple(input.shape))
    _, idx, grid = _grid(input, dim, index, "scatter")
    if reduce == "multiply":  # scatter_reduce's "prod" with the input's own values included
        factors = src if isinstance(src, TensorBase) else wrap(
            np.full(idx.shape, src, input._data.dtype))
        return scatter_reduce(input, dim, index, _scatter_source(factors, idx.shape, input),
                              "prod")
    values = _scatter_source(src, idx.shape, input)
    return index_put(input, grid, values, accumulate=reduce == "add", op="scatter")


@public(out=True, inplace=True)
def scatter_add(input: TensorBase, dim: int, index: TensorBase, src: TensorBase) -> TensorBase:
    """A copy of ``input`` with ``src`` added at ``index`` along ``dim`` (repeats add up)."""
    same_dtype(input, src, SCATTER_DTYPES)
    if _has_0d(input, index, src):
        ops.normalize_dims(dim, input._data.ndim, "scatter_add")
        out = scatter_add(_as_1d(input), dim, _as_1d(index), _as_1d(src))
        return reshape(out, tuple(input.shape))
    _, idx, grid = _grid(input, dim, index, "scatter_add")
    values = _scatter_source(src, idx.shape, input)
    return index_put(input, grid, values, accumulate=True, op="scatter_add")


@public(out=True, inplace=True)
def scatter_reduce(input: TensorBase, dim: int, index: TensorBase, src: TensorBase,
                   reduce: str, *, include_self: bool = True) -> TensorBase:
    """Reduce ``src`` into ``input`` at ``index`` along ``dim`` with "sum", "prod", "mean",
    "amax" or "amin" (``include_self``: the input's own values take part)."""
    if reduce not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    same_dtype(input, src, SCATTER_DTYPES)
    if _has_0d(input, index, src):
        ops.normalize_dims(dim, input._data.ndim, "scatter_reduce")
        out = scatter_reduce(_as_1d(input), dim, _as_1d(index), _as_1d(src), reduce,
                             include_self=include_self)
        return reshape(out, tuple(input.shape))
    _, idx, target = _grid(input, dim, index, "scatter_reduce")
    values = _scatter_source(src, idx.shape, input)
    if reduce in ("sum", "mean"):
        base = input if include_self else ops.index_put(input, target, 0.0)
        total = ops.index_put(base, target, values, accumulate=True)
        if reduce == "sum":
            return total
        counts = np.zeros(input.shape, np.int64)
        ops.common.ufunc_at(np.add, counts, target, 1)
        counts += 1 if include_self else 0
        safe = np.maximum(counts, 1)
        out = total / wrap(safe.astype(input._data.dtype))
        if input._data.dtype.kind in "iu":
            out = out.floor().to(input.dtype)
        return out
    # prod / amax / amin: combined per destination by NumPy, then (when a gradient is needed)
    # recorded as a composite with PyTorch's gradient (see _differentiable_extreme/_prod)
    a = input._data.copy()
    needs_grad = grad_state.enabled and (input._requires_grad or values._requires_grad)
    touched = np.zeros(input.shape, bool)  # the destinations something is scattered to
    if needs_grad or not include_self:
        touched[target] = True
    if not include_self:
        identity: Any = 1
        if reduce != "prod":
            info = finfo_of(a.dtype) if is_float_dtype(a.dtype) else np.iinfo(a.dtype)
            identity = info.min if reduce == "amax" else info.max
        a[touched] = identity
    ufunc = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
    ops.common.ufunc_at(ufunc, a, target, values._data)
    if not needs_grad:
        return wrap(a)
    if reduce == "prod":
        return _differentiable_prod(input, values, target, touched, include_self, a)
    return _differentiable_extreme(input, values, target, touched, include_self, a)


def _differentiable_extreme(input: TensorBase, values: TensorBase, target: tuple,
                            touched: np.ndarray, include_self: bool,
                            result: np.ndarray) -> TensorBase:
    """scatter_reduce amax/amin with PyTorch's gradient: each destination's gradient shared
    evenly by the elements equal to its result (the input's own one receiving its share with
    include_self, or where nothing was scattered). The value is ``result`` exactly; the
    gradient that of a sum of the winning elements over their count, which is linear (second
    order 0)."""
    winner = wrap(result)
    self_wins = input._data == result
    from_src = values._data == result[target]
    # PyTorch counts an input element equal to the result among the sharers even without
    # include_self (its gradient is then zero there): the source's share follows that count
    count = self_wins.astype(result.dtype)
    ops.common.ufunc_at(np.add, count, target, from_src.astype(result.dtype))
    from_self = self_wins & (include_self | ~touched)
    safe = np.maximum(count, 1)
    shares = ops.where(wrap(from_self), input, 0.0) / wrap(safe)
    src_shares = ops.where(wrap(from_src), values, 0.0) / wrap(safe[target])
    composite = ops.index_put(shares, target, src_shares, accumulate=True)
    return composite + (winner - composite).detach()


def _differentiable_prod(input: TensorBase, values: TensorBase, target: tuple,
                         touched: np.ndarray, include_self: bool,
                         result: np.ndarray) -> TensorBase:
    """scatter_reduce prod with PyTorch's gradient, to any order: the elements of each
    destination are laid out in a row of a (destinations, most elements) matrix padded with
    ones, and reduced by ``prod`` (whose gradient handles zeros)."""
    shape = input._data.shape
    positions = np.ravel_multi_index(np.broadcast_arrays(*target), shape).reshape(-1)
    order = np.argsort(positions, kind="stable")
    ranked = positions[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]]) if ranked.size else \
        np.zeros(0, np.int64)
    run_start = np.repeat(starts, np.diff(np.r_[starts, ranked.size]))
    slot = np.empty_like(positions)
    slot[order] = np.arange(ranked.size) - run_start + (1 if include_self else 0)
    width = int(slot.max()) + 1 if slot.size else 1
    rows = int(np.prod(shape))
    if rows * width > max(1 << 22, 8 * (rows + positions.size)):
        raise NotImplementedError(
            f"scatter_reduce: the gradient of reduce='prod' with up to {width} elements per "
            f"destination would need a {rows}x{width} matrix; spread the index more, or reduce "
            "under tl.no_grad()")
    dense = wrap(np.ones((rows, width), input._data.dtype))
    if include_self:
        dense = ops.index_put(dense, (slice(None), 0), input.reshape(-1))
    dense = ops.index_put(dense, (positions, slot), values.reshape(-1))
    product = dense.prod(1).reshape(shape)
    return ops.where(wrap(touched), product, input)


@public(out=True)
def index_select(input: TensorBase, dim: int, index: TensorBase) -> TensorBase:
    """The entries ``index`` (a 0-d or 1-D int64/int32 tensor, each in ``[0, size)``: PyTorch
    takes no negative ones) of dimension ``dim``."""
    idx = _index_array(index, "index_select")
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"index_select(): Expected dtype int32 or int64 for index, got "
                           f"{torch_dtype_name(idx.dtype)}")
    if idx.ndim > 1:
        raise IndexError(f"index_select(): Index is supposed to be a vector, got shape "
                         f"{idx.shape}")
    d = ops.normalize_dims(dim, max(input._data.ndim, 1), "index_select")[0]
    scalar = input._data.ndim == 0
    if scalar:  # a 0-d input is read as 1-D, for one index only, and stays 0-d
        if idx.size != 1:
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{idx.size} value(s)")
        input = reshape(input, (1,))
    n = input._data.shape[d]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError(f"index_select: index out of range in self: index values must be in "
                         f"[0, {n - 1}] for dimension {d} of shape {input._data.shape}")
    out = IndexSelectBackward0.rename(ops.getitem(input, (slice(None),) * d + (idx.reshape(-1),)))
    return reshape(out, ()) if scalar else out


class IndexSelectBackward0(IndexBackward0):
    """``index_select``: an advanced index of one dim (PyTorch's name)."""


def _bool_mask(mask: Any, op: str) -> TensorBase:
    mask = mask if isinstance(mask, TensorBase) else wrap(np.asarray(mask))
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{op}: only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype}")
    return mask


def _check_fill_value(value: Any, dtype: np.dtype, op: str) -> None:
    """PyTorch converts a fill value (a number or 0-d tensor) to the tensor's dtype with a
    check: a complex one into a real dtype, inf/nan or one out of range into an integer dtype
    (an unsigned one takes negatives down to ``-max``, wrapping), or a finite one beyond a
    float dtype's range is a RuntimeError (NumPy would wrap, or give garbage, silently)."""
    if isinstance(value, TensorBase):
        value = value._data.item()
    if isinstance(value, (bool, np.bool_)) or dtype == np.bool_:
        return
    if isinstance(value, (complex, np.complexfloating)):
        bad = True
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        low = -int(info.max) if dtype.kind == "u" else int(info.min)
        bad = not (np.isfinite(value) and low <= value <= int(info.max))
    else:
        bad = bool(np.isfinite(value) and abs(value) > finfo_of(dtype).max)
    if bad:
        raise RuntimeError(f"{op}: value {value!r} cannot be converted to type "
                           f"{torch_dtype_name(dtype)} without overflow")


def masked_fill(input: TensorBase, mask: TensorBase, value: Any) -> TensorBase:
    """``input`` with ``value`` (a number or 0-dim tensor) where ``mask`` (broadcast) is true."""
    mask = _bool_mask(mask, "masked_fill")
    if isinstance(value, TensorBase) and value._data.ndim:
        raise RuntimeError(f"masked_fill: only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s)")
    _check_fill_value(value, input._data.dtype, "masked_fill")
    # out of place the mask and the input broadcast together, as in PyTorch (in place,
    # masked_fill_, the mask must fit the input)
    out = ops.where(mask, value, input)
    if out._data.dtype != input._data.dtype:
        return ops.cast(out, input._data.dtype)
    return MaskedFillBackward0.rename(out)


class MaskedFillBackward0(WhereBackward0):
    """``masked_fill``: a where between the value and the input (PyTorch's name)."""


@public(out=True)
def masked_select(input: TensorBase, mask: TensorBase) -> TensorBase:
    """A 1-D tensor of the elements of ``input`` where ``mask`` is true (both broadcast)."""
    mask = _bool_mask(mask, "masked_select")
    try:
        shape = np.broadcast_shapes(mask._data.shape, input._data.shape)
    except ValueError:
        raise RuntimeError(f"masked_select: the mask of shape {mask._data.shape} and the input "
                           f"of shape {input._data.shape} cannot be broadcast together") from None
    if input._data.shape != shape:
        input = ops.expand(input, shape)
    return ops.getitem(input, np.broadcast_to(mask._data, shape))


@public(out=True)
def nonzero(input: TensorBase, *, as_tuple: bool = False) -> Any:
    """Indices of the nonzero elements: an int64 ``(count, ndim)`` tensor, or one 1-D tensor
    per dim with ``as_tuple=True``."""
    if as_tuple:
        data = input._data if input._data.ndim else input._data.reshape(1)
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(data))
    return wrap(np.argwhere(input._data).astype(np.int64))


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
    out = checked_index_put(flat, (wrap(flat_idx % max(n, 1)),), reshape(source, (-1,)), accumulate)
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
    block = checked_index_put(block, (wrap(group_of), wrap(rank)), members)
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
    out = checked_index_put(self_, (wrap(targets),), reduced).movedim(0, d)
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


@public(out=True)
def take(input: TensorBase, index: TensorBase) -> TensorBase:
    """Elements of the flattened input at ``index`` (an int64 tensor; its shape kept)."""
    if not isinstance(index, TensorBase) or index._data.dtype != np.int64:
        got = index._data.dtype if isinstance(index, TensorBase) else type(index).__name__
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{torch_dtype_name(got) if isinstance(got, np.dtype) else got}")
    return TakeBackward0.rename(ops.getitem(reshape(input, (-1,)), (index._data,)))


class TakeBackward0(IndexBackward0):
    """``take``: an advanced index of the flattened input (PyTorch's name)."""


def _along(dim: int, ndim: int, index: Any) -> tuple:
    return (slice(None),) * dim + (index,) + (slice(None),) * (ndim - dim - 1)


def _check_index_write(input: TensorBase, dim: int, index: Any, source: TensorBase, op: str,
                       dtypes: tuple, error: type[Exception]) -> tuple[int, np.ndarray]:
    """PyTorch's checks of index_add/index_copy (``op``): an index of ``dtypes``, 0-d or 1-D,
    with one entry per ``source`` slice along ``dim``, each in ``[0, size)`` (``error`` is
    the exception of a bad entry, a wrong count or (index_copy) a wrong number of dims:
    RuntimeError for index_add, IndexError for index_copy);
    ``source`` shaped as ``input`` apart from ``dim`` (0-d ones read as 1-D). Returns the
    normalized dim and the index as a 1-D array."""
    idx = _index_array(index, op)
    if idx.dtype not in dtypes:
        raise RuntimeError(f"{op}(): Expected dtype {'/'.join(np.dtype(t).name for t in dtypes)}"
                           f" for index but got: {torch_dtype_name(idx.dtype)}")
    if idx.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector, but got dim: {idx.ndim} "
                         f"and size: {list(idx.shape)}")
    d = ops.normalize_dims(dim, max(input._data.ndim, 1), op)[0]
    s_shape, x_shape = input._data.shape or (1,), source._data.shape or (1,)
    if len(s_shape) != len(x_shape) and error is IndexError:
        raise IndexError(f"{op}(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({len(x_shape)}), "
                         f"destination dimensionality ({len(s_shape)})")
    if len(s_shape) != len(x_shape) or s_shape[:d] + s_shape[d + 1:] != \
            x_shape[:d] + x_shape[d + 1:]:
        raise RuntimeError(f"{op}(): source tensor shape must match self tensor shape, "
                           f"excluding the specified dimension. Got self.shape = "
                           f"{list(input._data.shape)} source.shape = {list(source._data.shape)}")
    if idx.size != x_shape[d]:
        raise error(f"{op}(): Number of indices ({idx.size}) should be equal to "
                    f"source.size(dim): ({x_shape[d]}), for dim: {d}")
    n = s_shape[d]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise error(f"{op}(): index {bad} is out of bounds for dimension {d} with size {n}")
    return d, idx.reshape(-1)


@public(out=True, inplace=True)
def index_add(input: TensorBase, dim: int, index: TensorBase, source: TensorBase, *,
              alpha: float = 1) -> TensorBase:
    """A copy of ``input`` with ``alpha * source`` slices added at ``index`` along ``dim``
    (repeats add up)."""
    same_dtype(input, source, "index_add_(): self ({0}) and source ({1}) must have the same "
                              "scalar type")
    d, idx = _check_index_write(input, dim, index, source, "index_add", (np.int64, np.int32),
                                RuntimeError)
    values = _as_1d(source if alpha == 1 else source * alpha)
    out = ops.index_put(_as_1d(input), _along(d, max(input.ndim, 1), idx), values,
                        accumulate=True, op="index_add")
    return out if input.ndim else reshape(out, ())


@public(out=True, inplace=True)
def index_copy(input: TensorBase, dim: int, index: TensorBase, source: TensorBase) -> TensorBase:
    """A copy of ``input`` with ``source`` slices written at ``index`` (int64) along ``dim``."""
    same_dtype(input, source, "index_copy_(): self and source expected to have the same "
                              "dtype, but got (self) {0} and (source) {1}")
    d, idx = _check_index_write(input, dim, index, source, "index_copy", (np.int64,),
                                IndexError)
    out = ops.index_put(_as_1d(input), _along(d, max(input.ndim, 1), idx), _as_1d(source),
                        op="index_copy")
    return out if input.ndim else reshape(out, ())


@public(inplace=True)
def index_fill(input: TensorBase, dim: int, index: TensorBase, value: Any) -> TensorBase:
    """A copy of ``input`` with ``value`` (a number or 0-d tensor) at ``index`` (0-d or 1-D
    int64; negative entries count from the end, as PyTorch's index_fill allows) along
    ``dim``."""
    idx = index._data if isinstance(index, TensorBase) else np.asarray(index)
    if idx.dtype != np.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if idx.ndim > 1:
        raise RuntimeError(f"index_fill_(): Index has to be a vector/scalar, got shape "
                           f"{idx.shape}")
    if isinstance(value, TensorBase) and value._data.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                           f"tensor with {value._data.ndim} dimension(s).")
    _check_fill_value(value, input._data.dtype, "index_fill")
    ndim = max(input.ndim, 1)
    d = ops.normalize_dims(dim, ndim, "index_fill")[0]
    n = (input._data.shape or (1,))[d]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise IndexError(f"index_fill_(): index {bad} is out of bounds for dimension {d} with "
                         f"size {n}")
    # (astype, not asarray(value, dtype): a negative int wraps into an unsigned dtype)
    v = value if isinstance(value, TensorBase) else wrap(np.asarray(value).astype(
        input._data.dtype))
    out = ops.index_put(_as_1d(input), _along(d, ndim, idx.reshape(-1) % max(n, 1)), v,
                        op="index_fill")
    return out if input.ndim else reshape(out, ())


@public(inplace=True)
def masked_scatter(input: TensorBase, mask: TensorBase, source: TensorBase) -> TensorBase:
    """A copy of ``input`` with consecutive elements of ``source`` written where ``mask`` is
    true, in row-major order; ``input`` and ``mask`` broadcast together (the in-place form
    keeps ``input``'s shape)."""
    same_dtype(input, source, "masked_scatter: expected self and source to have same dtypes "
                              "but got {0} and {1}")
    mask = _bool_mask(mask, "masked_scatter_")
    try:
        shape = np.broadcast_shapes(input.shape, mask.shape)
    except ValueError:
        raise RuntimeError(f"masked_scatter: the mask of shape {tuple(mask.shape)} does not "
                           f"broadcast with self of shape {tuple(input.shape)}") from None
    if shape != tuple(input.shape):
        input = input.expand(shape)
    m = np.broadcast_to(mask._data.astype(bool), shape)
    n = int(m.sum())
    if source.numel() < n:
        raise RuntimeError(f"masked_scatter: expected source to have at least {n} elements, "
                           f"got {source.numel()}")
    # the mask itself as the index (not np.nonzero, which refuses a 0-d mask)
    return ops.index_put(input, (m,), source.reshape(-1)[:n], op="masked_scatter")
