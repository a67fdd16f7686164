"""Collectives on tensors, in place as in PyTorch: the arrays go to MPI as buffers (no
pickling), non-blocking variants return a ``Work``. Object collectives pickle, as PyTorch's do.

Each function takes ``group`` (default: all ranks) and, where PyTorch has it, ``async_op``.
Ranks are global ranks, as in PyTorch, translated to the group's own numbering for MPI.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import numpy as np

from ..dtypes import is_float_dtype
from ..tensor import Tensor
from .errors import DistBackendError
from .process_group import ProcessGroup, ReduceOp, Work, default_group, mpi, mpi_op

__all__ = ["all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor",
           "reduce_scatter", "reduce_scatter_tensor", "gather", "scatter", "all_to_all",
           "all_to_all_single", "send", "recv", "isend", "irecv", "barrier",
           "broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list",
           "all_reduce_coalesced", "all_gather_coalesced", "monitored_barrier"]

# dtypes MPI reduces natively; others (float16, bool) travel as a wider copy
_NATIVE = {np.dtype(t) for t in (np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                                 np.uint8, np.uint16, np.uint32, np.uint64)}


def _check(tensor: Any, name: str) -> np.ndarray:
    if not isinstance(tensor, Tensor):
        raise TypeError(f"{name}: expected a Tensor, got {type(tensor).__name__}")
    return tensor._data


def _buffer(arr: np.ndarray) -> np.ndarray:
    """A contiguous array MPI can work on directly (``arr`` itself when possible)."""
    if arr.dtype in _NATIVE and arr.flags.c_contiguous and arr.flags.writeable:
        return arr
    wide = np.float32 if arr.dtype == np.float16 else np.uint8 if arr.dtype == np.bool_ \
        else arr.dtype
    return np.ascontiguousarray(arr, dtype=wide)


def _store(tensor: Tensor, values: np.ndarray) -> None:
    """Write ``values`` into ``tensor`` (unless they are its own memory) and bump its version."""
    if values is not tensor._data:
        np.copyto(tensor._data, values.reshape(tensor._data.shape), casting="unsafe")
    tensor._version_counter[0] += 1


def _run(start: Callable[[], list], finish: Callable[[], None], async_op: bool,
         blocking: Callable[[], Any] | None = None) -> Work | None:
    """With ``async_op``, start the MPI requests ``start()`` returns and hand back a Work;
    otherwise run the blocking call (MPI's tuned algorithms, faster than the non-blocking ones
    waited at once) and finish."""
    if async_op or blocking is None:
        work = Work(start(), finish)
        if async_op:
            return work
        work.wait()
        return None
    blocking()
    finish()
    return None


class _CoalescingManager:
    """What ``_coalescing_manager`` yields: the Works of the batched operations once the block
    has ended (``async_ops=True``); ``wait()`` waits for all of them."""

    def __init__(self) -> None:
        self.works: list[Work] = []

    def append(self, work: Work | None) -> None:
        if work is not None:
            self.works.append(work)

    def wait(self) -> None:
        for work in self.works:
            work.wait()


# the open _coalescing_manager blocks, innermost last: (group, the calls deferred to its end)
_coalescing: list[tuple[ProcessGroup, list[tuple[Callable, tuple]]]] = []


def _deferred(g: ProcessGroup, collective: Callable, *args: Any) -> bool:
    """Inside a ``_coalescing_manager`` block of ``g``: note the call, to run at the block's end."""
    if _coalescing and _coalescing[-1][0] is g:
        _coalescing[-1][1].append((collective, args))
        return True
    return False


