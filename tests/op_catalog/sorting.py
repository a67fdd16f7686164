"""Catalogue rows of sorting and selection (sort, topk, kthvalue, median, cummax/cummin,
logcumsumexp, msort): their values are gathered, so gradients flow to the elements selected.
Inputs are "distinct": no ties."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row


def _kth(a, k, axis):
    return np.sort(a, axis=axis).take(k - 1, axis=axis)


row("sort-values", lambda a: tl.sort(a, dim=1).values, [(3, 4)], "distinct",
    lambda a: np.sort(a, axis=1))
row("sort-descending-dim0", lambda a: tl.sort(a, dim=0, descending=True)[0], [(3, 4)],
    "distinct", lambda a: -np.sort(-a, axis=0))
row("topk", lambda a: tl.topk(a, 2).values, [(3, 4)], "distinct",
    lambda a: -np.sort(-a, axis=1)[:, :2])
row("topk-smallest-dim0", lambda a: a.topk(2, dim=0, largest=False)[0], [(3, 4)],
    "distinct", lambda a: np.sort(a, axis=0)[:2])
row("kthvalue", lambda a: tl.kthvalue(a, 3, dim=1).values, [(3, 4)], "distinct",
    lambda a: _kth(a, 3, 1))
row("median-dim", lambda a: tl.median(a, dim=0).values, [(3, 4)], "distinct",
    lambda a: np.sort(a, axis=0)[1])
row("median-all", lambda a: tl.median(a), [(3, 4)], "distinct",
    lambda a: np.sort(a.reshape(-1))[5])
row("cummax", lambda a: tl.cummax(a, 1).values, [(3, 4)], "distinct",
    lambda a: np.maximum.accumulate(a, axis=1))
row("cummin", lambda a: tl.cummin(a, 0).values, [(3, 4)], "distinct",
    lambda a: np.minimum.accumulate(a, axis=0))
row("logcumsumexp", lambda a: tl.logcumsumexp(a, 1), [(3, 4)], "real",
    lambda a: np.logaddexp.accumulate(a, axis=1))
row("msort", tl.msort, [(3, 4)], "distinct", lambda a: np.sort(a, axis=0))
