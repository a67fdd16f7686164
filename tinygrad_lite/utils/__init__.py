"""``tinygrad_lite.utils``: data loading, activation checkpointing."""

from . import checkpoint, data

__all__ = ["checkpoint", "data"]