@contextlib.contextmanager
def _coalescing_manager(group: ProcessGroup | None = None, device: Any = None,
                        async_ops: bool = False) -> Iterator[_CoalescingManager]:
    """PyTorch's (private) batching of collectives: ``all_reduce``, ``all_gather_into_tensor``
    and ``reduce_scatter_tensor`` calls on ``group`` inside the block run when it ends, the
    all-reduces with one reduce op coalesced into one message per dtype. With ``async_ops`` the
    manager's ``wait()`` finishes them; otherwise they are done when the block ends."""
    g = default_group(group)
    calls: list[tuple[Callable, tuple]] = []
    manager = _CoalescingManager()
    _coalescing.append((g, calls))
    try:
        yield manager
    finally:
        _coalescing.pop()
    by_op: dict[ReduceOp, list[Tensor]] = {}
    for collective, args in calls:
        if collective is all_reduce:
            by_op.setdefault(args[1], []).append(args[0])
    for op, tensors in by_op.items():
        manager.append(all_reduce_coalesced(tensors, op, g, async_op=True))
    for collective, args in calls:
        if collective is not all_reduce:
            manager.append(collective(*args, group=g, async_op=True))
    if not async_ops:
        manager.wait()


def _average(buf: np.ndarray, op: ReduceOp, size: int) -> None:
    if op is ReduceOp.AVG:
        if not is_float_dtype(buf.dtype):
            raise RuntimeError(f"all_reduce: ReduceOp.AVG needs a floating-point tensor, got "
                               f"{buf.dtype}")
        buf /= size


def all_reduce(tensor: Tensor, op: ReduceOp = ReduceOp.SUM, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Combine ``tensor`` across the ranks with ``op``; every rank gets the result in place."""
    g = default_group(group)
    if _deferred(g, all_reduce, tensor, op):
        return None
    buf = _buffer(_check(tensor, "all_reduce"))
    if op is ReduceOp.AVG and not is_float_dtype(buf.dtype):
        _average(buf, op, 1)  # raises before any rank communicates

    def finish() -> None:
        _average(buf, op, g.size())
        _store(tensor, buf)

    return _run(lambda: [g.comm.Iallreduce(mpi().IN_PLACE, buf, mpi_op(op))], finish, async_op,
                lambda: g.comm.Allreduce(mpi().IN_PLACE, buf, mpi_op(op)))


def broadcast(tensor: Tensor, src: int, group: ProcessGroup | None = None,
              async_op: bool = False) -> Work | None:
    """Copy ``tensor`` of global rank ``src`` into ``tensor`` on every rank."""
    g = default_group(group)
    buf = _buffer(_check(tensor, "broadcast"))
    return _run(lambda: [g.comm.Ibcast(buf, root=g.group_rank(src))],
                lambda: _store(tensor, buf), async_op,
                lambda: g.comm.Bcast(buf, root=g.group_rank(src)))


def reduce(tensor: Tensor, dst: int, op: ReduceOp = ReduceOp.SUM,
           group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Combine ``tensor`` across the ranks into ``tensor`` on rank ``dst`` only."""
    g = default_group(group)
    buf = _buffer(_check(tensor, "reduce"))
    root = g.group_rank(dst)
    mine = g.rank() == root
    send = mpi().IN_PLACE if mine else buf

    def finish() -> None:
        if mine:
            _average(buf, op, g.size())
            _store(tensor, buf)

    return _run(lambda: [g.comm.Ireduce(send, buf if mine else None, mpi_op(op), root=root)],
                finish, async_op,
                lambda: g.comm.Reduce(send, buf if mine else None, mpi_op(op), root=root))


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group: ProcessGroup | None = None,
               async_op: bool = False) -> Work | None:
    """Every rank's ``tensor`` into ``tensor_list`` (one entry per rank) on every rank."""
    g = default_group(group)
    buf = _buffer(_check(tensor, "all_gather"))
    if len(tensor_list) != g.size():
        raise ValueError(f"all_gather: tensor_list has {len(tensor_list)} entries for "
                         f"{g.size()} ranks")
    out = np.empty((g.size(), *buf.shape), buf.dtype)

    def finish() -> None:
        for t, part in zip(tensor_list, out):
            _store(t, part)

    return _run(lambda: [g.comm.Iallgather(buf, out)], finish, async_op,
                lambda: g.comm.Allgather(buf, out))


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor,
                           group: ProcessGroup | None = None,
                           async_op: bool = False) -> Work | None:
    """Every rank's ``input_tensor`` concatenated (along dim 0) into ``output_tensor``."""
    g = default_group(group)
    if _deferred(g, all_gather_into_tensor, output_tensor, input_tensor):
        return None
    buf = _buffer(_check(input_tensor, "all_gather_into_tensor"))
    out = _check(output_tensor, "all_gather_into_tensor")
    if out.size != buf.size * g.size():
        raise ValueError(f"all_gather_into_tensor: output has {out.size} elements, expected "
                         f"{g.size()} x {buf.size}")
    dest = _buffer(out)
    return _run(lambda: [g.comm.Iallgather(buf, dest)], lambda: _store(output_tensor, dest),
                async_op, lambda: g.comm.Allgather(buf, dest))


