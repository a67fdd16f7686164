"""``DistributedDataParallel``: every rank holds the whole model, runs it on its share of the
batch, and the gradients are averaged over the ranks during backward (PyTorch's reducer design).

At construction, rank 0's parameters and buffers are broadcast (after checking that every rank
has the same parameter shapes) and the parameters are packed, in reverse order (roughly the order
backward produces their gradients), into buckets of about ``bucket_cap_mb``. A post-accumulate
hook on each parameter copies its finished gradient into its bucket; when a bucket is full its
all-reduce starts at once, non-blocking, so communication overlaps the rest of backward (the
engine finishes each leaf's gradient as soon as it is complete while a reducer exists). Buckets
start strictly in order, as MPI requires the same order of collectives on every rank. A callback
queued with the engine waits for the last all-reduces when backward ends, checks on a separate
communicator that every rank reduced the same buckets (a clear error instead of a hang when one
rank did not use some parameters), averages, and writes the results into ``.grad``.
"""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..._core.accumulate_grad import enable_eager_leaf_finish
from ..._core.backward_scope import queue_callback
from ..._core.grad_mode import grad_state, no_grad
from ...distributed.process_group import ProcessGroup, default_group, mpi
from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

UNUSED_HINT = (
    "This error indicates that your module has parameters that were not used in producing loss "
    "on some rank. You can enable unused parameter detection by passing the keyword argument "
    "`find_unused_parameters=True` to `tl.nn.parallel.DistributedDataParallel`, and by making "
    "sure all `forward` function outputs participate in calculating loss.")


class _Bucket:
    """Gradients of some parameters, flattened into one buffer that is all-reduced at once."""

    def __init__(self, index: int, params: list[Tensor], dtype: np.dtype) -> None:
        self.index = index
        self.params = params
        self.offsets: list[int] = []
        total = 0
        for p in params:
            self.offsets.append(total)
            total += p._data.size
        self.buffer = np.zeros(total, dtype)
        self.pending = len(params)
        self.request: Any = None


