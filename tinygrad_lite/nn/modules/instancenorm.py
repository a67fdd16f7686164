"""PyTorch's ``torch.nn.modules.instancenorm``: InstanceNorm1d/2d/3d (per-sample, per-channel
statistics; optional affine and running statistics) and their lazy forms."""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .batchnorm import _LazyNormBase, _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
           "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d"]


class _InstanceNorm(_NormBase):
    """Normalises each sample's channels over their spatial dims."""

    _nd = 1

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
                 affine: bool = False, track_running_stats: bool = False, device: Any = None,
                 dtype: Any = None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def forward(self, input: TensorBase) -> TensorBase:
        """Instance-normalised input (running statistics in eval mode when tracked)."""
        if input.ndim not in (self._nd + 1, self._nd + 2):
            raise ValueError(f"{type(self).__name__}: expected {self._nd + 1}D (unbatched) or "
                             f"{self._nd + 2}D (batched) input, got input of shape "
                             f"{tuple(input.shape)}")
        unbatched = input.ndim == self._nd + 1
        x = input.unsqueeze(0) if unbatched else input
        if self.affine and x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}: expected input's size at dim=1 to match "
                             f"num_features ({self.num_features}), but got {x.shape[1]}")
        # as PyTorch: num_batches_tracked is never advanced here, and momentum=None means no
        # running update at all (0.0), not a cumulative average as in BatchNorm
        use_input_stats = self.training or not self.track_running_stats
        momentum = self.momentum if self.momentum is not None else 0.0
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              use_input_stats, momentum, self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalisation of (N, C, L) or (C, L) input."""

    _nd = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalisation of (N, C, H, W) or (C, H, W) input."""

    _nd = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalisation of (N, C, D, H, W) or (C, D, H, W) input."""

    _nd = 3


class LazyInstanceNorm1d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm1d`` with ``num_features`` inferred from the input's channel dim (affine
    and running statistics on by default, as PyTorch's lazy form has them)."""

    cls_to_become = InstanceNorm1d
    _channel_dim_unbatched = 0
    _nd = 1


class LazyInstanceNorm2d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm2d`` with ``num_features`` inferred from the input's channel dim."""

    cls_to_become = InstanceNorm2d
    _channel_dim_unbatched = 0
    _nd = 2


class LazyInstanceNorm3d(_LazyNormBase, _InstanceNorm):
    """``InstanceNorm3d`` with ``num_features`` inferred from the input's channel dim."""

    cls_to_become = InstanceNorm3d
    _channel_dim_unbatched = 0
    _nd = 3
