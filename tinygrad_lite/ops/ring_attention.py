"""Ring attention as a primitive: exact attention over a sequence sharded across the ranks of a
ring (context parallelism), with ``RingAttentionBackward``.

Each rank keeps its own queries. The key/value blocks travel round the ring: at step ``i`` rank
``r`` holds the block of rank ``r - i`` and folds it into its running online softmax (the same
block update as ``ops.flash_attention``), while the next block is already being received.
After ``cp`` steps every query has seen every key, and the result is the exact softmax: the
online softmax does not care in which order the key blocks arrive. Backward rotates the
key/value blocks again and, with them, their gradient accumulators: each rank adds its share of
``dK``/``dV`` for the block it holds and passes the accumulator on, so after ``cp`` steps every
block's gradient arrives back at its owner complete; ``dQ`` stays local.

A shard is a list of chunks, each a contiguous run of global positions (``Chunk``): one chunk
per rank, or two with the causal load balancing of context parallelism (the sequence cut into
``2 cp`` chunks, rank ``r`` holding ``r`` and ``2 cp - 1 - r``, so every rank does the same work
under a causal mask). A causal tile is skipped when all its keys come after its queries, run
without a mask when none does, and masked by global positions otherwise.

The communication is passed in (``Rotater``): this layer sits below ``tl.distributed``, which
supplies rotations over MPI. Counters (``stats``) record the work and traffic of each rank.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .common import first_order_grads
from .flash_attention import (
    causal_bias,
    online_softmax_result,
    online_softmax_step,
    sum_to_shape,
    tile_gradients,
)

__all__ = ["Chunk", "Pending", "Rotater", "RingAttentionBackward", "RingAttentionStats",
           "ring_attention", "shard_chunks", "stats"]

TAG_KV = 7301  # message tags of the two rotations, apart from the group's other traffic
TAG_GRAD_KV = 7302


class Chunk(NamedTuple):
    """A contiguous run of ``length`` sequence positions starting at global position ``start``,
    stored from row ``local`` of a shard."""

    local: int
    start: int
    length: int


def shard_chunks(rank: int, size: int, length: int, balanced: bool) -> list[Chunk]:
    """The chunks of rank ``rank``'s shard of ``length`` rows: one run ``[rank * length, ...)``,
    or with ``balanced`` the two halves holding chunks ``rank`` and ``2 size - 1 - rank`` of
    the sequence cut in ``2 size``."""
    if not balanced:
        return [Chunk(0, rank * length, length)]
    half = length // 2
    return [Chunk(0, rank * half, half), Chunk(half, (2 * size - 1 - rank) * half, half)]


class Pending(Protocol):
    """A rotation under way."""

    def wait(self) -> np.ndarray:
        """The array that arrived from the previous rank (the send completed too)."""
        ...


class Rotater(Protocol):
    """Moves arrays one step round the ring: each rank sends to the next and receives from the
    previous. ``rotate`` posts the receive before the send and returns at once."""

    rank: int
    size: int

    def rotate(self, array: np.ndarray, tag: int) -> Pending:
        ...


@dataclass
class RingAttentionStats:
    """What this rank did: query-key pairs of the score tiles computed (forward and backward),
    the largest score tile in elements, and bytes sent round the ring."""

    forward_pairs: int = 0
    backward_pairs: int = 0
    peak_tile_elements: int = 0
    bytes_sent: int = 0

    def reset(self) -> None:
        """Back to zero."""
        self.forward_pairs = self.backward_pairs = self.peak_tile_elements = self.bytes_sent = 0


stats = RingAttentionStats()


class _Tile(NamedTuple):
    rows: slice  # local query rows
    cols: slice  # local key rows of the block
    bias: np.ndarray | None
    pairs: int


def _tiles(q_chunks: Sequence[Chunk], k_chunks: Sequence[Chunk], is_causal: bool,
           dtype: np.dtype) -> list[_Tile]:
    """The score tiles one step computes: every (query chunk, key chunk) pair, less those a
    causal mask hides entirely, each with its mask (None where nothing is hidden)."""
    tiles = []
    for qc in q_chunks:
        for kc in k_chunks:
            q1, k1 = qc.start + qc.length, kc.start + kc.length
            if is_causal and kc.start > q1 - 1:
                continue  # every key after every query
            bias = causal_bias(qc.start, q1, kc.start, k1, dtype) if is_causal else None
            tiles.append(_Tile(slice(qc.local, qc.local + qc.length),
                               slice(kc.local, kc.local + kc.length), bias,
                               qc.length * kc.length))
    return tiles


def _whole(chunks: Sequence[Chunk]) -> list[Chunk]:
    """A shard as one chunk: without a causal mask the positions do not matter."""
    return [Chunk(0, 0, sum(c.length for c in chunks))]


def _split(chunks: Sequence[Chunk], block: int | None) -> list[Chunk]:
    """Chunks cut into runs of at most ``block`` positions (as they are when None)."""
    if block is None:
        return list(chunks)
    return [Chunk(c.local + o, c.start + o, min(block, c.length - o))
            for c in chunks for o in range(0, c.length, block)]


def _pack(*arrays: np.ndarray) -> np.ndarray:
    """Arrays in one contiguous buffer, to travel as one message."""
    return np.concatenate([a.reshape(-1) for a in arrays])


def _unpack(buffer: np.ndarray, shapes: Sequence[tuple]) -> list[np.ndarray]:
    out, at = [], 0
    for shape in shapes:
        n = int(np.prod(shape, dtype=np.int64))
        out.append(buffer[at:at + n].reshape(shape))
        at += n
    return out


def _rotate(rotater: Rotater, array: np.ndarray, tag: int) -> Pending:
    stats.bytes_sent += array.nbytes
    return rotater.rotate(array, tag)


def _visit_blocks(rotater: Rotater, kv: np.ndarray,
                  step: Callable[[int, np.ndarray], None]) -> None:
    """Call ``step(source, kv)`` for the key/value block of every rank, this rank's first,
    receiving the next block while the current one is computed."""
    for i in range(rotater.size):
        pending = _rotate(rotater, kv, TAG_KV) if i < rotater.size - 1 else None
        step((rotater.rank - i) % rotater.size, kv)
        if pending is not None:
            kv = pending.wait()


class RingAttentionBackward(Node):
    """The gradients of ``ring_attention`` for this rank's query, key and value shards: one more
    trip of the key/value blocks round the ring, their gradient accumulators following them
    (see the module docstring). Every rank of the ring must run it (as every rank runs
    ``backward``); NumPy only, so not differentiable again."""

    arrays: tuple  # (q, k, v, out, lse) of this rank, in the computation dtype
    layout: tuple  # (rotater, query chunks, chunks of a rank's key block, is_causal, scale)
    dtypes: tuple  # of query, key and value
    result_dtype: np.dtype

    def backward(self, grad_out: Any) -> tuple:
        """The shard gradients for the output gradient ``grad_out``."""
        qa, ka, va, out, lse = self.arrays
        rotater, q_chunks, k_chunks_of, is_causal, scale = self.layout
        dtype = out.dtype
        do = np.asarray(grad_out._data if isinstance(grad_out, TensorBase) else grad_out
                        ).astype(dtype, copy=False)
        lead = out.shape[:-2]
        qs = qa * dtype.type(scale)
        d_rows = (do * out).sum(-1, keepdims=True)
        dq = np.zeros((*lead, *qa.shape[-2:]), dtype)
        k_shape, v_shape = ka.shape, va.shape
        incoming: Pending | None = None  # the accumulator of the block this rank holds next

        def step(source: int, kv: np.ndarray) -> None:
            nonlocal incoming
            kj, vj = _unpack(kv, (k_shape, v_shape))
            dk = np.zeros((*lead, *k_shape[-2:]), dtype)
            dv = np.zeros((*lead, *v_shape[-2:]), dtype)
            for t in _tiles(q_chunks, k_chunks_of(source), is_causal, dtype):
                dq_t, dk_t, dv_t = tile_gradients(
                    qs[..., t.rows, :], kj[..., t.cols, :], vj[..., t.cols, :], t.bias,
                    lse[..., t.rows, :], do[..., t.rows, :], d_rows[..., t.rows, :])
                dq[..., t.rows, :] += dq_t
                dk[..., t.cols, :] += dk_t
                dv[..., t.cols, :] += dv_t
                stats.backward_pairs += t.pairs
            acc = _pack(sum_to_shape(dk, k_shape), sum_to_shape(dv, v_shape))
            if incoming is not None:  # what the ranks before added to this block's gradients
                acc += incoming.wait()
            if rotater.size > 1:
                incoming = _rotate(rotater, acc, TAG_GRAD_KV)
            else:
                incoming = _Done(acc)

        _visit_blocks(rotater, _pack(ka, va), step)
        assert incoming is not None
        dk_own, dv_own = _unpack(incoming.wait(), (k_shape, v_shape))  # back at its owner
        dq *= dtype.type(scale)
        grads = tuple(
            sum_to_shape(g, shape).astype(self.result_dtype, copy=False).astype(dt, copy=False)
            for g, shape, dt in zip((dq, dk_own, dv_own), (qa.shape, k_shape, v_shape),
                                    self.dtypes))
        if isinstance(grad_out, TensorBase):  # create_graph: the NumPy backward records nothing
            return first_order_grads("RingAttention.backward", (grad_out,), grads)
        return grads


class _Done:
    """A rotation that needs no message (a ring of one)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def wait(self) -> np.ndarray:
        return self.array


