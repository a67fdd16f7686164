"""The parameters of one ``fully_shard`` call, sharded: each along dim 0 into ``world`` chunks
of ``ceil(rows / world)`` rows (``torch.chunk``'s split: the last ranks may hold fewer rows, or
none), gathered whole when the module runs and freed after, their gradients reduce-scattered
back into the shards.

Each parameter keeps a padded shard (``chunk`` rows, zeros past the end of the tensor); the
sharded ``Parameter`` the module and the optimizer see is a view of its first rows, so the
optimizer's in-place updates land in what the next all-gather sends. Unsharding all-gathers
every padded shard into a fresh ``world * chunk``-row array (one non-blocking all-gather per
parameter, all started before any is waited on) and points the unsharded ``Parameter`` at its
first ``rows`` rows; resharding drops that array. The unsharded ``Parameter`` objects are the
same across iterations, so the autograd graph recorded in forward finds the re-gathered arrays
in backward. After backward, each gradient is padded, reduce-scattered (summed) within the
shard group, all-reduced across the replicate group for HSDP, divided by the number of
data-parallel ranks and added into the sharded parameter's ``.grad``.

``unsharded_bytes`` counts the bytes of gathered arrays still alive (a weak reference to each
frees its count when the array is really freed, also when autograd kept a view of it) and the
peak of that count: what the memory tests and the benchmark read.
"""

from __future__ import annotations

import weakref

import numpy as np

from ...nn.modules.module import Module
from ...nn.parameter import Parameter
from ...tensor import Tensor
from ..process_group import ProcessGroup, mpi

__all__ = ["FSDPParam", "FSDPParamGroup", "UnshardedBytes", "unsharded_bytes"]


class UnshardedBytes:
    """Bytes of gathered (unsharded) parameter arrays alive now, and the most at any time."""

    def __init__(self) -> None:
        self.current = 0
        self.peak = 0

    def add(self, array: np.ndarray) -> None:
        self.current += array.nbytes
        self.peak = max(self.peak, self.current)
        weakref.finalize(array, self._release, array.nbytes)

    def _release(self, nbytes: int) -> None:
        self.current -= nbytes

    def reset_peak(self) -> None:
        """Start a new measurement of the peak from what is alive now."""
        self.peak = self.current


unsharded_bytes = UnshardedBytes()


