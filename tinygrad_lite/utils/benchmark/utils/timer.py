"""``Timer``: ``timeit.Timer`` with PyTorch's extras (a fixed BLAS thread count while timing,
warm-up, replicates chosen automatically, labels for ``Compare``), as
``torch.utils.benchmark.Timer``."""

from __future__ import annotations

import enum
import statistics
import sys
import textwrap
import timeit
from collections.abc import Callable
from typing import Any, NoReturn

from . import common

__all__ = ["Timer", "timer", "Language"]


def timer() -> float:
    """The default clock: ``timeit.default_timer`` (there is no accelerator to synchronize)."""
    return timeit.default_timer()


class Language(enum.Enum):
    """The language of a Timer's statements (only Python runs here)."""

    PYTHON = 0
    CPP = 1


class Timer:
    """Time a Python statement string run in ``globals`` (``torch`` there names this package):
    ``timeit`` for a fixed count, ``blocked_autorange`` / ``adaptive_autorange`` for replicates
    sized automatically; each returns a ``Measurement``."""

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: Language | str = Language.PYTHON,
    ) -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        if language in (Language.CPP, "cpp", "c++"):
            raise NotImplementedError(
                "C++ statements are not supported: PyTorch compiles them against libtorch with "
                "a C++ toolchain, and tinygrad_lite has no C++ library to compile against. "
                "Time Python statements instead.")
        if language not in (Language.PYTHON, "py", "python"):
            raise ValueError(f"Invalid language `{language}`.")
        if global_setup:
            raise ValueError(f"global_setup is C++ only, got `{global_setup}`. Most likely this "
                             "code can simply be moved to `setup`.")
        self._language = Language.PYTHON
        # A copy, so that what the statements define (and exec's __builtins__) stays here.
        self._globals = dict(globals or {})
        # Statements written for PyTorch say ``torch.``: there it means this package.
        self._globals.setdefault("torch", sys.modules[__name__.partition(".")[0]])
        stmt, setup = _tidy(stmt), _tidy(setup)
        self._timer = timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=self._globals)
        self._task_spec = common.TaskSpec(
            stmt=stmt, setup=setup, global_setup=global_setup, label=label, sub_label=sub_label,
            description=description, env=env, num_threads=num_threads)

    def _timeit(self, number: int) -> float:
        # Floor at 1 ns: no real run is shorter, and later divisions must not see zero.
        return max(self._timer.timeit(number), 1e-9)

    def timeit(self, number: int = 1000000) -> common.Measurement:
        """Run the statement ``number`` times (after a short warm-up) and measure it once."""
        with common.set_torch_threads(self._task_spec.num_threads):
            self._timeit(max(number // 100, 2))  # warm-up: lazy initialisation, caches
            return common.Measurement(number_per_run=number,
                                      raw_times=[self._timeit(number)],
                                      task_spec=self._task_spec)

    def repeat(self, repeat: int = -1, number: int = -1) -> None:
        """Not provided, as in PyTorch: ``blocked_autorange`` replaces it."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback: Callable[[int, float], NoReturn] | None = None) -> None:
        """Not provided, as in PyTorch: ``blocked_autorange`` replaces it."""
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self, min_run_time: float) -> int:
        """The number of executions per timed block: grown tenfold until the timer's own cost
        is negligible next to the block (this doubles as the warm-up)."""
        with common.set_torch_threads(self._task_spec.num_threads):
            overhead = statistics.median(self._timeit(0) for _ in range(5))
            number = 1
            while True:
                elapsed = self._timeit(number)
                if overhead / elapsed <= 1e-4 and elapsed >= min_run_time / 1000:
                    break
                # A block longer than the whole budget is big enough whatever the overhead;
                # the cap keeps the count an int32, as PyTorch's C++ timer needs.
                if elapsed > min_run_time or number * 10 > 2147483647:
                    break
                number *= 10
        return number

    def _measure(self, number: int, min_run_time: float, max_run_time: float | None,
                 enough: Callable[[list[float]], bool],
                 callback: Callable[[int, float], Any] | None) -> common.Measurement:
        """Time blocks of ``number`` runs until ``min_run_time`` is spent and ``enough`` says
        so, or ``max_run_time`` is spent."""
        times: list[float] = []
        total = 0.0
        with common.set_torch_threads(self._task_spec.num_threads):
            while True:
                elapsed = self._timeit(number)
                times.append(elapsed)
                total += elapsed
                if callback is not None:
                    callback(number, elapsed)
                if (total >= min_run_time and enough(times)) or (
                        max_run_time and total > max_run_time):
                    break
        return common.Measurement(number_per_run=number, raw_times=times,
                                  task_spec=self._task_spec)

    def blocked_autorange(
        self,
        callback: Callable[[int, float], NoReturn] | None = None,
        min_run_time: float = 0.2,
    ) -> common.Measurement:
        """Time blocks of a self-chosen size until ``min_run_time`` seconds are spent;
        ``callback(number, seconds)`` hears of each block."""
        number = self._block_size(min_run_time)
        return self._measure(number, min_run_time, None, lambda times: True, callback)

    def adaptive_autorange(
        self,
        threshold: float = 0.1,
        *,
        min_run_time: float = 0.01,
        max_run_time: float = 10.0,
        callback: Callable[[int, float], NoReturn] | None = None,
    ) -> common.Measurement:
        """Like ``blocked_autorange``, but go on until more than 3 blocks have IQR / median
        below ``threshold`` (or ``max_run_time`` seconds are spent)."""
        number = self._block_size(min_run_time=0.05)

        def steady(times: list[float]) -> bool:
            return len(times) > 3 and common.Measurement(
                number, times, self._task_spec).meets_confidence(threshold)

        return self._measure(number, min_run_time, max_run_time, steady, callback)

    def collect_callgrind(self, number: int = 100, *, repeats: int | None = None,
                          collect_baseline: bool = True, retain_out_file: bool = False) -> Any:
        """Not supported: instruction counts need Valgrind and PyTorch's C++ bindings."""
        raise NotImplementedError(
            "Timer.collect_callgrind is not supported: it runs the statement under Valgrind's "
            "Callgrind through PyTorch's compiled C++ bindings, which tinygrad_lite does not "
            "have. Use blocked_autorange() or adaptive_autorange() for wall times.")


def _tidy(code: str) -> str:
    """Dedent a snippet and drop the newline that opens a triple-quoted block, and trailing
    whitespace: the same code runs, and summaries read better."""
    code = textwrap.dedent(code)
    return (code[1:] if code.startswith("\n") else code).rstrip()
