"""``tinygrad_lite.utils``: data loading."""

from . import data

__all__ = ["data"]
