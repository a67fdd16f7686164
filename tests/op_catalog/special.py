"""Catalogue rows of the special functions (erf family, gamma family, Bessel i0, incomplete
gamma, xlogy, logit, sinc), against references written independently of the package."""

import math

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import row
from tinygrad_lite.ops.special import polygamma_fallback

_erf = np.vectorize(math.erf)


_lgamma = np.vectorize(math.lgamma)


def _digamma(a):
    h = 1e-5  # reference by a central difference of lgamma (float64: ~1e-10 accurate)
    return (_lgamma(a + h) - _lgamma(a - h)) / (2 * h)


def _erfinv(y):
    lo, hi = np.full_like(y, -6.0), np.full_like(y, 6.0)
    for _ in range(80):  # bisection on math.erf: independent of the implementation under test
        mid = (lo + hi) / 2
        below = _erf(mid) < y
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return (lo + hi) / 2


_A = np.array([1.0, 2.0, 3.0, 2.0])  # igamma's a, per column: P(a, x) has a closed form


def _np_igamma(x):
    """P(a, x) for a = 1, 2, 3: ``1 - e^-x sum_{k<a} x^k / k!``."""
    partial = [1 + 0 * x, 1 + x, 1 + x + x * x / 2]
    series = np.choose((_A - 1).astype(int) + 0 * x.astype(int), partial)
    return 1 - np.exp(-x) * series


row("erf", tl.erf, [(3, 4)], "real", _erf)
row("erfc", tl.erfc, [(3, 4)], "real", lambda a: 1 - _erf(a))
row("erfinv", tl.erfinv, [(3, 4)], "unit", _erfinv)
row("lgamma", tl.lgamma, [(3, 4)], "positive", _lgamma)
row("digamma", tl.digamma, [(3, 4)], "positive", _digamma)
row("polygamma-1", lambda a: tl.polygamma(1, a), [(3, 4)], "positive",
    lambda a: polygamma_fallback(1, a))
row("xlogy", tl.xlogy, [(3, 4), (3, 4)], "positive", lambda a, b: a * np.log(b))
row("logit", lambda a: tl.logit(a * 0.4 + 0.5), [(3, 4)], "unit",
    lambda a: np.log((a * 0.4 + 0.5) / (1 - (a * 0.4 + 0.5))))
row("sinc", tl.sinc, [(3, 4)], "nonzero", np.sinc)
row("mvlgamma", lambda a: tl.mvlgamma(a + 1.5, 3), [(3, 4)], "positive",
    lambda a: sum(_lgamma(a + 1.5 - i / 2) for i in range(3)) + 1.5 * math.log(math.pi))
row("i0", tl.i0, [(3, 4)], "real", np.i0)
row("i0_-inplace", lambda a: (a * 2).i0_(), [(3, 4)], "real", lambda a: np.i0(a * 2))
row("igamma-x", lambda x: tl.igamma(tl.tensor(_A, dtype=x.dtype), x), [(3, 4)], "positive",
    _np_igamma)
row("igammac-x-method", lambda x: tl.tensor(_A, dtype=x.dtype).igammac(x), [(3, 4)],
    "positive", lambda x: 1 - _np_igamma(x))
