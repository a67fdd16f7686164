"""Catalogue rows of the API fixes (functions/nan_reductions.py, the pow fast paths of
ops/elementwise.py, scans of 0-d tensors); see op_catalog.py for what a row drives."""

import numpy as np

import tinygrad_lite as tl


def add_rows(row) -> None:
    row("nansum", lambda a: tl.nansum(a, 1), [(3, 4)], "real", lambda a: np.nansum(a, 1))
    row("nansum-keepdims", lambda a: tl.nansum(a, axis=0, keepdims=True), [(3, 4)], "real",
        lambda a: np.nansum(a, 0, keepdims=True))
    row("nanmean", lambda a: tl.nanmean(a, (0, 1)), [(3, 4)], "real",
        lambda a: np.nanmean(a, (0, 1)))
    row("sum-axis", lambda a: a.sum(axis=1, keepdims=True), [(3, 4)], "real",
        lambda a: a.sum(1, keepdims=True))
    row("pow-2", lambda a: a ** 2, [(3, 4)], "real", lambda a: a ** 2)
    row("pow-3", lambda a: a ** 3, [(3, 4)], "real", lambda a: a ** 3)
    row("pow-0.5", lambda a: a ** 0.5, [(3, 4)], "positive", np.sqrt)
    row("pow-neg1", lambda a: a ** -1, [(3, 4)], "nonzero", lambda a: 1 / a)
    row("pow-neg0.5", lambda a: a ** -0.5, [(3, 4)], "positive", lambda a: 1 / np.sqrt(a))
    row("cumsum-0d", lambda a: a.sum().cumsum(0), [(3,)], "real", lambda a: a.sum())
    row("cumprod-0d", lambda a: a.sum().cumprod(-1), [(3,)], "real", lambda a: a.sum())
