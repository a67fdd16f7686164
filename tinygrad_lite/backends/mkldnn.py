"""``tl.backends.mkldnn``: oneDNN's switches, remembered and changing nothing (NumPy's BLAS
runs the convolutions here); ``is_available()`` is False."""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager

from .._core.flags import set_flags

__all__ = ["enabled", "deterministic", "is_available", "flags"]

enabled = True
deterministic = False


def is_available() -> bool:
    """False: tinygrad_lite does not use oneDNN."""
    return False


def flags(enabled: bool | None = False, deterministic: bool | None = False  # noqa: A002
          ) -> AbstractContextManager[None]:
    """Set the switches for a block, as ``torch.backends.mkldnn.flags`` does."""
    return set_flags(sys.modules[__name__], enabled=enabled, deterministic=deterministic)
