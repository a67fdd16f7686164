"""``SyncBatchNorm``: batch normalisation whose statistics span the whole global batch.

With plain BatchNorm under data parallelism, each rank normalises with the mean and variance of
its own slice of the batch; SyncBatchNorm all-reduces the per-channel sums (forward) and the
per-channel gradient sums (backward), so N ranks with batch B/N compute what one process with
batch B would. Weight and bias gradients stay local: DistributedDataParallel averages them like
every other parameter. Outside an initialised process group (or with one rank) it is BatchNorm.
Its traffic uses a communicator of its own, so it cannot interleave with DDP's bucket
all-reduces.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...autograd.function import Function, once_differentiable
from ...distributed.process_group import ProcessGroup, default_group, is_initialized, mpi
from ...tensor import Tensor
from ..modules.batchnorm import _BatchNorm
from ..modules.module import Module

__all__ = ["SyncBatchNorm"]


class _SyncBatchNormFunction(Function):
    """Normalise ``x`` (N, C, ...) with statistics all-reduced over ``comm``."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor | None, bias: Tensor | None,
                running_mean: Tensor | None, running_var: Tensor | None, momentum: float,
                eps: float, comm: Any) -> Tensor:
        xa = x.detach().numpy()
        axes = (0, *range(2, xa.ndim))
        count = xa.size // xa.shape[1]
        local = np.concatenate([xa.sum(axes, dtype=np.float64),
                                np.square(xa, dtype=np.float64).sum(axes), [count]])
        total = np.empty_like(local)
        comm.Allreduce(local, total, op=mpi().SUM)
        channels = xa.shape[1]
        n = total[-1]
        mean = total[:channels] / n
        var = np.maximum(total[channels:2 * channels] / n - mean * mean, 0.0)
        invstd = 1.0 / np.sqrt(var + eps)
        shape = (1, channels) + (1,) * (xa.ndim - 2)
        xhat = ((xa - mean.reshape(shape)) * invstd.reshape(shape)).astype(xa.dtype)
        out = xhat
        if weight is not None:
            out = out * weight.detach().numpy().reshape(shape)
        if bias is not None:
            out = out + bias.detach().numpy().reshape(shape)
        if running_mean is not None and running_var is not None:
            rm, rv = running_mean._data, running_var._data
            rm[...] = (1 - momentum) * rm + momentum * mean
            rv[...] = (1 - momentum) * rv + momentum * var * n / max(n - 1, 1)
            running_mean._version_counter[0] += 1
            running_var._version_counter[0] += 1
        ctx.saved = (xhat, invstd.astype(xa.dtype), weight, n, comm, axes, shape)
        return Tensor._wrap(np.ascontiguousarray(out, dtype=xa.dtype))

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_out: Tensor) -> tuple:
        xhat, invstd, weight, n, comm, axes, shape = ctx.saved
        dy = grad_out.numpy()
        sum_dy = dy.sum(axes, dtype=np.float64)
        sum_dy_xhat = (dy * xhat).sum(axes, dtype=np.float64)
        local = np.concatenate([sum_dy, sum_dy_xhat])
        total = np.empty_like(local)
        comm.Allreduce(local, total, op=mpi().SUM)
        channels = xhat.shape[1]
        g_dy, g_dy_xhat = total[:channels] / n, total[channels:] / n
        scale = invstd * (1.0 if weight is None else weight.detach().numpy())
        dx = scale.reshape(shape) * (dy - g_dy.reshape(shape) - xhat * g_dy_xhat.reshape(shape))
        dw = None if weight is None else Tensor._wrap(sum_dy_xhat.astype(xhat.dtype))
        db = None if weight is None else Tensor._wrap(sum_dy.astype(xhat.dtype))
        return (Tensor._wrap(dx.astype(xhat.dtype)), dw, db, None, None, None, None, None)


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
        return _SyncBatchNormFunction.apply(
            input, self.weight, self.bias,
            self.running_mean if self.track_running_stats else None,
            self.running_var if self.track_running_stats else None, momentum, self.eps,
            self._comm)

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
