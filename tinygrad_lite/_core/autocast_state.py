"""The autocast state that ops read: the low-precision dtype inside ``tl.autocast``, else None.

Thread-local, as PyTorch's; kept in the core layer so the primitives (matmul, linear,
convolution) can consult it with one attribute read. The context manager is ``tl.amp.autocast``.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["autocast_state", "set_autocast_state"]


class _AutocastState(threading.local):
    dtype: Any = None  # a NumPy dtype while an enabled autocast region is active
    cache_enabled = True


autocast_state = _AutocastState()


def set_autocast_state(dtype: Any, cache_enabled: bool) -> tuple[Any, bool]:
    """Set this thread's autocast dtype (None: off) and caching; return the previous pair."""
    previous = (autocast_state.dtype, autocast_state.cache_enabled)
    autocast_state.dtype, autocast_state.cache_enabled = dtype, cache_enabled
    return previous
