"""Catalogue rows of the statistics of samples: quantile interpolations, nanquantile and the
covariances (cov, corrcoef)."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row

row("quantile-linear", lambda a: tl.quantile(a, 0.3, dim=1), [(3, 5)], "real",
    lambda a: np.quantile(a, 0.3, axis=1))
row("quantile-q-vector", lambda a: tl.quantile(a, tl.tensor([0.2, 0.9], dtype=a.dtype)),
    [(3, 4)], "real", lambda a: np.quantile(a, [0.2, 0.9]))
row("quantile-midpoint", lambda a: tl.quantile(a, 0.5, 0, True, interpolation="midpoint"),
    [(4, 3)], "real", lambda a: np.quantile(a, 0.5, 0, keepdims=True, method="midpoint"))
row("nanquantile", lambda a: tl.nanquantile(a, 0.75, dim=-1), [(2, 5)], "real",
    lambda a: np.nanquantile(a, 0.75, axis=-1))
row("cov", tl.cov, [(3, 6)], "real", np.cov)
row("corrcoef", tl.corrcoef, [(3, 6)], "real", np.corrcoef)
