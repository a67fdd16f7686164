"""PyTorch's ``torch.nn.modules.batchnorm``: BatchNorm1d, BatchNorm2d, BatchNorm3d and
their lazy forms (``num_features`` from the first input)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from ...tensor import Tensor
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from ..parameter import Parameter, UninitializedBuffer, UninitializedParameter, is_lazy
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
           "LazyBatchNorm3d"]


def _np_dtype(dtype: Any) -> np.dtype:
    return dtypes.default_float_np(dtype)


def init_norm_state(module: Module, num_features: int, eps: float, momentum: float | None,
                    affine: bool, track_running_stats: bool, dtype: Any, bias: bool) -> None:
    """The options, the affine parameters (weight 1, bias 0) and the running statistics
    (mean 0, variance 1, no batches) that batch and instance norm share, as PyTorch's
    ``_NormBase`` sets them up."""
    dt = _np_dtype(dtype)
    module.num_features, module.eps, module.momentum = num_features, eps, momentum
    module.affine, module.track_running_stats = affine, track_running_stats
    if affine:
        module.weight = Parameter(np.ones(num_features, dt))
        if bias:
            module.bias = Parameter(np.zeros(num_features, dt))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)
    if track_running_stats:
        module.register_buffer("running_mean", Tensor._wrap(np.zeros(num_features, dt)))
        module.register_buffer("running_var", Tensor._wrap(np.ones(num_features, dt)))
        module.register_buffer("num_batches_tracked", Tensor._wrap(np.zeros((), np.int64)))
    else:
        module.register_buffer("running_mean", None)
        module.register_buffer("running_var", None)
        module.register_buffer("num_batches_tracked", None)


def migrate_norm_state(module: Module, state_dict: dict, prefix: str,
                       local_metadata: dict) -> None:
    """PyTorch's migration of norm layers' state dicts older than version 2 (or without
    metadata, e.g. a filtered dict): a missing ``num_batches_tracked`` keeps the current one."""
    version = local_metadata.get("version")
    key = prefix + "num_batches_tracked"
    if (version is None or version < 2) and module.track_running_stats and key not in state_dict:
        state_dict[key] = module.num_batches_tracked


class _NormBase(Module):
    """What batch and instance norms share, as PyTorch's ``_NormBase``: the options, affine
    parameters and running statistics, their reset, the state-dict migration and the repr."""

    _version = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = True, track_running_stats: bool = True, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__()
        init_norm_state(self, num_features, eps, momentum, affine, track_running_stats, dtype,
                        bias)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict,
                              *args: Any) -> None:
        """Load as Module does, after migrating an old ``state_dict`` (see migrate_norm_state)."""
        migrate_norm_state(self, state_dict, prefix, local_metadata)
        super()._load_from_state_dict(state_dict, prefix, local_metadata, *args)

    def reset_running_stats(self) -> None:
        """Running mean 0, running variance 1, no batches seen (when tracked)."""
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        """The running statistics reset, and weight 1 and bias 0 (when affine)."""
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def extra_repr(self) -> str:
        """The number of features and the options."""
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, bias={self.bias is not None}, "
                f"track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    """Batch normalisation over the channel dim 1, with running statistics."""

    _dims: tuple = (2, 3)

    def _check_input_dim(self, input: TensorBase) -> None:
        if input.ndim not in self._dims:
            raise ValueError(f"{type(self).__name__}: expected "
                             f"{' or '.join(f'{d}D' for d in self._dims)} input (got "
                             f"{input.ndim}D input)")

    def forward(self, input: TensorBase) -> TensorBase:
        """Normalise with batch statistics (training, updating the running ones) or with the
        running statistics (eval mode, when tracked)."""
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked._data += 1
            self.num_batches_tracked._version_counter[0] += 1
            if self.momentum is None:  # cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked._data)
        use_batch = self.training or self.running_mean is None
        return F.batch_norm(
            input,
            self.running_mean if not self.training or self.track_running_stats else None,
            self.running_var if not self.training or self.track_running_stats else None,
            self.weight, self.bias, use_batch, factor, self.eps,
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation over (N, C) or (N, C, L) input."""

    _dims = (2, 3)


class BatchNorm2d(_BatchNorm):
    """Batch normalisation over (N, C, H, W) input."""

    _dims = (4,)


class BatchNorm3d(_BatchNorm):
    """Batch normalisation over (N, C, D, H, W) input."""

    _dims = (5,)


class _LazyNormBase(LazyModuleMixin):
    """The lazy batch and instance norms: ``num_features`` from the input's channel dim."""

    _channel_dim_unbatched: int | None = None  # instance norms accept (C, *spatial) input
    _nd = 1

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device: Any = None, dtype: Any = None, *,
                 bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, device, dtype, bias=False)
        module: Any = self
        module.affine, module.track_running_stats = affine, track_running_stats
        if affine:
            module.weight = UninitializedParameter(dtype=dtype)
            if bias:
                module.bias = UninitializedParameter(dtype=dtype)
        if track_running_stats:
            module.running_mean = UninitializedBuffer(dtype=dtype)
            module.running_var = UninitializedBuffer(dtype=dtype)
            module.num_batches_tracked = Tensor._wrap(np.zeros((), np.int64))

    def reset_parameters(self) -> None:
        """Running statistics reset; weight 1 and bias 0 (once they exist)."""
        module: Any = self
        if self.has_uninitialized_params() or module.num_features == 0:
            return
        if module.track_running_stats:
            module.running_mean._data[...] = 0
            module.running_var._data[...] = 1
            module.num_batches_tracked._data[...] = 0
        if module.affine:
            module.weight._data[...] = 1
            if module.bias is not None:
                module.bias._data[...] = 0

    def initialize_parameters(self, input: TensorBase) -> None:
        """``num_features`` from dim 1 of the input (dim 0 of unbatched instance-norm input)."""
        if not self.has_uninitialized_params():
            return
        module: Any = self
        unbatched = self._channel_dim_unbatched is not None and input.ndim == self._nd + 1
        module.num_features = int(input.shape[0 if unbatched else 1])
        with no_grad():
            for name in ("weight", "bias", "running_mean", "running_var"):
                entry = getattr(module, name, None)
                if entry is not None and is_lazy(entry):
                    entry.materialize((module.num_features,))
            self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """``BatchNorm1d`` with ``num_features`` inferred from ``input.shape[1]``."""

    cls_to_become = BatchNorm1d
    _dims = BatchNorm1d._dims


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """``BatchNorm2d`` with ``num_features`` inferred from ``input.shape[1]``."""

    cls_to_become = BatchNorm2d
    _dims = BatchNorm2d._dims


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """``BatchNorm3d`` with ``num_features`` inferred from ``input.shape[1]``."""

    cls_to_become = BatchNorm3d
    _dims = BatchNorm3d._dims