class FSDPParam:
    """One parameter, sharded along dim 0 over the ranks of the shard group."""

    def __init__(self, param: Tensor, uses: list[tuple[Module, str]], rank: int,
                 world: int) -> None:
        data = param._data
        self.uses = uses  # (module, attribute name) where the parameter is registered
        self.shape = tuple(data.shape)
        self.dtype = data.dtype
        rows = self.shape[0] if data.ndim else 1
        self.rest = self.shape[1:] if data.ndim else ()
        self.rows = rows
        self.chunk = -(-rows // world)
        start = min(rank * self.chunk, rows)
        self.local_rows = max(0, min(self.chunk, rows - start))
        self.padded = np.zeros((self.chunk, *self.rest), self.dtype)
        whole = data.reshape(rows, *self.rest)
        self.padded[:self.local_rows] = whole[start:start + self.local_rows]
        self.sharded_param = Parameter(Tensor._wrap(self.padded[:self.local_rows]),
                                       requires_grad=param.requires_grad)
        self.unsharded_param = Parameter(Tensor._wrap(np.empty(0, self.dtype)),
                                         requires_grad=param.requires_grad)
        self.accumulated_grad: np.ndarray | None = None  # unreduced, while sync is off
        self.partial_reduce: np.ndarray | None = None  # reduce-scattered, not all-reduced

    def send_buffer(self) -> np.ndarray:
        """The padded shard holding the sharded parameter's current values (copied in when
        its data was replaced, e.g. by ``load_state_dict`` of a new array)."""
        local = self.sharded_param._data
        if local.shape != (self.local_rows, *self.rest) or (
                self.local_rows and local.__array_interface__["data"][0]
                != self.padded.__array_interface__["data"][0]):
            view = self.padded[:self.local_rows]
            view[...] = local.reshape(view.shape)
            self.sharded_param._data = view
        return self.padded

    def full_tensor(self, gathered: np.ndarray) -> np.ndarray:
        """The unsharded value from the all-gathered padded rows."""
        return gathered[:self.rows].reshape(self.shape)

    def register(self, sharded: bool) -> None:
        """Put the sharded (or the unsharded) parameter into every module that uses it."""
        param = self.sharded_param if sharded else self.unsharded_param
        for module, name in self.uses:
            module._parameters[name] = param


class FSDPParamGroup:
    """The parameters of one ``fully_shard`` call: gathered and reduced together."""

    def __init__(self, params: list[FSDPParam], shard_group: ProcessGroup,
                 replicate_group: ProcessGroup | None) -> None:
        self.fsdp_params = params
        self.shard_group = shard_group
        self.replicate_group = replicate_group
        self.is_unsharded = False
        self.reduce_grads = True
        self.all_reduce_grads = True
        self.reshard_after_backward = True
        self.gradient_divide_factor: float | None = None
        self._ready: set[int] = set()
        self._needed = {id(fp.unsharded_param) for fp in params
                        if fp.unsharded_param.requires_grad}

    # -- unshard / reshard ---------------------------------------------------------------------
    def unshard(self) -> None:
        """All-gather every parameter and register the unsharded ones (no-op when they are)."""
        if self.is_unsharded:
            return
        comm = self.shard_group.comm
        world = self.shard_group.size()
        gathered = []
        requests = []
        for fp in self.fsdp_params:
            full = np.empty((world * fp.chunk, *fp.rest), fp.dtype)
            requests.append(comm.Iallgather(fp.send_buffer(), full))
            gathered.append(full)
        mpi().Request.Waitall(requests)
        for fp, full in zip(self.fsdp_params, gathered):
            unsharded_bytes.add(full)
            fp.unsharded_param._data = fp.full_tensor(full)
            fp.register(sharded=False)
        self.is_unsharded = True

    def reshard(self) -> None:
        """Register the sharded parameters again and drop the gathered arrays."""
        if not self.is_unsharded:
            return
        for fp in self.fsdp_params:
            fp.unsharded_param._data = np.empty(0, fp.dtype)
            fp.register(sharded=True)
        self.is_unsharded = False

    # -- gradients -------------------------------------------------------------------------------
    def grad_ready(self, param: Tensor) -> bool:
        """Post-accumulate hook bookkeeping: whether every gradient of the group is now in."""
        self._ready.add(id(param))
        return self._ready >= self._needed

    def post_backward(self) -> None:
        """Collect the unsharded gradients, free the unsharded parameters, reduce-scatter."""
        self._ready = set()
        with_grad: list[tuple[FSDPParam, np.ndarray]] = []
        for fp in self.fsdp_params:
            grad = fp.unsharded_param._grad
            fp.unsharded_param._grad = None
            total = fp.accumulated_grad
            fp.accumulated_grad = None
            if grad is not None:
                total = grad._data if total is None else total + grad._data
            if total is not None:
                with_grad.append((fp, total))
        if self.reshard_after_backward:
            self.reshard()
        if not self.reduce_grads:
            for fp, total in with_grad:
                fp.accumulated_grad = total
            return
        if with_grad:
            self._reduce(with_grad)

    def _reduce(self, with_grad: list[tuple[FSDPParam, np.ndarray]]) -> None:
        lib = mpi()
        world = self.shard_group.size()
        outputs = []
        sends = []  # alive until the requests finish: MPI reads them while the calls run
        requests = []
        for fp, grad in with_grad:
            padded_rows = world * fp.chunk
            grad = grad.reshape(fp.rows, *fp.rest)
            if padded_rows != fp.rows or not grad.flags.c_contiguous:
                padded = np.zeros((padded_rows, *fp.rest), fp.dtype)
                padded[:fp.rows] = grad
                grad = padded
            out = np.empty((fp.chunk, *fp.rest), fp.dtype)
            sends.append(grad)
            requests.append(self.shard_group.comm.Ireduce_scatter_block(grad, out, lib.SUM))
            outputs.append(out)
        lib.Request.Waitall(requests)
        del sends
        divisor = float(world)
        if self.replicate_group is not None:
            if not self.all_reduce_grads:  # HSDP accumulation: sum now, all-reduce later
                for (fp, _), out in zip(with_grad, outputs):
                    fp.partial_reduce = out if fp.partial_reduce is None \
                        else fp.partial_reduce + out
                return
            for (fp, _), out in zip(with_grad, outputs):
                if fp.partial_reduce is not None:
                    out += fp.partial_reduce
                    fp.partial_reduce = None
            requests = [self.replicate_group.comm.Iallreduce(lib.IN_PLACE, out, lib.SUM)
                        for out in outputs]
            lib.Request.Waitall(requests)
            divisor *= self.replicate_group.size()
        if self.gradient_divide_factor is not None:
            divisor = float(self.gradient_divide_factor)
        for (fp, _), out in zip(with_grad, outputs):
            out /= divisor
            local = out[:fp.local_rows]
            param = fp.sharded_param
            if param._grad is None:
                param._grad = Tensor._wrap(local)
            else:
                param._grad._data += local
                param._grad._version_counter[0] += 1

    def _sharded_grads_pending(self) -> bool:
        """Whether some gradient arrived that ``post_backward`` has not taken yet."""
        return any(fp.unsharded_param._grad is not None for fp in self.fsdp_params)
