"""Redistribution: moving a local tensor from one placement to another over a 1-D mesh, with
the collective each move needs, differentiably.

A layout is a pair (placement of the values, placement of their gradient). For ``Shard`` the
two agree; a ``Partial`` tensor's gradient is replicated (every summand receives the whole
gradient). ``Replicate`` comes in two kinds: an ordinary replicated tensor, whose gradient is
replicated too (every rank computes the same), and a replicated tensor that parallelized
modules consume, whose gradient arrives ``Partial`` (each rank's module sees only its share of
the weights, so each contributes a summand). Moving between two layouts converts the values
forward and the gradient backward, each with the same table (Megatron-LM's conjugate pairs fall
out of it: ordinary -> consumed Replicate is identity forward / all-reduce backward, Partial ->
Replicate is all-reduce forward / identity backward; Shard -> consumed Replicate is all-gather /
reduce-scatter, Partial -> Shard reduce-scatter / all-gather).

The collectives are called through their module (``collectives.all_reduce``), so that a test can
wrap them there; ``CommDebugMode`` counts them under the functions themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...autograd.function import Function
from ...tensor import Tensor
from .. import collectives
from ..collectives import all_gather_into_tensor, all_reduce, reduce_scatter_tensor
from ..process_group import ProcessGroup
from .debug import record
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["Layout", "layout", "convert", "redistribute"]

Layout = tuple[Placement, Placement]  # (values, gradient)


def layout(placement: Placement, consumed: bool) -> Layout:
    """The layout of a tensor with ``placement``; ``consumed``: a Replicate tensor that feeds
    parallelized modules (its gradient is Partial)."""
    if placement.is_replicate():
        return (placement, Partial() if consumed else placement)
    if placement.is_partial():
        return (placement, Replicate())
    return (placement, placement)


def _axis(placement: Placement, ndim: int, what: str) -> int:
    dim = placement.dim  # type: ignore[attr-defined]
    if not -ndim <= dim < max(ndim, 1):
        raise IndexError(f"{what}: {placement!r} is out of range for a tensor of {ndim} "
                         "dimensions")
    return dim % ndim


def _check_divisible(size: int, n: int, axis: int, what: str) -> None:
    if size % n:
        raise ValueError(f"{what}: dimension {axis} has size {size}, which does not split "
                         f"evenly over the {n} ranks of the mesh (only even shards are "
                         "supported)")


def _all_gather(arr: np.ndarray, axis: int, group: ProcessGroup) -> np.ndarray:
    n = group.size()
    moved = np.ascontiguousarray(np.moveaxis(arr, axis, 0))
    out = Tensor._wrap(np.empty((n * moved.shape[0], *moved.shape[1:]), moved.dtype))
    record(all_gather_into_tensor)
    collectives.all_gather_into_tensor(out, Tensor._wrap(moved), group=group)
    return np.moveaxis(out._data, 0, axis)


def _reduce_scatter(arr: np.ndarray, axis: int, group: ProcessGroup) -> np.ndarray:
    n = group.size()
    _check_divisible(arr.shape[axis], n, axis, "reduce_scatter")
    moved = np.ascontiguousarray(np.moveaxis(arr, axis, 0))
    out = Tensor._wrap(np.empty((moved.shape[0] // n, *moved.shape[1:]), moved.dtype))
    record(reduce_scatter_tensor)
    collectives.reduce_scatter_tensor(out, Tensor._wrap(moved), group=group)
    return np.moveaxis(out._data, 0, axis)


def _chunk(arr: np.ndarray, axis: int, group: ProcessGroup) -> np.ndarray:
    n, rank = group.size(), group.rank()
    _check_divisible(arr.shape[axis], n, axis, "Shard")
    step = arr.shape[axis] // n
    index = [slice(None)] * arr.ndim
    index[axis] = slice(rank * step, (rank + 1) * step)
    return np.ascontiguousarray(arr[tuple(index)])


def convert(arr: np.ndarray, group: ProcessGroup, src: Placement, dst: Placement) -> np.ndarray:
    """``arr`` (this rank's part of a tensor placed ``src``) as this rank's part when placed
    ``dst``. Never writes into ``arr``."""
    n = group.size()
    if src == dst:
        return arr
    if src.is_shard():
        axis = _axis(src, arr.ndim, "redistribute")
        if dst.is_partial():  # one's own chunk in place, zeros elsewhere: no communication
            full = np.zeros((*arr.shape[:axis], arr.shape[axis] * n, *arr.shape[axis + 1:]),
                            arr.dtype)
            step = arr.shape[axis]
            index = [slice(None)] * arr.ndim
            index[axis] = slice(group.rank() * step, (group.rank() + 1) * step)
            full[tuple(index)] = arr
            return full
        full = _all_gather(arr, axis, group) if n > 1 else arr
        return convert(full, group, Replicate(), dst)
    if src.is_replicate():
        if dst.is_shard():
            return _chunk(arr, _axis(dst, arr.ndim, "redistribute"), group)
        if dst.is_partial():  # PyTorch's split of a replicated sum: an equal share each
            return arr / n if n > 1 else arr
    if src.is_partial():
        if n == 1:
            return arr if dst.is_replicate() else convert(arr, group, Replicate(), dst)
        if dst.is_replicate():
            total = Tensor._wrap(np.array(arr, copy=True, order="C"))
            record(all_reduce)
            collectives.all_reduce(total, group=group)
            return total._data
        if dst.is_shard():
            return _reduce_scatter(arr, _axis(dst, arr.ndim, "redistribute"), group)
    raise NotImplementedError(f"redistribute: from {src!r} to {dst!r} is not supported")


class Redistribute(Function):
    """Values converted forward ``src[0] -> dst[0]``, the gradient backward ``dst[1] ->
    src[1]``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, group: ProcessGroup, src: Layout,
                dst: Layout) -> Tensor:
        ctx.group, ctx.src, ctx.dst = group, src, dst
        return Tensor._wrap(convert(x._data, group, src[0], dst[0]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple:
        # the gradient's move is itself a redistribution (the maps are linear), whose own
        # backward is the forward move: so gradients of gradients go through as well
        back = Redistribute.apply(grad, ctx.group, (ctx.dst[1], ctx.dst[0]),
                                  (ctx.src[1], ctx.src[0]))
        return back, None, None, None


def _normalized(lay: Layout, ndim: int) -> Layout:
    """``Shard(-1)`` of a 3-d tensor as ``Shard(2)``, so that equal layouts compare equal."""
    return tuple(Shard(p.dim % ndim) if p.is_shard() and ndim else p  # type: ignore[attr-defined]
                 for p in lay)  # type: ignore[return-value]


def redistribute(x: Any, group: ProcessGroup, src: Layout, dst: Layout) -> Any:
    """``x`` moved from layout ``src`` to ``dst`` (``x`` itself when they agree)."""
    src, dst = _normalized(src, x.ndim), _normalized(dst, x.ndim)
    if src == dst:
        return x
    return Redistribute.apply(x, group, src, dst)
