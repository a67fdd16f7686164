"""What a timing is about (``TaskSpec``), what it found (``Measurement``), and the small
formatting helpers ``torch.utils.benchmark`` exports: ``select_unit``, ``unit_to_english``,
``trim_sigfig``, ``ordered_unique`` and the ``set_torch_threads`` context manager."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import math
import textwrap
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

__all__ = ["TaskSpec", "Measurement", "select_unit", "unit_to_english", "trim_sigfig",
           "ordered_unique", "set_torch_threads"]

# Compare shows at most this many significant figures, and no confidence interval is taken
# as narrower than 25 ns: below that the timer's own resolution dominates.
_MAX_SIGNIFICANT_FIGURES = 4
_MIN_CONFIDENCE_INTERVAL = 25e-9
# IQR / median above these marks a measurement as noisy (the first) or very noisy (the second).
_IQR_WARN_THRESHOLD = 0.1
_IQR_GROSS_WARN_THRESHOLD = 0.25


@dataclasses.dataclass(init=True, repr=False, eq=True, frozen=True)
class TaskSpec:
    """The description of one timed task (statement, setup, labels, threads), globals aside."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: str | None = None
    sub_label: str | None = None
    description: str | None = None
    env: str | None = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """A readable name: the label (or the one-line statement), with the sub-label."""
        suffix = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + suffix
        if "\n" not in self.stmt:
            return self.stmt + suffix
        # A multi-line statement goes below a header, indented as a block.
        header = f"stmt: ({self.sub_label})" if self.sub_label else "stmt:"
        return header + "\n" + textwrap.indent(self.stmt, "  ")

    def setup_str(self) -> str:
        """The setup as shown in a summary ("" when it is only ``pass``)."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return "setup:\n" + textwrap.indent(self.setup, "  ")
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """The title, description and setup, as the head of a Measurement's repr."""
        parts = [p for p in (self.title, self.description or "", self.setup_str()) if p]
        # Multi-line sections get a blank line after them so blocks stay apart.
        return "\n".join(p + "\n" if "\n" in p else p for p in parts)


_TASKSPEC_FIELDS = frozenset(f.name for f in dataclasses.fields(TaskSpec))