def ring_attention(q: TensorBase, k: TensorBase, v: TensorBase, rotater: Rotater,
                   balanced: bool, is_causal: bool, scale: float, block: int | None = None
                   ) -> tuple[TensorBase, np.ndarray]:
    """``softmax(q k^T * scale) v`` for this rank's shards (..., T / cp, E) of a sequence spread
    over the ring ``rotater`` (laid out by ``shard_chunks``); returns the output shard and its
    log-sum-exp (..., T / cp) (+inf for a row that attends nothing). Each step computes one
    score tile per pair of chunks, or with ``block`` tiles of at most ``block`` x ``block``
    (less memory per rank, more, smaller products)."""
    qa, ka, va = q._data, k._data, v._data
    result_dtype = np.result_type(qa, ka, va)
    # float16 is computed in float32, as in the single-process blocked kernel
    dtype = np.dtype(np.float32) if result_dtype == np.float16 else result_dtype
    qa, ka, va = (np.ascontiguousarray(a, dtype=dtype) for a in (qa, ka, va))
    size, rank = rotater.size, rotater.rank
    n_k = ka.shape[-2]
    # without a causal mask the positions do not matter: one chunk per shard
    arrange = _split if is_causal else (lambda chunks, block: _split(_whole(chunks), block))
    q_chunks = arrange(shard_chunks(rank, size, qa.shape[-2], balanced), block)

    def k_chunks_of(source: int) -> list[Chunk]:
        return arrange(shard_chunks(source, size, n_k, balanced), block)

    lead = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    n_q, e_v = qa.shape[-2], va.shape[-1]
    qs = qa * dtype.type(scale)
    m = np.full((*lead, n_q, 1), -np.inf, dtype)
    l_sum = np.zeros((*lead, n_q, 1), dtype)
    acc = np.zeros((*lead, n_q, e_v), dtype)

    def step(source: int, kv: np.ndarray) -> None:
        kj, vj = _unpack(kv, (ka.shape, va.shape))
        for t in _tiles(q_chunks, k_chunks_of(source), is_causal, dtype):
            rows = (..., t.rows, slice(None))
            m[rows], l_sum[rows], acc[rows] = online_softmax_step(
                qs[rows], kj[..., t.cols, :], vj[..., t.cols, :], t.bias, m[rows], l_sum[rows],
                acc[rows])
            stats.forward_pairs += t.pairs
            stats.peak_tile_elements = max(stats.peak_tile_elements,
                                           int(np.prod(lead, dtype=np.int64)) * t.pairs)

    _visit_blocks(rotater, _pack(ka, va), step)
    out, lse = online_softmax_result(m, l_sum, acc)
    result = wrap(out.astype(result_dtype, copy=False))
    if grad_state.enabled and (q._requires_grad or k._requires_grad or v._requires_grad):
        node = RingAttentionBackward(q, k, v)
        node.arrays = (qa, ka, va, out, lse)
        node.layout = (rotater, q_chunks, k_chunks_of, is_causal, scale)
        node.dtypes = (q._data.dtype, k._data.dtype, v._data.dtype)
        node.result_dtype = result_dtype
        result = wrap(result._data, node)
    return result, lse[..., 0]
