"""``tl.cpu.amp``: PyTorch's deprecated CPU spellings of mixed precision. Both warn as PyTorch
does and then work as ``tl.autocast("cpu", ...)`` (bfloat16 by default) and
``tl.amp.GradScaler("cpu", ...)``."""

from __future__ import annotations

from typing import Any

from .. import dtypes
from .._core.warnings import warn
from ..amp.autocast_mode import autocast as _autocast
from ..amp.grad_scaler import GradScaler as _GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``torch.cpu.amp.autocast(args...)``: deprecated; ``tl.autocast("cpu", args...)``."""

    def __init__(self, enabled: bool = True, dtype: Any = dtypes.bfloat16,
                 cache_enabled: bool = True) -> None:
        warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
             "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning)
        super().__init__("cpu", dtype, enabled, cache_enabled)


class GradScaler(_GradScaler):
    """``torch.cpu.amp.GradScaler(args...)``: deprecated; ``tl.amp.GradScaler("cpu", ...)``."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
             "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
