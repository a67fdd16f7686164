"""Error types of distributed work, PyTorch's: ``DistError`` (a RuntimeError) and its kinds,
``DistBackendError`` (the communication backend failed), ``DistNetworkError`` (a connection
failed) and ``DistStoreError`` (a key-value store operation failed or timed out)."""

from __future__ import annotations

__all__ = ["DistError", "DistBackendError", "DistNetworkError", "DistStoreError"]


class DistError(RuntimeError):
    """An error in distributed work."""


class DistBackendError(DistError):
    """The communication backend failed (e.g. a rank did not reach a barrier in time)."""


class DistNetworkError(DistError):
    """A network connection failed."""


class DistStoreError(DistError):
    """A key-value store operation failed or timed out."""
