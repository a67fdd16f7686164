"""Segment reductions on NumPy arrays: sums of rows grouped by an index (``segment_sum``), the
scatter-add that the gradients of lookups and gathers are made of."""

from __future__ import annotations

import numpy as np

from .._core.tracing import call_as_one_op

__all__ = ["segment_sum", "ranks"]


def ranks(groups: np.ndarray) -> np.ndarray:
    """The position of each entry within its run of equal values in the sorted ``groups``."""
    k = groups.size
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.arange(k) - np.repeat(starts, np.diff(np.r_[starts, k]))


def segment_sum(rows: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """``out[r] = sum of values[k] with rows[k] == r`` for r < n. The entries are sorted by row
    and added in passes, one per repeat (each pass a duplicate-free fancy-index add), 3-6x
    faster than ``np.add.at``; heavily repeated rows use one ``reduceat`` instead. (Its work
    depends on the data: tl.compile replays it as one op.)"""
    return call_as_one_op(_segment_sum, rows, values, n)


def _segment_sum(rows: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """``segment_sum`` on plain arrays."""
    out = np.zeros((n,) + values.shape[1:], values.dtype)
    if not rows.size:
        return out
    order = np.argsort(rows, kind="stable")
    srt, vals = rows[order], values[order]
    rank = ranks(srt)
    if rank.max() >= 16:
        starts = np.flatnonzero(rank == 0)
        out[srt[starts]] = np.add.reduceat(vals, starts, axis=0)
        return out
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        out[srt[sel]] += vals[sel]
    return out