def reduce_scatter(output: Tensor, input_list: list[Tensor], op: ReduceOp = ReduceOp.SUM,
                   group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Reduce ``input_list[i]`` across the ranks into ``output`` of rank i."""
    g = default_group(group)
    if len(input_list) != g.size():
        raise ValueError(f"reduce_scatter: input_list has {len(input_list)} entries for "
                         f"{g.size()} ranks")
    stacked = np.ascontiguousarray(np.stack([_check(t, "reduce_scatter") for t in input_list]))
    return _reduce_scatter(output, stacked, op, g, async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op: ReduceOp = ReduceOp.SUM,
                          group: ProcessGroup | None = None,
                          async_op: bool = False) -> Work | None:
    """Reduce ``input`` (``world_size`` chunks along dim 0) and give rank i chunk i."""
    g = default_group(group)
    if _deferred(g, reduce_scatter_tensor, output, input, op):
        return None
    data = _buffer(_check(input, "reduce_scatter_tensor"))
    return _reduce_scatter(output, data.reshape(g.size(), -1), op, g, async_op)


def _reduce_scatter(output: Tensor, stacked: np.ndarray, op: ReduceOp, g: ProcessGroup,
                    async_op: bool) -> Work | None:
    out = _check(output, "reduce_scatter")
    stacked = _buffer(stacked)
    if stacked[0].size != out.size:
        raise ValueError(f"reduce_scatter: output has {out.size} elements, each rank's chunk "
                         f"{stacked[0].size}")
    dest = np.empty(out.size, stacked.dtype)

    def finish() -> None:
        _average(dest, op, g.size())
        _store(output, dest)

    return _run(lambda: [g.comm.Ireduce_scatter_block(stacked, dest, mpi_op(op))], finish,
                async_op, lambda: g.comm.Reduce_scatter_block(stacked, dest, mpi_op(op)))


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int = 0,
           group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``."""
    g = default_group(group)
    buf = _buffer(_check(tensor, "gather"))
    root = g.group_rank(dst)
    mine = g.rank() == root
    if mine and (gather_list is None or len(gather_list) != g.size()):
        raise ValueError(f"gather: the destination rank needs a gather_list of {g.size()} "
                         "tensors")
    out = np.empty((g.size(), *buf.shape), buf.dtype) if mine else None

    def finish() -> None:
        if mine and gather_list is not None and out is not None:
            for t, part in zip(gather_list, out):
                _store(t, part)

    return _run(lambda: [g.comm.Igather(buf, out, root=root)], finish, async_op)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int = 0,
            group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Rank ``src``'s ``scatter_list[i]`` into ``tensor`` of rank i."""
    g = default_group(group)
    dest = _buffer(_check(tensor, "scatter"))
    root = g.group_rank(src)
    source = None
    if g.rank() == root:
        if scatter_list is None or len(scatter_list) != g.size():
            raise ValueError(f"scatter: the source rank needs a scatter_list of {g.size()} "
                             "tensors")
        source = _buffer(np.stack([_check(t, "scatter") for t in scatter_list]))
    return _run(lambda: [g.comm.Iscatter(source, dest, root=root)],
                lambda: _store(tensor, dest), async_op)


def _counts_and_offsets(rows: list[int], row_size: int) -> tuple[np.ndarray, np.ndarray]:
    """MPI's per-rank element counts and displacements for blocks of ``rows`` rows."""
    counts = np.asarray(rows, dtype=np.int64) * row_size
    offsets = np.zeros_like(counts)
    np.cumsum(counts[:-1], out=offsets[1:])
    return counts, offsets


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor],
               group: ProcessGroup | None = None, async_op: bool = False) -> Work | None:
    """Rank j's ``input_tensor_list[i]`` into rank i's ``output_tensor_list[j]``; the tensors
    may differ in size (MPI's Alltoallv), as long as each pair agrees."""
    g = default_group(group)
    if len(input_tensor_list) != g.size() or len(output_tensor_list) != g.size():
        raise ValueError(f"all_to_all: expected {g.size()} input and output tensors (one per "
                         f"rank), got {len(input_tensor_list)} and {len(output_tensor_list)}")
    inputs = [_buffer(_check(t, "all_to_all")) for t in input_tensor_list]
    outputs = [_check(t, "all_to_all") for t in output_tensor_list]
    dtype = inputs[0].dtype
    source = np.concatenate([a.reshape(-1) for a in inputs]) if inputs else np.empty(0, dtype)
    dest = np.empty(sum(o.size for o in outputs), dtype)
    send = _counts_and_offsets([a.size for a in inputs], 1)
    recv = _counts_and_offsets([o.size for o in outputs], 1)

    def finish() -> None:
        for t, (offset, count) in zip(output_tensor_list, zip(recv[1], recv[0])):
            _store(t, dest[offset:offset + count])

    return _run(lambda: [g.comm.Ialltoallv([source, send], [dest, recv])], finish, async_op)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes: Any = None,
                      input_split_sizes: Any = None, group: ProcessGroup | None = None,
                      async_op: bool = False) -> Work | None:
    """Split ``input`` along dim 0 (equally, or by ``input_split_sizes``), send block i to rank
    i, and concatenate what arrives into ``output`` (blocks of ``output_split_sizes`` rows)."""
    g = default_group(group)
    source = np.ascontiguousarray(_buffer(_check(input, "all_to_all_single")))
    out = _check(output, "all_to_all_single")
    ranks = g.size()

    def rows(sizes: Any, array: np.ndarray, name: str) -> list[int]:
        total = array.shape[0] if array.ndim else 1
        if sizes is None:
            if total % ranks:
                raise ValueError(f"all_to_all_single: dim 0 of {name} ({total}) is not "
                                 f"divisible by the world size {ranks}; pass {name}_split_sizes")
            return [total // ranks] * ranks
        sizes = [int(s) for s in sizes]
        if len(sizes) != ranks or sum(sizes) != total or min(sizes) < 0:
            raise ValueError(f"all_to_all_single: {name}_split_sizes {sizes} must have one "
                             f"non-negative entry per rank ({ranks}) summing to dim 0 ({total})")
        return sizes

    row_in = int(np.prod(source.shape[1:])) if source.ndim > 1 else 1
    row_out = int(np.prod(out.shape[1:])) if out.ndim > 1 else 1
    send = _counts_and_offsets(rows(input_split_sizes, source, "input"), row_in)
    recv = _counts_and_offsets(rows(output_split_sizes, out, "output"), row_out)
    dest = np.empty(out.size, source.dtype)
    return _run(lambda: [g.comm.Ialltoallv([source.reshape(-1), send], [dest, recv])],
                lambda: _store(output, dest), async_op)


def isend(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> Work:
    """Start sending ``tensor`` to global rank ``dst``."""
    g = default_group(group)
    buf = np.ascontiguousarray(_buffer(_check(tensor, "isend")))
    return Work([g.comm.Isend(buf, dest=g.group_rank(dst), tag=tag)])


def irecv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
          tag: int = 0) -> Work:
    """Start receiving into ``tensor`` from global rank ``src`` (any rank when None)."""
    g = default_group(group)
    buf = _buffer(_check(tensor, "irecv"))
    source = mpi().ANY_SOURCE if src is None else g.group_rank(src)
    return Work([g.comm.Irecv(buf, source=source, tag=tag)], lambda: _store(tensor, buf))


def send(tensor: Tensor, dst: int, group: ProcessGroup | None = None, tag: int = 0) -> None:
    """Send ``tensor`` to global rank ``dst`` (blocks until it can be reused)."""
    isend(tensor, dst, group, tag).wait()


def recv(tensor: Tensor, src: int | None = None, group: ProcessGroup | None = None,
         tag: int = 0) -> int:
    """Receive into ``tensor`` from ``src`` (any rank when None); returns the sender's rank."""
    g = default_group(group)
    buf = _buffer(_check(tensor, "recv"))
    status = mpi().Status()
    source = mpi().ANY_SOURCE if src is None else g.group_rank(src)
    g.comm.Recv(buf, source=source, tag=tag, status=status)
    _store(tensor, buf)
    return g.ranks[status.Get_source()]


def barrier(group: ProcessGroup | None = None, async_op: bool = False,
            device_ids: Any = None) -> Work | None:
    """Wait until every rank of the group has reached this call."""
    g = default_group(group)
    return _run(lambda: [g.comm.Ibarrier()], lambda: None, async_op, g.comm.Barrier)


def broadcast_object_list(object_list: list, src: int = 0, group: ProcessGroup | None = None,
                          device: Any = None) -> None:
    """Replace ``object_list``'s entries by rank ``src``'s (pickled, as in PyTorch)."""
    g = default_group(group)
    object_list[:] = g.comm.bcast(list(object_list), root=g.group_rank(src))


def all_gather_object(object_list: list, obj: Any, group: ProcessGroup | None = None) -> None:
    """Every rank's ``obj`` into ``object_list`` (one entry per rank)."""
    g = default_group(group)
    if len(object_list) != g.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries for "
                         f"{g.size()} ranks")
    object_list[:] = g.comm.allgather(obj)


