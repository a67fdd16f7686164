"""``tl.backends.opt_einsum``: the contraction-order switches of ``einsum``. NumPy's ``einsum``
chooses its own order (``optimize=``), so these are remembered and change nothing."""

from __future__ import annotations

__all__ = ["enabled", "strategy", "is_available"]

enabled = False
strategy: str | None = None


def is_available() -> bool:
    """False: the opt_einsum package is not used."""
    return False
