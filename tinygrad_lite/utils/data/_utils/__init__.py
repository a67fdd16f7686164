"""Helpers of ``tinygrad_lite.utils.data``: collation and random generators (PyTorch's layout)."""

from . import collate, generator

__all__ = ["collate", "generator"]