def gather_object(obj: Any, object_gather_list: list | None = None, dst: int = 0,
                  group: ProcessGroup | None = None) -> None:
    """Every rank's ``obj`` into ``object_gather_list`` on rank ``dst``."""
    g = default_group(group)
    gathered = g.comm.gather(obj, root=g.group_rank(dst))
    if object_gather_list is not None and gathered is not None:
        object_gather_list[:] = gathered


def scatter_object_list(scatter_object_output_list: list, scatter_object_input_list: Any = None,
                        src: int = 0, group: ProcessGroup | None = None) -> None:
    """Rank ``src``'s ``scatter_object_input_list[i]`` into rank i's output list entry 0."""
    g = default_group(group)
    scatter_object_output_list[0] = g.comm.scatter(scatter_object_input_list,
                                                   root=g.group_rank(src))


def all_reduce_coalesced(tensors: list[Tensor], op: ReduceOp = ReduceOp.SUM,
                         group: ProcessGroup | None = None,
                         async_op: bool = False) -> Work | None:
    """``all_reduce`` of every tensor of ``tensors`` in one message per dtype (flattened and
    concatenated), each result in place."""
    g = default_group(group)
    arrays = [_buffer(_check(t, "all_reduce_coalesced")) for t in tensors]
    if op is ReduceOp.AVG and any(not is_float_dtype(a.dtype) for a in arrays):
        _average(next(a for a in arrays if not is_float_dtype(a.dtype)), op, 1)
    by_dtype: dict[np.dtype, list[int]] = {}
    for i, a in enumerate(arrays):
        by_dtype.setdefault(a.dtype, []).append(i)
    flats = {dt: np.concatenate([arrays[i].reshape(-1) for i in idx]) if idx else
             np.empty(0, dt) for dt, idx in by_dtype.items()}

    def finish() -> None:
        for dt, idx in by_dtype.items():
            flat = flats[dt]
            _average(flat, op, g.size())
            offset = 0
            for i in idx:
                size = arrays[i].size
                _store(tensors[i], flat[offset:offset + size])
                offset += size

    def blocking() -> None:
        for flat in flats.values():
            g.comm.Allreduce(mpi().IN_PLACE, flat, mpi_op(op))

    return _run(lambda: [g.comm.Iallreduce(mpi().IN_PLACE, f, mpi_op(op))
                         for f in flats.values()], finish, async_op, blocking)


