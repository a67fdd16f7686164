"""``tl.backends.mkl``: whether PyTorch's own MKL kernels are there (they are not: NumPy's BLAS
does the products)."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """False: tinygrad_lite has no MKL kernels of its own."""
    return False
