"""``tl.backends.mps``: Apple's Metal backend, which tinygrad_lite does not have."""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: tensors live in NumPy arrays on the CPU."""
    return False


def is_built() -> bool:
    """False: not built with MPS."""
    return False
