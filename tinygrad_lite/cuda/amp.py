"""``tl.cuda.amp``: PyTorch's deprecated spellings of mixed precision. Both warn as PyTorch
does and, with no GPU here, are disabled: ``autocast()`` runs its block in full precision and
``GradScaler()`` passes every call through."""

from __future__ import annotations

from typing import Any

from .._core.warnings import warn
from ..amp.autocast_mode import autocast as _autocast
from ..amp.grad_scaler import CudaGradScaler as GradScaler

__all__ = ["autocast", "GradScaler"]


class autocast(_autocast):  # noqa: N801 - PyTorch's name
    """``torch.cuda.amp.autocast(args...)``: deprecated; ``tl.autocast("cuda", args...)``."""

    def __init__(self, enabled: bool = True, dtype: Any = None,
                 cache_enabled: bool = True) -> None:
        warn("`torch.cuda.amp.autocast(args...)` is deprecated. Please use "
             "`torch.amp.autocast('cuda', args...)` instead.", FutureWarning)
        super().__init__("cuda", dtype, enabled, cache_enabled)
