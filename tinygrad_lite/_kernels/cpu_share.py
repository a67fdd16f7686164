"""Sharing the CPU with other processes: how many threads BLAS and the kernels use while other
work runs on the machine.

A matrix product split over two threads waits for the slower half. When another process holds
one of the cores, the second BLAS thread is descheduled for a whole time slice (milliseconds)
while the first spins, so each product takes a time slice instead of a fraction of one: the
LeNet training step measured 2,555 ms with two OpenBLAS threads and 397 ms with one on the
2-core machine at load ~13 (PyTorch: 1,661 and 362 ms). A fair share of a busy machine is the
cores nobody else is using.

So a watcher thread samples, every ``INTERVAL`` seconds, how much CPU the *other* processes
used (the machine's busy time from ``/proc/stat`` less this process's own) and chooses a thread
count: the thread budget (``threads.budget()``) less the cores others keep busy, at least one;
it drops at once and climbs back only after two quiet samples. The choice is applied by the
computing thread itself at safe points between operations (``apply()``: a module's call, the
start of a backward), never while a product runs. Linux only (elsewhere, and with
``TINYGRAD_LITE_ADAPTIVE_THREADS=0``, BLAS keeps the budget); changing BLAS's threads needs
threadpoolctl (the ``fast`` and ``jit`` extras).

The price is reproducibility on a busy machine: OpenBLAS splits the inner dimension of a product
with few outputs and a long sum (a convolution's weight gradient: 48 x 10,890 @ 10,890 x 16)
over its threads, so such a product rounds differently with one thread than with two, and a
ResNet's weights after a few steps differ in the last bits between a quiet run and a busy one.
``pin`` (what ``tl.use_deterministic_algorithms(True)`` calls) keeps the budget whatever the
load, so runs with the same settings give the same bits.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

from . import threads

__all__ = ["apply", "choose", "current", "pin", "INTERVAL", "stop"]

INTERVAL = 0.05  # seconds between samples
BUSY = 0.5  # cores of others' work at which one of ours is given up
QUIET = 0.25  # ... and below which it is taken back (after two samples)

# [wanted thread count or None, count applied or None, watcher thread or None / False,
#  pinned to the budget]
_state: list[Any] = [None, None, None, False]
_lock = threading.Lock()


def _free(budget: int, others_busy: float, margin: float) -> int:
    return max(1, min(budget, int(budget - others_busy + margin)))


def choose(budget: int, others_busy: float, previous: int | None,
           up_before: int | None = None) -> tuple[int, int]:
    """The thread count for ``budget`` threads when other processes keep ``others_busy`` cores
    busy, and the count this sample would allow going up to (for the next call's
    ``up_before``). A core is given up as soon as others use half of one; it is taken back
    only when two samples in a row find others using less than a quarter of it."""
    down = _free(budget, others_busy, 1 - BUSY)
    up = _free(budget, others_busy, QUIET)
    if previous is None or down < previous:
        return down, up
    if up > previous and up_before is not None and up_before > previous:
        return min(up, up_before), up
    return previous, up


def _cpu_seconds() -> tuple[float, float] | None:
    """(busy seconds of the whole machine, seconds of this process) so far; None off Linux."""
    try:
        with open("/proc/stat", "rb") as handle:
            fields = handle.readline().split()[1:]
    except OSError:
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    values = [int(v) for v in fields]
    idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
    times = os.times()
    return (sum(values[:8]) - idle) / ticks, times.user + times.system


def _watch() -> None:
    previous, when = _cpu_seconds(), time.monotonic()
    up_before: int | None = None
    while _state[2] is not False:
        time.sleep(INTERVAL)
        sample, now = _cpu_seconds(), time.monotonic()
        if sample is None or previous is None:
            return
        others = max(0.0, (sample[0] - previous[0]) - (sample[1] - previous[1])) / (now - when)
        previous, when = sample, now
        # (the budget is read each time: tl.set_num_threads may change it)
        _state[0], up_before = choose(threads.budget(), others, _state[0], up_before)


def _start() -> None:
    """Start the watcher once, where it can help: Linux, a budget of several threads, BLAS
    reachable through threadpoolctl, and not switched off."""
    with _lock:
        if _state[2] is not None:
            return
        budget = threads.budget()
        if (os.environ.get("TINYGRAD_LITE_ADAPTIVE_THREADS", "1") == "0" or budget < 2
                or _cpu_seconds() is None or _blas() is None):
            _state[2] = False
            return
        watcher = threading.Thread(target=_watch, daemon=True,
                                   name="tinygrad_lite-cpu-share")
        _state[2] = watcher
        watcher.start()


_blas_controllers: list[Any] = []


def _blas() -> list[Any] | None:
    """threadpoolctl's controllers of the loaded BLAS libraries (None without threadpoolctl)."""
    if not _blas_controllers:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:
            return None
        controller = ThreadpoolController()
        _blas_controllers.extend(c for c in controller.lib_controllers
                                 if c.user_api == "blas")
    return _blas_controllers or None


def apply() -> None:
    """At a safe point of the computing thread: use the watcher's latest choice (a no-op
    costing two list reads when nothing changed)."""
    wanted = _state[0]
    if wanted == _state[1] or _state[3]:
        if _state[2] is None:
            _start()
        return
    _set(wanted)


def _set(count: int | None) -> None:
    _state[1] = count
    for blas in _blas() or ():
        blas.set_num_threads(threads.budget() if count is None else count)
    threads.sync_numba_threads(count)


def pin(on: bool) -> None:
    """Keep BLAS and the kernels at the thread budget whatever the load (``on``), so that a
    product's rounding does not depend on other processes; ``False`` adapts again. Called
    between operations (``tl.use_deterministic_algorithms``)."""
    _state[3] = bool(on)
    if on and _state[1] is not None:
        _set(None)


def current() -> int | None:
    """The thread count last applied (None before the first change)."""
    return _state[1]


def stop() -> None:
    """Stop watching (the watcher ends within one interval); BLAS keeps its last setting."""
    _state[2] = False
