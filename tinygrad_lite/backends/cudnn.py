"""``tl.backends.cudnn``: cuDNN's switches (``benchmark``, ``deterministic``, ...). There is no
cuDNN here: the switches are remembered and change nothing (every op is deterministic on the
CPU), and ``is_available()`` is False."""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager
from typing import Any

from .._core.flags import set_flags

__all__ = ["enabled", "benchmark", "benchmark_limit", "deterministic", "allow_tf32",
           "is_available", "version", "is_acceptable", "flags"]

enabled = True
benchmark = False
benchmark_limit = 10
deterministic = False
allow_tf32 = True


def is_available() -> bool:
    """False: no cuDNN."""
    return False


def version() -> int | None:
    """None: no cuDNN."""
    return None


def is_acceptable(tensor: Any) -> bool:
    """False: cuDNN would run no op here."""
    return False


def flags(enabled: bool | None = False, benchmark: bool | None = False,  # noqa: A002
          benchmark_limit: int | None = 10, deterministic: bool | None = False,
          allow_tf32: bool | None = True) -> AbstractContextManager[None]:
    """Set the switches for a block, as ``torch.backends.cudnn.flags`` does."""
    return set_flags(sys.modules[__name__], enabled=enabled, benchmark=benchmark,
                     benchmark_limit=benchmark_limit, deterministic=deterministic,
                     allow_tf32=allow_tf32)
