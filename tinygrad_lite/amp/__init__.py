"""``tl.amp``: mixed precision, PyTorch's ``torch.amp``: ``autocast`` regions and the
``GradScaler`` that keeps small float16 gradients from underflowing."""

from .autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled
from .custom import custom_bwd, custom_fwd, is_autocast_available
from .grad_scaler import GradScaler

__all__ = ["autocast", "GradScaler", "is_autocast_enabled", "get_autocast_dtype", "custom_fwd",
           "custom_bwd", "is_autocast_available"]
