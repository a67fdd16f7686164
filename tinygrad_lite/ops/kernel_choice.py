"""Kernel choice: whether an op's input takes its compiled loop kernel or the NumPy reference.

A kernel runs when its family is loaded (``_kernels.family``: numba present and not switched
off), every array is float32 or float64 of one dtype and C-contiguous, and the op is big enough
that one fused pass pays for numba's call overhead (about a microsecond of argument checks).
Anything else runs the op's NumPy code unchanged.

Threads: every kernel has a parallel variant (``prange``), taken from
``threads.PARALLEL_MIN_ELEMENTS`` elements when the thread budget allows more than one thread
and ``THREADED`` is on. It is off: on the machine these kernels were written on (2 cores shared
by many processes) the threaded variants were at best 1.6-2.3x faster (layer and batch norm,
leaky_relu) and in the median often 10-60x slower (a thread of numba's pool waits for a
descheduled sibling: 4-16 ms stalls on a 0.3 ms kernel). ``benchmarks/bench_kernels.py --threads
N`` measures them (it turns ``THREADED`` on); turn it on where that shows a gain.

A kernel path is written as a function of plain arrays that returns fresh arrays, called through
``run_kernels``: while ``tl.compile`` traces, the whole path is recorded as one op, which the
replay calls again (numba's loops are invisible to the tracer's NumPy recording), so compiled
and eager runs give the same bits.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .. import _kernels
from .._core.tracing import call_as_one_op
from .._kernels import threads
from .common import FAST_FLOATS

__all__ = ["MIN_ELEMENTS", "LARGE_MIN_ELEMENTS", "THREADED", "kernels_for", "parallel",
           "run_kernels", "run"]

# Below this many elements the NumPy reference runs (read at each call: tests lower it to put
# small float64 inputs, gradcheck's, through the kernels)
MIN_ELEMENTS = 2048
# ... and for ops whose NumPy reference is already one or two passes (ReLU's backward), where
# only large arrays repay a kernel call's fixed cost (measured: the 200 x 16 toy step lost 4 %)
LARGE_MIN_ELEMENTS = 1 << 15

# Whether large inputs take the kernels' parallel variants (see the module's docstring)
THREADED = False


def kernels_for(name: str, *arrays: np.ndarray, min_elements: int | None = None,
                large: bool = False) -> ModuleType | None:
    """The kernel family ``name`` when ``arrays`` (the first sets the size) qualify, else None
    (``large``: the op's reference is already one or two passes; see LARGE_MIN_ELEMENTS)."""
    first = arrays[0]
    least = LARGE_MIN_ELEMENTS if large else MIN_ELEMENTS if min_elements is None \
        else min_elements
    if first.size < least:
        return None
    family = _kernels.family(name)  # (None at once on the NumPy backend: asked first)
    dtype = first.dtype
    if family is None or dtype not in FAST_FLOATS:
        return None
    for a in arrays:
        if a.dtype != dtype or not a.flags.c_contiguous:
            return None
    return family


def parallel(size: int) -> bool:
    """Whether a kernel over ``size`` elements should take its multi-threaded variant."""
    return THREADED and size >= threads.PARALLEL_MIN_ELEMENTS and threads.budget() > 1


def run_kernels(path: Callable[..., Any], kern: ModuleType, *args: Any) -> Any:
    """``path(kern, *args)``: a kernel path (plain arrays in, fresh arrays out), recorded as one
    op while ``tl.compile`` traces."""
    return call_as_one_op(functools.partial(path, kern), *args)


def run(kern: ModuleType, name: str, size: int, *args: Any) -> None:
    """Kernel ``name`` of ``kern`` on ``args``, its parallel variant for ``size`` elements and
    more (see ``parallel``)."""
    getattr(kern, name + "_parallel" if parallel(size) else name)(*args)