@dataclasses.dataclass(init=True, repr=False)
class Measurement:
    """The replicates of one timed task: ``raw_times[i]`` is the time ``number_per_run``
    executions of the statement took."""

    number_per_run: int
    raw_times: list[float]
    task_spec: TaskSpec
    metadata: dict[Any, Any] | None = None  # free for the caller's own payload

    def __post_init__(self) -> None:
        # Statistics are computed on first use and kept (sorted times, median, mean, p25, p75).
        self._stats: tuple[tuple[float, ...], float, float, float, float] | None = None
        self._warnings: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:
        """The TaskSpec's fields (stmt, label, num_threads, ...) read through the Measurement."""
        # Through __dict__: while unpickling, task_spec may not be set yet.
        spec = self.__dict__.get("task_spec")
        if name in _TASKSPEC_FIELDS and spec is not None:
            return getattr(spec, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def _lazy_init(self) -> tuple[tuple[float, ...], float, float, float, float]:
        if self._stats is None:
            if not self.raw_times:
                return (), -1.0, -1.0, -1.0, -1.0
            ordered = tuple(sorted(self.times))
            arr = np.asarray(ordered, dtype=np.float64)
            # Linear-interpolated quantiles, as torch.quantile computes them.
            p25, median, p75 = (float(q) for q in np.quantile(arr, [0.25, 0.5, 0.75]))
            self._stats = (ordered, median, float(arr.mean()), p25, p75)
            rel_iqr = (p75 - p25) / median
            note = ("This suggests significant environmental influence."
                    if rel_iqr >= _IQR_GROSS_WARN_THRESHOLD
                    else "This could indicate system fluctuation."
                    if rel_iqr >= _IQR_WARN_THRESHOLD else "")
            if note:
                self._warnings = (f"  WARNING: Interquartile range is {rel_iqr * 100:.1f}% "
                                  f"of the median measurement.\n           {note}",)
        return self._stats

    @property
    def times(self) -> list[float]:
        """Seconds per single execution: each raw time divided by ``number_per_run``."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        """The median of ``times``."""
        return self._lazy_init()[1]

    @property
    def mean(self) -> float:
        """The mean of ``times``."""
        return self._lazy_init()[2]

    @property
    def iqr(self) -> float:
        """The interquartile range (75th minus 25th percentile) of ``times``."""
        stats = self._lazy_init()
        return stats[4] - stats[3]

    @property
    def significant_figures(self) -> int:
        """A rough count (1 to 4) of trustworthy significant figures of the median."""
        ordered, median = self._lazy_init()[:2]
        n = len(ordered)
        # Only the middle half of the sorted times: the tails are where outliers live.
        middle = np.asarray(ordered[n // 4:math.ceil(3 * n / 4)], dtype=np.float64)
        std = float(middle.std()) if middle.size else 0.0
        half_width = max(1.645 * std / math.sqrt(max(middle.size, 1)), _MIN_CONFIDENCE_INTERVAL)
        figures = math.floor(math.log10(median / half_width))
        return min(max(figures, 1), _MAX_SIGNIFICANT_FIGURES)

    @property
    def has_warnings(self) -> bool:
        """Whether the spread of ``times`` is large enough to doubt the median."""
        self._lazy_init()
        return bool(self._warnings)

    def meets_confidence(self, threshold: float = _IQR_WARN_THRESHOLD) -> bool:
        """Whether IQR / median is below ``threshold``."""
        return self.iqr / self.median < threshold

    @property
    def title(self) -> str:
        """The task's title (see ``TaskSpec.title``)."""
        return self.task_spec.title

    @property
    def env(self) -> str:
        """The task's ``env`` tag, or "Unspecified env"."""
        return "Unspecified env" if self.task_spec.env is None else self.task_spec.env

    @property
    def as_row_name(self) -> str:
        """The name of this task's row in a Compare table: sub_label, else the statement."""
        return self.task_spec.sub_label or self.task_spec.stmt or "[Unknown]"

    def __repr__(self) -> str:
        """The task summary, median and IQR in a fitting unit, counts, and any warning."""
        ordered, median, _, p25, p75 = self._lazy_init()
        n = len(ordered)
        unit, scale = select_unit(median)
        threads = self.task_spec.num_threads
        lines = [object.__repr__(self), self.task_spec.summarize(),
                 f"  {'Median: ' if n > 1 else ''}{median / scale:.2f} {unit}"]
        if n >= 4:  # fewer points make no meaningful quartiles
            lines.append(f"  IQR:    {(p75 - p25) / scale:.2f} {unit} "
                         f"({p25 / scale:.2f} to {p75 / scale:.2f})")
        # The odd "runs ," of a single measurement is kept: it is what PyTorch prints.
        lines.append(f"  {n} measurement{'s' if n > 1 else ''}, {self.number_per_run} runs "
                     f"{'per measurement,' if n > 1 else ','} {threads} "
                     f"thread{'s' if threads > 1 else ''}")
        lines.extend(self._warnings)
        return "\n".join(lines).strip()

    @staticmethod
    def merge(measurements: Iterable[Measurement]) -> list[Measurement]:
        """Pool replicates of the same TaskSpec into one Measurement each (times per run,
        ``number_per_run=1``, no metadata: replicates' metadata may disagree)."""
        groups: dict[TaskSpec, list[float]] = collections.defaultdict(list)
        for m in measurements:
            groups[m.task_spec].extend(m.times)
        return [Measurement(1, times, spec, None) for spec, times in groups.items()]


def select_unit(t: float) -> tuple[str, float]:
    """The unit ("ns", "us", "ms" or "s") and its scale in seconds that suit time ``t``."""
    unit = {-3: "ns", -2: "us", -1: "ms"}.get(int(math.log10(t) // 3), "s")
    return unit, {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}[unit]


def unit_to_english(u: str) -> str:
    """The English name of a unit from ``select_unit`` ("us" -> "microsecond")."""
    return {"ns": "nanosecond", "us": "microsecond", "ms": "millisecond", "s": "second"}[u]


def trim_sigfig(x: float, n: int) -> float:
    """``x`` rounded to ``n`` significant figures (3.14159, 2 -> 3.1)."""
    if n != int(n):
        raise AssertionError("Number of significant figures must be an integer")
    if x == 0:
        return 0.0
    magnitude = math.ceil(math.log10(abs(x)))
    # round() to a (possibly negative) number of decimals rounds in decimal, exactly.
    return float(round(x, int(n) - magnitude))


def ordered_unique(elements: Iterable[Any]) -> list[Any]:
    """The distinct elements in order of first appearance."""
    return list(dict.fromkeys(elements))


@contextlib.contextmanager
def set_torch_threads(n: int) -> Iterator[None]:
    """Run the block with ``n`` BLAS / OpenMP threads (as ``tl.set_num_threads(n)`` sets them),
    then restore each thread pool's previous size."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # optional: without it there is no thread pool size to set
        yield
        return
    # threadpoolctl directly rather than tl.set_num_threads: utils sits below the package
    # layer, and the context manager puts every pool back exactly as it was (the package
    # function would set them all to one count and export OMP_NUM_THREADS).
    with threadpool_limits(limits=int(n)):
        yield
