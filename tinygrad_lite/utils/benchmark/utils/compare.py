"""``Compare``: many Measurements as text tables, as ``torch.utils.benchmark.Compare`` prints
them: one table per label, a row per sub-label (grouped by thread count and env), a column per
description, medians in one unit per table."""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable

from .common import Measurement, ordered_unique, select_unit, trim_sigfig, unit_to_english

__all__ = ["Colorize", "Compare"]

# ANSI escapes for the colored cells.
_BEST, _GOOD, _BAD, _VERY_BAD = "\033[92m", "\033[34m", "\033[2m\033[91m", "\033[31m"
_BOLD, _END = "\033[1m", "\033[0m"
_SEP = "  |  "


class Colorize(enum.Enum):
    """How Compare colors cells: not at all, against the column's best, or the row's best."""

    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _color(cell: str, value: float, best: float) -> str:
    """Green for the best (within 1% or 100 ns) and near-best, red for 2x and 5x slower."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return _BEST + _BOLD + cell + _END * 2
    if value <= best * 1.1:
        return _GOOD + _BOLD + cell + _END * 2
    if value >= best * 5:
        return _VERY_BAD + _BOLD + cell + _END * 2
    if value >= best * 2:
        return _BAD + cell + _END * 2
    return cell


class _ColumnFormat:
    """Number formatting shared by one column, so that its decimal points line up."""

    def __init__(self, results: list[Measurement], scale: float, trim: bool,
                 highlight: bool) -> None:
        digits = [math.ceil(math.log10(r.median / scale)) for r in results]
        # Trimmed, a column keeps as many decimals as its least precise entry allows.
        self.decimals = min(max(r.significant_figures - d, 0)
                            for r, d in zip(results, digits)) if trim else 1
        self.width = max(digits) + self.decimals + (1 if self.decimals else 0)
        self.trim = trim
        self.highlight = highlight and any(r.has_warnings for r in results)

    def cell(self, value: float | None, sigfigs: int = 1, spread: float | None = None) -> str:
        """A median (in the table's unit) as text; blanks of the same width for no value."""
        if value is None:
            return " " * len(self.cell(1.0))
        if self.trim:
            value = trim_sigfig(value, sigfigs)
        note = f" (! {spread * 100:.0f}%)" if self.highlight and spread is not None else ""
        return f"{value:>{self.width}.{self.decimals}f}" + note.rjust(7 if self.highlight else 0)


def _table(results: list[Measurement], colorize: Colorize, trim: bool, highlight: bool) -> str:
    """One label's table."""
    unit, scale = select_unit(min(r.median for r in results))

    def row_key(m: Measurement) -> tuple[int, str, str]:
        return m.num_threads, m.env, m.as_row_name

    rows = ordered_unique(row_key(r) for r in results)
    rows.sort(key=lambda k: k[:2])  # by threads and env; sort is stable: first-seen order stays
    cols = ordered_unique(r.description for r in results)
    grid: list[list[Measurement | None]] = [[None] * len(cols) for _ in rows]
    row_at, col_at = {k: i for i, k in enumerate(rows)}, {k: j for j, k in enumerate(cols)}
    for r in results:
        grid[row_at[row_key(r)]][col_at[r.description]] = r

    # Rows with one thread count form a group: a separator line heads it, columnwise colors
    # compare within it, and the env tag is written again at its top.
    group: list[int] = []
    for i, key in enumerate(rows):
        group.append(0 if i == 0 else group[-1] + (key[0] != rows[i - 1][0]))
    envs = {r.env for r in results}
    env_width = max(len(e) for e in envs) if len(envs) > 1 else 0
    fmts = [_ColumnFormat([m for g in grid if (m := g[j]) is not None], scale, trim, highlight)
            for j in range(len(cols))]

    text_rows = [["", *("" if c is None else str(c) for c in cols)]]
    for i, ((_, env, name), cells) in enumerate(zip(rows, grid)):
        new_env = len(envs) > 1 and (i == 0 or group[i] != group[i - 1] or rows[i - 1][1] != env)
        line = ["  " + (f"({env})" if new_env else "").ljust(env_width + 4) + name]
        for m, fmt in zip(cells, fmts):
            line.append(fmt.cell(None) if m is None else fmt.cell(
                m.median / scale, m.significant_figures,
                m.iqr / m.median if m.has_warnings else None))
        text_rows.append(line)
    widths = [max(len(r[j]) for r in text_rows) for j in range(len(text_rows[0]))]
    header = _SEP.join(c.center(w) for c, w in zip(text_rows[0], widths))
    lines = [header]
    for i, (cells, line) in enumerate(zip(grid, text_rows[1:])):
        if i == 0 or group[i] != group[i - 1]:
            lines.append(f"{rows[i][0]} threads: ".ljust(len(header), "-"))
        out = [line[0].ljust(widths[0])]
        for j, (text, width, m) in enumerate(zip(line[1:], widths[1:], cells)):
            text = text.center(width)
            best: float | None = None
            if colorize == Colorize.ROWWISE:
                best = min(c.median for c in cells if c is not None)
            elif colorize == Colorize.COLUMNWISE:
                best = min((g[j].median for k, g in enumerate(grid)  # type: ignore[union-attr]
                            if g[j] is not None and group[k] == group[i]), default=None)
            if m is not None and best is not None:
                text = _color(text, m.median, best)
            out.append(text)
        lines.append(_SEP.join(out))

    label = results[0].label or ""
    noisy = highlight and any(r.has_warnings for r in results)
    return (f"[{(' ' + label + ' ').center(len(header) - 2, '-')}]\n" + "\n".join(lines)
            + f"\n\nTimes are in {unit_to_english(unit)}s ({unit}).\n"
            + ("(! XX%) Measurement has high variance, where XX is the IQR / median * 100.\n"
               if noisy else ""))


class Compare:
    """Tables of many Measurements (``print()`` or ``str()``): replicates of one task are
    merged, one table per label, rows by sub-label, columns by description."""

    def __init__(self, results: list[Measurement]) -> None:
        self._results: list[Measurement] = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        """All the tables, one after another."""
        return "\n".join(self._render())

    def extend_results(self, results: Iterable[Measurement]) -> None:
        """Add more Measurements to the ones already held."""
        results = list(results)
        for r in results:
            if not isinstance(r, Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Show each value only to the significant figures its spread supports."""
        self._trim_significant_figures = True

    def colorize(self, rowwise: bool = False) -> None:
        """Color cells against the best of their column (or of their row, ``rowwise=True``)."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark noisy measurements with their IQR as a percentage of the median."""
        self._highlight_warnings = True

    def print(self) -> None:
        """Print the tables."""
        print(str(self))

    def _render(self) -> list[str]:
        by_label: dict[str | None, list[Measurement]] = {}
        for m in Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_table(group, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings) for group in by_label.values()]
