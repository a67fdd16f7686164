"""``tl.backends.openmp``: whether ops run OpenMP thread pools of their own (they do not; BLAS
threads are set with ``tl.set_num_threads``)."""

from __future__ import annotations

__all__ = ["is_available"]


def is_available() -> bool:
    """False: no OpenMP in tinygrad_lite's own kernels."""
    return False
