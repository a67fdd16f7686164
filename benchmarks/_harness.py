"""Shared pieces of the benchmarks: subprocess workers, a calibrated timer, stats and tables.

Every measurement runs in its own worker process (``SCRIPT --worker ...`` printing one JSON line)
so that thread pools, allocator state and imported frameworks never mix between measurements.
"""

from __future__ import annotations

import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import timeit
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent

# Exit status a worker uses when a framework's results disagree with the NumPy reference.
MISMATCH_EXIT = 3


class WorkerError(RuntimeError):
    """A worker process failed; ``mismatch`` is True when it reported a correctness mismatch."""

    def __init__(self, message: str, returncode: int) -> None:
        super().__init__(message)
        self.returncode = returncode
        self.mismatch = returncode == MISMATCH_EXIT


def add_repo_to_path() -> None:
    """Make the in-repo ``tinygrad_lite`` importable without installing it (fresh clone)."""
    root = str(REPO_ROOT)
    if root not in sys.path:
        sys.path.insert(0, root)


# -- timing --------------------------------------------------------------------------------------


@dataclass
class Timing:
    """Result of ``time_per_iteration``: seconds per iteration for each repeat."""

    number: int  # loop iterations per repeat
    per_iter: list[float]  # seconds per iteration, one entry per repeat

    @property
    def median(self) -> float:
        """The median over repeats of the per-iteration time (seconds)."""
        return statistics.median(self.per_iter)


def time_per_iteration(fn: Callable[[], object], min_time: float = 0.2, repeats: int = 7) -> Timing:
    """Time ``fn()`` timeit-style (GC enabled): calibrate loops to ``min_time``, then repeat."""
    # Loop counts tried: 1, 2, 5, 10, 20, 50, ... until one repeat takes >= min_time seconds.
    timer = timeit.Timer(fn, setup=gc.enable)  # timeit disables GC unless the setup re-enables it
    number = 1
    while True:
        for factor in (1, 2, 5):
            if timer.timeit(number * factor) >= min_time:
                number *= factor
                return Timing(number, [t / number for t in timer.repeat(repeats, number)])
        number *= 10


def median(values: Sequence[float]) -> float:
    """The median of ``values``."""
    return statistics.median(values)


def spread_pct(values: Sequence[float]) -> float:
    """``(max - min) / median`` of ``values``, in percent (0 for a single value)."""
    return 100.0 * (max(values) - min(values)) / statistics.median(values)


# -- workers -------------------------------------------------------------------------------------


