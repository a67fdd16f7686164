"""``tl.accelerator``: PyTorch's device-neutral questions, answered for a CPU-only library."""

from __future__ import annotations

from typing import Any

__all__ = ["is_available", "device_count", "current_accelerator"]


def is_available() -> bool:
    """False: there is no accelerator."""
    return False


def device_count() -> int:
    """0: no accelerators."""
    return 0


def current_accelerator(check_available: bool = False) -> Any:
    """None: there is no accelerator."""
    return None
