"""One thread budget for the BLAS behind matrix products and the compiled kernels.

``tl.set_num_threads(n)`` sets both; the kernels' own pool (numba's) follows the budget once
numba is loaded. Small arrays stay on one thread: starting the pool costs more than it saves
below ``PARALLEL_MIN_ELEMENTS`` (measured on the kernels in ``source/``).
"""

from __future__ import annotations

import os
import sys

__all__ = ["budget", "set_budget", "sync_numba_threads", "PARALLEL_MIN_ELEMENTS"]

PARALLEL_MIN_ELEMENTS = 1 << 16

_state: dict = {"threads": None}


def budget() -> int:
    """The number of threads kernels may use: the last ``set_budget``, else what the
    environment gives BLAS (``OMP_NUM_THREADS``), else the CPUs this process may run on."""
    if _state["threads"] is not None:
        return int(_state["threads"])
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        value = os.environ.get(var, "")
        if value.isdigit() and int(value) > 0:
            return int(value)
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def set_budget(num: int) -> None:
    """Give kernels ``num`` threads (``tl.set_num_threads`` calls this beside BLAS's setting)."""
    _state["threads"] = int(num)
    sync_numba_threads()


def sync_numba_threads(count: int | None = None) -> None:
    """Bring numba's pool to ``count`` threads (the budget by default), within what numba
    started with, if numba is loaded (never imports it)."""
    numba = sys.modules.get("numba")
    if numba is None:
        return
    wanted = max(1, min(budget() if count is None else count,
                        int(numba.config.NUMBA_NUM_THREADS)))
    if numba.get_num_threads() != wanted:
        numba.set_num_threads(wanted)