def run_worker(script: Path | str, args: Sequence[str], timeout: float = 600.0) -> dict[str, Any]:
    """Run ``python SCRIPT --worker ARGS...`` in a fresh process; return its JSON result."""
    # The result is the last stdout line; stderr is echoed; a non-zero exit raises WorkerError.
    cmd = [sys.executable, str(script), "--worker", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    sys.stdout.flush()  # keep the echoed stderr in order with what was printed before
    if proc.stderr.strip():
        for line in proc.stderr.rstrip().splitlines():
            print(f"    [worker {' '.join(args)}] {line}", file=sys.stderr)
    if proc.returncode != 0:
        raise WorkerError(
            f"worker {' '.join(args)} exited with status {proc.returncode}", proc.returncode
        )
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    if not lines:
        raise WorkerError(f"worker {' '.join(args)} printed no result", proc.returncode)
    return json.loads(lines[-1])


def emit(result: dict[str, Any] | Timing) -> None:
    """Print a worker's result as the single JSON line ``run_worker`` reads."""
    print(json.dumps(asdict(result) if isinstance(result, Timing) else result), flush=True)


def rotated(items: Sequence[str], shift: int) -> list[str]:
    """``items`` rotated left by ``shift`` (round ``r`` uses ``shift=r`` to vary the order)."""
    if not items:
        return []
    k = shift % len(items)
    return [*items[k:], *items[:k]]


# -- environment ---------------------------------------------------------------------------------


def thread_info() -> dict[str, Any]:
    """BLAS/OpenMP thread counts from threadpoolctl, else the ``OPENBLAS_NUM_THREADS`` setting."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return {"OPENBLAS_NUM_THREADS": os.environ.get("OPENBLAS_NUM_THREADS", "default")}
    return {
        f"{pool.get('internal_api')}:{Path(pool.get('filepath', '?')).name}": pool["num_threads"]
        for pool in threadpool_info()
    }


def format_threads(info: dict[str, Any]) -> str:
    """``thread_info()`` as ``name=count, ...``."""
    return ", ".join(f"{name}={count}" for name, count in info.items()) or "no thread pools"


def environment_header() -> str:
    """One line naming Python, NumPy (and its BLAS), the CPU count and the platform."""
    import numpy as np

    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:  # older NumPy: no mode="dicts"
        blas = "?"
    return (
        f"python {platform.python_version()} | numpy {np.__version__} (BLAS: {blas}) | "
        f"cpu count {os.cpu_count()} | {platform.system()} {platform.machine()}"
    )


# -- output --------------------------------------------------------------------------------------


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A Markdown table; cells are converted with ``str``."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def fmt_us(seconds: float) -> str:
    """A duration in microseconds with about three significant digits."""
    us = seconds * 1e6
    return f"{us:.2f}" if us < 10 else f"{us:.1f}" if us < 1000 else f"{us:,.0f}"


# -- memory --------------------------------------------------------------------------------------


def rss_mib() -> float:
    """This process's current resident set size in MiB (Linux /proc; 0 elsewhere)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
    except OSError:
        return 0.0
    return pages * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_rss_mib() -> float:
    """This process's peak resident set size in MiB (``ru_maxrss``)."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 1024


# -- drivers and reports -------------------------------------------------------------------------


@dataclass
class Budget:
    """One budget line: ``value`` (a ratio to the floor, or None if not measured) vs ``limit``."""

    name: str
    value: float | None
    limit: float
    unit: str = "×numpy"
    passed: bool | None = None  # a yes/no budget: set this instead of value/limit

    def line(self) -> str:
        """``- name: value (budget <= limit): PASS|FAIL|SKIP``."""
        if self.passed is not None:
            return f"- {self.name}: {'PASS' if self.passed else 'FAIL'}"
        if self.value is None:
            return f"- {self.name}: SKIP (not measured; budget ≤ {self.limit})"
        verdict = "PASS" if self.value <= self.limit else "FAIL"
        return f"- {self.name}: {self.unit} {self.value:.2f} (budget ≤ {self.limit}): {verdict}"


@dataclass
class Report:
    """What one benchmark produced: printed text, budget lines, and whether a check failed."""

    title: str
    text: list[str]
    budgets: list[Budget]
    failed: bool = False


def run_rounds(script: Path | str, cases: Sequence[str], frameworks: Sequence[str], rounds: int,
               extra: Sequence[str], describe: Callable[[dict], str],
               timeout: float = 600.0) -> dict[tuple[str, str], list[dict]] | None:
    """Run ``SCRIPT --worker FW CASE EXTRA...`` for every case and framework, ``rounds`` times.

    The framework order rotates every round. Returns the worker results keyed by (fw, case), or
    None after printing the error when a worker fails or reports a correctness mismatch.
    """
    results: dict[tuple[str, str], list[dict]] = {}
    for rnd in range(rounds):
        order = rotated(list(frameworks), rnd)
        print(f"round {rnd + 1}/{rounds}: order {order}", flush=True)
        for case in cases:
            for fw in order:
                try:
                    res = run_worker(script, [fw, case, *extra], timeout)
                except WorkerError as err:
                    kind = "CORRECTNESS MISMATCH" if err.mismatch else "worker failed"
                    print(f"\nERROR ({kind}): {err}", file=sys.stderr)
                    return None
                results.setdefault((fw, case), []).append(res)
                print(f"  {fw:>13} {case:>8}  {describe(res)}  "
                      f"(threads: {format_threads(res.get('threads', {}))})", flush=True)
    return results


def print_report(report: Report) -> int:
    """Print a report's text and budget lines; the exit status (1 if a check failed)."""
    print("\n".join(report.text))
    if report.budgets:
        print("\n## Budget (ratio to the NumPy floor in this run; reported, not enforced)")
        print("\n".join(b.line() for b in report.budgets))
    return 1 if report.failed else 0


def fmt_ms(seconds: float) -> str:
    """A duration in milliseconds with about three significant digits."""
    ms = seconds * 1e3
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 10 else f"{ms:.1f}" if ms < 1000 \
        else f"{ms:,.0f}"