def all_gather_coalesced(output_tensor_lists: list[list[Tensor]], input_tensor_list: list[Tensor],
                         group: ProcessGroup | None = None,
                         async_op: bool = False) -> Work | None:
    """``all_gather`` of several tensors in one message: rank r's ``input_tensor_list[i]`` into
    ``output_tensor_lists[r][i]`` on every rank (the tensors share one dtype)."""
    g = default_group(group)
    inputs = [_buffer(_check(t, "all_gather_coalesced")) for t in input_tensor_list]
    if len({a.dtype for a in inputs}) > 1:
        raise ValueError(f"all_gather_coalesced: the input tensors must share one dtype, got "
                         f"{sorted({str(a.dtype) for a in inputs})}")
    if len(output_tensor_lists) != g.size() or any(
            len(outs) != len(inputs) for outs in output_tensor_lists):
        raise ValueError(f"all_gather_coalesced: output_tensor_lists needs {g.size()} lists "
                         f"(one per rank) of {len(inputs)} tensors")
    dtype = inputs[0].dtype if inputs else np.dtype(np.float32)
    flat = np.concatenate([a.reshape(-1) for a in inputs]) if inputs else np.empty(0, dtype)
    out = np.empty((g.size(), flat.size), dtype)

    def finish() -> None:
        for outs, row in zip(output_tensor_lists, out):
            offset = 0
            for t, a in zip(outs, inputs):
                _store(t, row[offset:offset + a.size])
                offset += a.size

    return _run(lambda: [g.comm.Iallgather(flat, out)], finish, async_op,
                lambda: g.comm.Allgather(flat, out))