class DistributedDataParallel(Module):
    """Data parallelism over the ranks of ``process_group`` (see the module docstring)."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0, broadcast_buffers: bool = True,
                 process_group: ProcessGroup | None = None, bucket_cap_mb: float | None = None,
                 find_unused_parameters: bool = False, check_reduction: bool = False,
                 gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 **kwargs: Any) -> None:
        super().__init__()
        self.module = module
        group = default_group(process_group)
        self._group = group
        self._check_comm = group.comm.Dup()  # bookkeeping traffic never meets the buckets'
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self._require_sync = True
        names = {id(p): n for n, p in module.named_parameters()}
        self._params = [p for p in module.parameters() if p.requires_grad]
        self._names = [names.get(id(p), "?") for p in self._params]
        self._check_same_parameters()
        with no_grad():
            for t in [*module.parameters(), *module.buffers()]:
                self._broadcast_from_rank0(t)
        self._buckets = self._make_buckets(25.0 if bucket_cap_mb is None else bucket_cap_mb)
        self._bucket_of = {id(p): (b, i) for b in self._buckets for i, p in enumerate(b.params)}
        self._prepared = False
        self._callback_queued = False
        self._next_bucket = 0
        self._locally_used: set[int] = set()
        self._index = {id(p): i for i, p in enumerate(self._params)}
        self._hooks = [p.register_post_accumulate_grad_hook(self._grad_ready)
                       for p in self._params]
        enable_eager_leaf_finish(True)
        weakref.finalize(self, enable_eager_leaf_finish, False)

    # -- construction ----------------------------------------------------------------------------
    def _check_same_parameters(self) -> None:
        mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in zip(self._names, self._params)]
        every = self._check_comm.allgather(mine)
        for rank, theirs in enumerate(every):
            if theirs != mine:
                diff = next((f"{a} vs {b}" for a, b in zip(mine, theirs) if a != b),
                            f"{len(mine)} vs {len(theirs)} parameters")
                raise RuntimeError(
                    f"DistributedDataParallel: rank {self._group.rank()} and rank {rank} have "
                    f"different parameters ({diff}); every rank must build the same model")

    def _broadcast_from_rank0(self, t: Tensor) -> None:
        data = t._data
        buf = data if data.flags.c_contiguous else np.ascontiguousarray(data)
        self._group.comm.Bcast(buf, root=0)
        if buf is not data:
            data[...] = buf
        t._version_counter[0] += 1

    def _make_buckets(self, cap_mb: float) -> list[_Bucket]:
        cap = max(1, int(cap_mb * 2 ** 20))
        buckets: list[_Bucket] = []
        current: list[Tensor] = []
        size = 0
        for p in reversed(self._params):
            if current and (size + p._data.nbytes > cap or p._data.dtype != current[0]._data.dtype):
                buckets.append(_Bucket(len(buckets), current, current[0]._data.dtype))
                current, size = [], 0
            current.append(p)
            size += p._data.nbytes
        if current:
            buckets.append(_Bucket(len(buckets), current, current[0]._data.dtype))
        return buckets

    # -- forward ---------------------------------------------------------------------------------
    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """Run the module (after syncing buffers from rank 0) and get ready to reduce."""
        if self.broadcast_buffers and self._group.size() > 1:
            with no_grad():
                for b in self.module.buffers():
                    self._broadcast_from_rank0(b)
        output = self.module(*inputs, **kwargs)
        if grad_state.enabled and self._require_sync:
            self._prepare(output)
        return output

    def _prepare(self, output: Any) -> None:
        for bucket in self._buckets:
            bucket.pending = len(bucket.params)
            bucket.request = None
        self._next_bucket = 0
        self._prepared = True
        self._callback_queued = False
        self._ready: set[int] = set()
        self._locally_used = {id(p) for p in self._params}
        if self.find_unused_parameters:
            reached = _leaves_reached(output)
            self._locally_used = {id(p) for p in self._params if id(p) in reached}
            for p in self._params:
                if id(p) not in reached:  # no gradient will come: contribute zeros
                    bucket, i = self._bucket_of[id(p)]
                    off = bucket.offsets[i]
                    bucket.buffer[off:off + p._data.size] = 0
                    bucket.pending -= 1
            self._launch_ready()

    # -- backward --------------------------------------------------------------------------------
    def _grad_ready(self, param: Tensor) -> None:
        """Post-accumulate hook: copy the finished gradient into its bucket; start full
        buckets' all-reduces."""
        if not self._prepared:
            return  # inside no_sync(), or a backward this DDP's forward did not prepare
        if not self._callback_queued:
            queue_callback(self._finish)
            self._callback_queued = True
        self._ready.add(id(param))
        bucket, i = self._bucket_of[id(param)]
        off = bucket.offsets[i]
        grad = param.grad._data if param.grad is not None else 0
        bucket.buffer[off:off + param._data.size] = np.ravel(grad)
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready()
        elif self._next_bucket:  # let MPI progress the all-reduces already running
            mpi().Request.Testall([b.request for b in self._buckets[:self._next_bucket]])

    def _launch_ready(self) -> None:
        """Start the all-reduces of the complete buckets, in bucket order."""
        lib = mpi()
        while (self._next_bucket < len(self._buckets)
               and self._buckets[self._next_bucket].pending == 0):
            bucket = self._buckets[self._next_bucket]
            bucket.request = self._group.comm.Iallreduce(lib.IN_PLACE, bucket.buffer, lib.SUM)
            self._next_bucket += 1

    def _finish(self) -> None:
        """End of backward: agree that every rank reduced every bucket, wait, average, store."""
        self._prepared = False
        used = np.array([1 if id(p) in self._locally_used else 0 for p in self._params]
                        + [len(self._buckets) - self._next_bucket], np.int64)
        total = np.empty_like(used)
        self._check_comm.Allreduce(used, total, op=mpi().SUM)
        if total[-1]:
            missing = [n for n, p in zip(self._names, self._params)
                       if id(p) not in self._ready and id(p) in self._locally_used]
            raise RuntimeError(
                f"DistributedDataParallel: rank {self._group.rank()} finished backward without "
                f"gradients for {missing or 'parameters on another rank'}, so the ranks cannot "
                f"all-reduce the same buckets. {UNUSED_HINT}")
        mpi().Request.Waitall([b.request for b in self._buckets])
        world = self._group.size()
        with no_grad():
            for bucket in self._buckets:
                bucket.buffer /= world
                for p, off in zip(bucket.params, bucket.offsets):
                    if self.find_unused_parameters and total[self._index[id(p)]] == 0:
                        continue  # used by no rank: its .grad stays as it was
                    flat = bucket.buffer[off:off + p._data.size].reshape(p._data.shape)
                    if p.grad is None:
                        p.grad = Tensor._wrap(flat.copy())
                    else:
                        np.copyto(p.grad._data, flat)
                        p.grad._version_counter[0] += 1

    # -- user API ----------------------------------------------------------------------------------
    @contextlib.contextmanager
    def no_sync(self) -> Iterator[None]:
        """Inside, backward only accumulates local gradients (no communication); the first
        backward after it averages everything accumulated since."""
        previous, self._require_sync = self._require_sync, False
        try:
            yield
        finally:
            self._require_sync = previous

    def extra_repr(self) -> str:
        """Ranks and bucket layout."""
        return (f"world_size={self._group.size()}, buckets={len(self._buckets)}, "
                f"find_unused_parameters={self.find_unused_parameters}")


def _leaves_reached(output: Any) -> set[int]:
    """ids of the leaf tensors the autograd graph behind ``output`` reaches."""
    stack: list = []

    def collect(obj: Any) -> None:
        if isinstance(obj, Tensor):
            if obj.grad_fn is not None:
                stack.append(obj.grad_fn)
        elif isinstance(obj, dict):
            for v in obj.values():
                collect(v)
        elif isinstance(obj, (list, tuple)):
            for v in obj:
                collect(v)

    collect(output)
    seen: set[int] = set()
    leaves: set[int] = set()
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        for edge in node.next_edges:
            if edge is None:
                continue
            if hasattr(edge[0], "next_edges"):
                stack.append(edge[0])
            else:
                leaves.add(id(edge[0]))
    return leaves
