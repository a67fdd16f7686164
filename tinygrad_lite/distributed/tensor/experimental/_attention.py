"""Context parallelism (PyTorch's ``torch.distributed.tensor.experimental._attention``): the
sequence dimension of a model's inputs sharded over the ranks of a one-dimensional
``DeviceMesh``, and ``scaled_dot_product_attention`` run as ring attention on the shards.

``context_parallel(mesh, buffers=..., buffer_seq_dims=...)`` is a context manager: on entry it
replaces each buffer's values, in place, by this rank's shard of them along its sequence
dimension; inside, ``nn.functional.scaled_dot_product_attention`` runs ``ops.ring_attention``
over the mesh's group; on exit the buffers get their full values back (except those in
``no_restore_buffers``). ``context_parallel_unshard`` gathers sharded results (outputs,
gradients) back into sequence order.

With ``_cp_options.enable_load_balance`` (the default, as in PyTorch) the sequence is cut into
``2 cp`` chunks and rank ``r`` holds chunks ``r`` and ``2 cp - 1 - r``, which gives every rank
the same share of a causal mask's work; without it rank ``r`` holds the ``r``-th ``1 / cp``.
Key/value blocks move round the ring by point-to-point messages ("alltoall", the default here)
or are all-gathered once ("allgather", PyTorch's default; the gradient accumulators still go
round the ring); ``set_rotate_method`` picks one. Each step computes one score tile per pair
of chunks ((T / cp)^2 scores per rank), or tiles of at most ``_cp_options.block_size`` squared.
An explicit ``attn_mask`` or ``dropout_p > 0`` raises ``NotImplementedError`` inside the block.
"""

from __future__ import annotations

import contextlib
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import Any

import numpy as np

from ...._core.grad_mode import no_grad
from ...._core.tensor_base import TensorBase
from ....nn._functional.attention import pop_attention_override, push_attention_override
from ....ops.ring_attention import TAG_KV, ring_attention
from ....tensor import Tensor
from ...collectives import all_gather_into_tensor, irecv, isend
from ...device_mesh import DeviceMesh
from ...process_group import ProcessGroup, Work

__all__ = ["context_parallel", "context_parallel_unshard", "set_rotate_method"]


class _RotateMethod(Enum):
    ALL_TO_ALL = auto()  # point-to-point messages round the ring
    ALL_GATHER = auto()  # every key/value block gathered once


@dataclass
class _ContextParallelOptions:
    """Switches read when a ``context_parallel`` block starts (balancing) or when attention
    runs (rotation), as PyTorch's ``_cp_options``."""

    enable_load_balance: bool = True
    rotate_method: _RotateMethod = _RotateMethod.ALL_TO_ALL
    # not in PyTorch (whose GPU kernels tile internally): score tiles of at most block_size
    # squared inside each step, instead of one tile per pair of chunks (T / cp squared)
    block_size: int | None = None


_cp_options = _ContextParallelOptions()


def set_rotate_method(rotate_method: str) -> None:
    """How key/value blocks reach the other ranks: ``"alltoall"`` passes them one step round
    the ring per attention step (each rank holds two blocks at a time), ``"allgather"``
    gathers them all at the first step (one collective; every rank holds the whole
    sequence's keys and values)."""
    if rotate_method == "alltoall":
        _cp_options.rotate_method = _RotateMethod.ALL_TO_ALL
    elif rotate_method == "allgather":
        _cp_options.rotate_method = _RotateMethod.ALL_GATHER
    else:
        raise NotImplementedError(f"Context Parallel does not support using {rotate_method!r} "
                                  "for kv shards rotation (use 'alltoall' or 'allgather')")


class _Exchange:
    """One step of a rotation under way: the receive from the previous rank and the send to
    the next."""

    def __init__(self, received: np.ndarray, works: list[Work], sent: np.ndarray) -> None:
        self._received = received
        self._works = works
        self._sent = sent  # kept alive until the send completes

    def wait(self) -> np.ndarray:
        for work in self._works:
            work.wait()
        return self._received


