"""Catalogue rows of reductions and scans along dims: sums, means, products, extrema, variance,
logsumexp, norms, their NaN-ignoring and paired variants, and the differences along a dim
(diff, gradient, trapezoid)."""

import math

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row


def _np_renorm(a, p, dim, maxnorm):
    other = tuple(i for i in range(a.ndim) if i != dim)
    norm = (np.abs(a) ** p).sum(axis=other, keepdims=True) ** (1 / p)
    return a * np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)


_COORDS = np.array([0.0, 1.0, 3.0, 4.0, 7.5])


row("sum-all", lambda a: a.sum(), [(3, 4)], "real", np.sum)
row("sum-dim", lambda a: a.sum(1), [(3, 4)], "real", lambda a: a.sum(1))
row("sum-dims-keepdim", lambda a: a.sum((0, 2), keepdim=True), [(2, 3, 4)], "real",
    lambda a: a.sum((0, 2), keepdims=True))
row("sum-negative-dim", lambda a: a.sum(-1), [(2, 3, 4)], "real", lambda a: a.sum(-1))
row("mean-all", lambda a: a.mean(), [(3, 4)], "real", np.mean)
row("mean-dim", lambda a: a.mean(0, keepdim=True), [(3, 4)], "real",
    lambda a: a.mean(0, keepdims=True))
row("prod-all", lambda a: a.prod(), [(3, 4)], "nonzero", np.prod)
row("prod-dim", lambda a: a.prod(1), [(3, 4)], "nonzero", lambda a: a.prod(1))
row("prod-keepdim-with-zero", lambda a: (a * tl.tensor([1.0, 0, 1, 1], dtype=a.dtype)).prod(
    1, keepdim=True), [(3, 4)], "nonzero", lambda a: (a * [1, 0, 1, 1]).prod(1, keepdims=True))
row("cumsum", lambda a: a.cumsum(1), [(3, 4)], "real", lambda a: np.cumsum(a, 1))
row("cumsum-negative-dim", lambda a: tl.cumsum(a, -3), [(2, 3, 2)], "real",
    lambda a: np.cumsum(a, 0))
row("cumprod", lambda a: a.cumprod(0), [(3, 4)], "nonzero", lambda a: np.cumprod(a, 0))
row("max-all", lambda a: a.max(), [(3, 4)], "distinct", np.max)
row("max-dim-values", lambda a: a.max(1).values, [(3, 4)], "distinct", lambda a: a.max(1))
row("max-dim-keepdim", lambda a: a.max(0, keepdim=True)[0], [(3, 4)], "distinct",
    lambda a: a.max(0, keepdims=True))
row("min-all", lambda a: a.min(), [(3, 4)], "distinct", np.min)
row("min-dim-values", lambda a: tl.min(a, -1).values, [(3, 4)], "distinct", lambda a: a.min(-1))
row("amax-dims", lambda a: a.amax((0, 2)), [(2, 3, 4)], "distinct", lambda a: a.max((0, 2)))
row("amin-dim-keepdim", lambda a: a.amin(1, keepdim=True), [(2, 3, 4)], "distinct",
    lambda a: a.min(1, keepdims=True))
row("var", lambda a: a.var(1), [(3, 4)], "real", lambda a: a.var(1, ddof=1))
row("var-unbiased-false", lambda a: a.var(unbiased=False), [(3, 4)], "real", np.var)
row("var-correction-keepdim", lambda a: tl.var(a, (0, 2), keepdim=True, correction=2),
    [(3, 2, 4)], "real", lambda a: a.var((0, 2), ddof=2, keepdims=True))
row("std", lambda a: a.std(0), [(3, 4)], "real", lambda a: a.std(0, ddof=1))
row("std-all", lambda a: tl.std(a), [(3, 4)], "real", lambda a: a.std(ddof=1))
row("logsumexp", lambda a: a.logsumexp(1), [(3, 4)], "real",
    lambda a: np.log(np.exp(a).sum(1)))
row("logsumexp-dims-keepdim", lambda a: tl.logsumexp(a, (0, 1), keepdim=True), [(2, 3, 2)],
    "real", lambda a: np.log(np.exp(a).sum((0, 1), keepdims=True)))
