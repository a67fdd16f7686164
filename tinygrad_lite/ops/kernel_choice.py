"""Kernel choice: whether an op's input takes its compiled loop kernel or the NumPy reference.

A kernel runs when its family is loaded (``_kernels.family``: numba present and not switched
off), every array is float32 or float64 of one dtype and C-contiguous, and the op is big enough
that one fused pass pays for numba's call overhead (about a microsecond of argument checks).
Anything else runs the op's NumPy code unchanged. Threads: a kernel with a parallel variant
uses it from ``threads.PARALLEL_MIN_ELEMENTS`` elements when the thread budget allows more than
one thread (below that, waking the pool costs more than it saves).
"""

from __future__ import annotations

from types import ModuleType

import numpy as np

from .. import _kernels
from .._kernels import threads
from .common import FAST_FLOATS

__all__ = ["MIN_ELEMENTS", "kernels_for", "parallel"]

# Below this many elements the NumPy reference runs (read at each call: tests lower it to put
# small float64 inputs, gradcheck's, through the kernels)
MIN_ELEMENTS = 2048


def kernels_for(name: str, *arrays: np.ndarray, min_elements: int | None = None
                ) -> ModuleType | None:
    """The kernel family ``name`` when ``arrays`` (the first sets the size) qualify, else None."""
    first = arrays[0]
    if first.size < (MIN_ELEMENTS if min_elements is None else min_elements):
        return None
    dtype = first.dtype
    if dtype not in FAST_FLOATS:
        return None
    for a in arrays:
        if a.dtype != dtype or not a.flags.c_contiguous:
            return None
    return _kernels.family(name)


def parallel(size: int) -> bool:
    """Whether a kernel over ``size`` elements should take its multi-threaded variant."""
    return size >= threads.PARALLEL_MIN_ELEMENTS and threads.budget() > 1