class _Ready:
    """A block already here (gathered before)."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def wait(self) -> np.ndarray:
        return self._array


class _RingRotater:
    """Rotation by ``irecv`` from the previous rank of the group and ``isend`` to the next, the
    receive posted first."""

    def __init__(self, group: ProcessGroup) -> None:
        self.group = group
        self.rank, self.size = group.rank(), group.size()
        self._next = group.ranks[(self.rank + 1) % self.size]
        self._prev = group.ranks[(self.rank - 1) % self.size]

    def rotate(self, array: np.ndarray, tag: int) -> _Exchange:
        received = np.empty_like(array)
        works = [irecv(Tensor._wrap(received), self._prev, self.group, tag),
                 isend(Tensor._wrap(array), self._next, self.group, tag)]
        return _Exchange(received, works, array)


class _AllGatherRotater(_RingRotater):
    """Key/value blocks gathered from every rank at a pass's first rotation, then handed out in
    ring order; other traffic (gradient accumulators) still goes round the ring."""

    def __init__(self, group: ProcessGroup) -> None:
        super().__init__(group)
        self._gathered: np.ndarray | None = None
        self._step = 0

    def rotate(self, array: np.ndarray, tag: int) -> Any:
        if tag != TAG_KV:
            return super().rotate(array, tag)
        if self._gathered is None:
            self._gathered = np.empty((self.size, *array.shape), array.dtype)
            all_gather_into_tensor(Tensor._wrap(self._gathered),
                                   Tensor._wrap(np.ascontiguousarray(array)), self.group)
            self._step = 0
        self._step += 1
        block = self._gathered[(self.rank - self._step) % self.size]
        if self._step == self.size - 1:  # the pass is over: the next one gathers afresh
            self._gathered = None
        return _Ready(block)


def _rotater(group: ProcessGroup) -> _RingRotater:
    if _cp_options.rotate_method is _RotateMethod.ALL_GATHER:
        return _AllGatherRotater(group)
    return _RingRotater(group)


def _cp_group(mesh: DeviceMesh, name: str) -> ProcessGroup:
    if not isinstance(mesh, DeviceMesh):
        raise TypeError(f"{name}: expected a DeviceMesh, got {type(mesh).__name__}")
    if mesh.ndim != 1:
        raise ValueError(f"{name}: the mesh must be one-dimensional (the context-parallel "
                         f"dimension), got {mesh!r}; pass mesh['cp']")
    return mesh.get_group()


class _RingAttention:
    """What ``scaled_dot_product_attention`` runs inside ``context_parallel``: ring attention
    over the mesh's group on the shards it is given, laid out as the buffers were sharded."""

    def __init__(self, group: ProcessGroup, balanced: bool) -> None:
        self.group = group
        self.balanced = balanced

    def __call__(self, query: TensorBase, key: TensorBase, value: TensorBase, attn_mask: Any,
                 dropout_p: float, is_causal: bool, scale: float) -> TensorBase:
        return _ring_sdpa(self.group, self.balanced, query, key, value, attn_mask, dropout_p,
                          is_causal, scale)[0]


def _ring_sdpa(group: ProcessGroup, balanced: bool, query: TensorBase, key: TensorBase,
               value: TensorBase, attn_mask: Any = None, dropout_p: float = 0.0,
               is_causal: bool = False, scale: float | None = None
               ) -> tuple[TensorBase, np.ndarray]:
    """Ring attention on this rank's shards with ``scaled_dot_product_attention``'s
    arguments, unsupported ones refused: the output shard and its log-sum-exp."""
    if attn_mask is not None:
        raise NotImplementedError(
            "scaled_dot_product_attention under context_parallel: an explicit attn_mask is not "
            "supported (each rank holds only a shard of the sequence); use is_causal=True for "
            "a causal mask, or call attention outside the context_parallel block")
    if dropout_p > 0.0:
        raise NotImplementedError(
            f"scaled_dot_product_attention under context_parallel: dropout_p={dropout_p} is not "
            "supported by ring attention; pass dropout_p=0.0 (e.g. model.eval() or a model "
            "without attention dropout)")
    n_q, n_k = query.shape[-2], key.shape[-2]
    if is_causal and n_q != n_k:
        raise NotImplementedError(
            f"scaled_dot_product_attention under context_parallel: is_causal requires the same "
            f"query and key sequence lengths, got {n_q} and {n_k}")
    if balanced and (n_q % 2 or n_k % 2):
        raise ValueError(
            f"scaled_dot_product_attention under context_parallel: with load balancing each "
            f"shard is two chunks, so its length must be even (query {n_q}, key {n_k})")
    scale = 1.0 / float(np.sqrt(query.shape[-1])) if scale is None else float(scale)
    return ring_attention(query, key, value, _rotater(group), balanced, bool(is_causal), scale,
                          _cp_options.block_size)


def _shard_order(length: int, size: int, rank: int, balanced: bool, name: str) -> np.ndarray:
    """The sequence positions of rank ``rank``'s shard, in the shard's order."""
    parts = 2 * size if balanced else size
    if length % parts:
        raise ValueError(f"{name}: a sequence dimension of {length} cannot be split into "
                         f"{parts} equal chunks ({size} ranks"
                         f"{', two chunks each for load balancing' if balanced else ''})")
    c = length // parts
    chunks = (rank, parts - 1 - rank) if balanced else (rank,)
    return np.concatenate([np.arange(j * c, (j + 1) * c) for j in chunks])