row("norm-fro", lambda a: a.norm(), [(3, 4)], "real", np.linalg.norm)
row("norm-2-dim", lambda a: a.norm(2, dim=1), [(3, 4)], "real",
    lambda a: np.sqrt((a * a).sum(1)))
row("norm-1", lambda a: tl.norm(a, 1), [(3, 4)], "nonzero", lambda a: np.abs(a).sum())
row("norm-inf-dim", lambda a: a.norm(math.inf, dim=0, keepdim=True), [(3, 4)], "distinct",
    lambda a: np.abs(a).max(0, keepdims=True))
row("norm-p3", lambda a: a.norm(3, dim=-1), [(3, 4)], "nonzero",
    lambda a: (np.abs(a) ** 3).sum(-1) ** (1 / 3))
row("nansum", lambda a: tl.nansum(a, 1), [(3, 4)], "real", lambda a: np.nansum(a, 1))
row("nansum-keepdims", lambda a: tl.nansum(a, axis=0, keepdims=True), [(3, 4)], "real",
    lambda a: np.nansum(a, 0, keepdims=True))
row("nanmean", lambda a: tl.nanmean(a, (0, 1)), [(3, 4)], "real",
    lambda a: np.nanmean(a, (0, 1)))
row("sum-axis", lambda a: a.sum(axis=1, keepdims=True), [(3, 4)], "real",
    lambda a: a.sum(1, keepdims=True))
row("cumsum-0d", lambda a: a.sum().cumsum(0), [(3,)], "real", lambda a: a.sum())
row("cumprod-0d", lambda a: a.sum().cumprod(-1), [(3,)], "real", lambda a: a.sum())
row("dist", lambda a, b: tl.dist(a, b), [(3, 4), (4,)], "real",
    lambda a, b: np.sqrt(((a - b) ** 2).sum()))
row("dist-p3", lambda a, b: a.dist(b, 3), [(3, 4), (3, 4)], "distinct",
    lambda a, b: (np.abs(a - b) ** 3).sum() ** (1 / 3))
row("var_mean-var", lambda a: tl.var_mean(a, 1)[0], [(3, 4)], "real",
    lambda a: a.var(1, ddof=1))
row("std_mean-mean", lambda a: tl.std_mean(a, 0, keepdim=True)[1], [(3, 4)], "real",
    lambda a: a.mean(0, keepdims=True))
row("std_mean-std", lambda a: tl.std_mean(a)[0], [(3, 4)], "real", lambda a: a.std(ddof=1))
row("aminmax-min", lambda a: tl.aminmax(a, dim=1).min, [(3, 4)], "distinct",
    lambda a: a.min(1))
row("aminmax-max", lambda a: a.aminmax().max, [(3, 4)], "distinct", lambda a: a.max())
row("renorm-p2", lambda a: tl.renorm(a, 2, 0, 1.0), [(3, 4)], "real",
    lambda a: _np_renorm(a, 2, 0, 1.0))
row("renorm-p3-dim1-3d", lambda a: a.renorm(3, 1, 0.8), [(2, 3, 2)], "real",
    lambda a: _np_renorm(a, 3, 1, 0.8))
row("diff", lambda a: tl.diff(a, n=2, dim=1), [(3, 5)], "real",
    lambda a: np.diff(a, n=2, axis=1))
row("diff-prepend", lambda a, b: tl.diff(a, dim=0, prepend=b), [(3, 4), (1, 4)], "real",
    lambda a, b: np.diff(np.concatenate([b, a]), axis=0))
row("trapezoid", lambda a: tl.trapezoid(a, dx=0.5), [(3, 5)], "real",
    lambda a: np.trapezoid(a, dx=0.5) if hasattr(np, "trapezoid") else np.trapz(a, dx=0.5))
row("gradient-dim1", lambda a: tl.gradient(a, dim=1)[0], [(3, 5)], "real",
    lambda a: np.gradient(a, axis=1))
row("gradient-coords-edge2",
    lambda a: tl.gradient(a, spacing=(tl.tensor(_COORDS),), dim=1, edge_order=2)[0],
    [(3, 5)], "real", lambda a: np.gradient(a, _COORDS, axis=1, edge_order=2))
row("gradient-all-dims-sum", lambda a: sum(tl.gradient(a, spacing=[0.5, 2.0])), [(4, 3)],
    "real", lambda a: sum(np.gradient(a, 0.5, 2.0)))