# monitored_barrier's messages: a tag of their own per call, so that a token that arrives after
# its barrier gave up can never be taken for one of a later barrier
_MONITOR_TAG = 0x5B00
_monitor_calls: dict[int, int] = {}
_abandoned: list[Any] = []  # receives of late tokens, kept alive until their token comes


def monitored_barrier(group: ProcessGroup | None = None, timeout: timedelta | None = None,
                      wait_all_ranks: bool = False) -> None:
    """A barrier that names the ranks that did not reach it within ``timeout`` (default 30
    minutes): every rank reports to group rank 0, which raises ``DistBackendError`` naming the
    first missing rank (all of them with ``wait_all_ranks``); the other ranks then raise too."""
    g = default_group(group)
    seconds = (timeout or timedelta(minutes=30)).total_seconds()
    call = _monitor_calls.get(id(g.comm), 0)
    _monitor_calls[id(g.comm)] = call + 1
    tag = _MONITOR_TAG + call % 4096
    if g.rank() != 0:
        g.comm.send(g.rank(), dest=0, tag=tag)
        failure = g.comm.recv(source=0, tag=tag)
        if failure:
            raise DistBackendError(f"monitored_barrier failed on rank {g.ranks[0]}: {failure}")
        return
    pending = {r: g.comm.irecv(source=r, tag=tag) for r in range(1, g.size())}
    deadline = time.monotonic() + seconds
    while pending:
        for r in [r for r, request in pending.items() if request.test()[0]]:
            del pending[r]
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(0.0005)
    failure = ""
    if pending:
        _abandoned.extend(pending.values())
        late = [g.ranks[r] for r in sorted(pending)]
        ms = int(seconds * 1000)
        failure = (f"Ranks {', '.join(map(str, late))} failed to pass monitoredBarrier in {ms} ms"
                   if wait_all_ranks else f"Rank {late[0]} failed to pass monitoredBarrier in "
                   f"{ms} ms")
    for r in range(1, g.size()):
        g.comm.send(failure, dest=r, tag=tag)
    if failure:
        raise DistBackendError(failure)
