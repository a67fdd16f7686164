"""``SyncBatchNorm``: batch normalisation whose statistics span the whole global batch.

With plain BatchNorm under data parallelism, each rank normalises with the mean and variance of
its own slice of the batch; SyncBatchNorm all-reduces the per-channel sums (forward) and the
per-channel gradient sums (backward), so N ranks with batch B/N compute what one process with
batch B would. Weight and bias gradients stay local: DistributedDataParallel averages them like
every other parameter. Outside an initialised process group (or with one rank) it is BatchNorm.
Its traffic uses a communicator of its own, so it cannot interleave with DDP's bucket
all-reduces. The normalisation and its backward are the primitive ``ops.sync_batch_norm``,
given this communicator's all-reduce.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ...distributed.process_group import ProcessGroup, default_group, is_initialized, mpi
from ...ops.sync_batch_norm import sync_batch_norm
from ..modules.batchnorm import _BatchNorm
from ..modules.module import Module

__all__ = ["SyncBatchNorm"]


def _all_reduce_sum(comm: Any, local: np.ndarray) -> np.ndarray:
    """The sum of ``local`` over the ranks of ``comm`` (the collective the op is given)."""
    total = np.empty_like(local)
    comm.Allreduce(local, total, op=mpi().SUM)
    return total


class SyncBatchNorm(_BatchNorm):
    """BatchNorm over the global batch of all ranks (see the module docstring); any input with
    a channel dim 1 and at least 2 dims."""

    _dims = (2, 3, 4, 5)

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True,
                 process_group: ProcessGroup | None = None, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype)
        self.process_group = process_group
        self._comm: Any = None

    def forward(self, input: Any) -> Any:
        """Synchronised statistics while training across ranks; BatchNorm otherwise."""
        group = self.process_group
        if (not self.training or not is_initialized() and group is None
                or default_group(group).size() == 1):
            return super().forward(input)
        self._check_input_dim(input)
        if input.shape[1] != self.num_features:
            raise RuntimeError(f"SyncBatchNorm: expected {self.num_features} channels, got "
                               f"input of shape {tuple(input.shape)}")
        if self._comm is None:  # its own communicator (a collective: every rank gets here)
            self._comm = default_group(group).comm.Dup()
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.track_running_stats:
            self.num_batches_tracked._data += 1
            if self.momentum is None:
                momentum = 1.0 / float(self.num_batches_tracked._data)
        return sync_batch_norm(
            input, self.weight, self.bias,
            self.running_mean if self.track_running_stats else None,
            self.running_var if self.track_running_stats else None, momentum, self.eps,
            functools.partial(_all_reduce_sum, self._comm))

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: ProcessGroup | None = None
                               ) -> Module:
        """``module`` with every BatchNorm layer replaced by a SyncBatchNorm holding the same
        parameters and buffers (returns the new module when ``module`` itself is one)."""
        if isinstance(module, _BatchNorm) and not isinstance(module, SyncBatchNorm):
            sync = cls(module.num_features, module.eps, module.momentum, module.affine,
                       module.track_running_stats, process_group)
            for name in ("weight", "bias"):
                if getattr(module, name, None) is not None:
                    setattr(sync, name, getattr(module, name))
            for name in ("running_mean", "running_var", "num_batches_tracked"):
                if getattr(module, name, None) is not None:
                    setattr(sync, name, getattr(module, name))
            sync.train(module.training)
            return sync
        for name, child in list(module.named_children()):
            module.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return module