def _replace(buffer: TensorBase, values: np.ndarray) -> None:
    """``buffer`` takes ``values`` (any shape) as its own, as ``resize_`` then ``copy_``."""
    buffer._data = values
    buffer._version_counter[0] += 1


@contextlib.contextmanager
def context_parallel(mesh: DeviceMesh, *, buffers: Sequence[TensorBase] | None = None,
                     buffer_seq_dims: Sequence[int] | None = None,
                     no_restore_buffers: set[TensorBase] | None = None
                     ) -> Generator[None, None, None]:
    """Shard ``buffers`` in place along ``buffer_seq_dims`` over the one-dimensional ``mesh``
    (every rank passes the same full buffers and keeps its shard) and run
    ``scaled_dot_product_attention`` as ring attention until the block ends; then give the
    buffers their full values back, except those in ``no_restore_buffers``. Buffers that
    require grad cannot be resized in place (as in PyTorch): shard their detached copies."""
    buffers = [] if buffers is None else list(buffers)
    seq_dims = [] if buffer_seq_dims is None else [int(d) for d in buffer_seq_dims]
    keep_sharded = [] if no_restore_buffers is None else list(no_restore_buffers)
    if len(buffers) != len(seq_dims):
        raise ValueError("context_parallel: `seq_dims` must have the same number of elements "
                         f"as `buffers` ({len(seq_dims)} and {len(buffers)})")
    for b in keep_sharded:
        if not any(b is buffer for buffer in buffers):
            raise ValueError("context_parallel: `no_restore_buffers` must be a subset of "
                             "`buffers`.")
    group = _cp_group(mesh, "context_parallel")
    balanced = bool(_cp_options.enable_load_balance)
    for b in buffers:
        if not isinstance(b, TensorBase):
            raise TypeError(f"context_parallel: buffers must be tensors, got {type(b).__name__}")
        if b._requires_grad:
            raise RuntimeError("context_parallel: cannot resize variables that require grad "
                               "(shard a detached copy of the buffer)")
    with no_grad():
        originals = [None if any(b is k for k in keep_sharded) else b._data for b in buffers]
        shards = []
        for b, dim in zip(buffers, seq_dims):
            dim = dim % max(b.ndim, 1)
            order = _shard_order(b.shape[dim], group.size(), group.rank(), balanced,
                                 "context_parallel")
            shards.append(np.ascontiguousarray(np.take(b._data, order, axis=dim)))
        for b, shard in zip(buffers, shards):
            _replace(b, shard)
    attention = _RingAttention(group, balanced)
    push_attention_override(attention)
    try:
        yield
    finally:
        pop_attention_override(attention)
        for b, original in zip(buffers, originals):
            if original is not None:
                _replace(b, original)


def context_parallel_unshard(mesh: DeviceMesh, buffers: Sequence[TensorBase],
                             seq_dims: Sequence[int]) -> list[Tensor]:
    """The full tensors whose shards (as ``context_parallel`` lays them out, with the current
    load-balancing setting) the ranks of ``mesh`` hold in ``buffers``: gathered along
    ``seq_dims`` and put back in sequence order (every rank calls it and gets them all)."""
    group = _cp_group(mesh, "context_parallel_unshard")
    if len(buffers) != len(seq_dims):
        raise ValueError("context_parallel_unshard: `seq_dims` must have the same number of "
                         f"elements as `buffers` ({len(seq_dims)} and {len(buffers)})")
    size = group.size()
    balanced = bool(_cp_options.enable_load_balance)
    out = []
    with no_grad():
        for b, dim in zip(buffers, seq_dims):
            dim = int(dim) % max(b.ndim, 1)
            local = np.ascontiguousarray(np.moveaxis(b._data, dim, 0))
            gathered = np.empty((size, *local.shape), local.dtype)
            all_gather_into_tensor(Tensor._wrap(gathered), Tensor._wrap(local), group)
            whole = gathered.reshape(size * local.shape[0], *local.shape[1:])
            # row i of ``whole`` holds the position that rank i // n's shard holds at i % n
            positions = np.concatenate([_shard_order(size * local.shape[0], size, r, balanced,
                                                     "context_parallel_unshard")
                                        for r in range(size)])
            restored = np.empty_like(whole)
            restored[positions] = whole
            out.append(Tensor._wrap(np.ascontiguousarray(np.moveaxis(restored, 0, dim))))
    return out
