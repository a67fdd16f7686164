"""Catalogue rows of the math functions in functions/mathops.py and ops/special.py (see
op_catalog.py for what a row drives)."""

import math

import numpy as np

import tinygrad_lite as tl
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


def add_rows(row) -> None:
    row("asin", tl.asin, [(3, 4)], "unit", np.arcsin)
    row("acos", tl.acos, [(3, 4)], "unit", np.arccos)
    row("atan", tl.atan, [(3, 4)], "real", np.arctan)
    row("sinh", tl.sinh, [(3, 4)], "real", np.sinh)
    row("cosh", tl.cosh, [(3, 4)], "real", np.cosh)
    row("asinh", tl.asinh, [(3, 4)], "real", np.arcsinh)
    row("acosh", lambda a: tl.acosh(a + 1.5), [(3, 4)], "positive",
        lambda a: np.arccosh(a + 1.5))
    row("atanh", tl.atanh, [(3, 4)], "unit", np.arctanh)
    row("erf", tl.erf, [(3, 4)], "real", _erf)
    row("erfc", tl.erfc, [(3, 4)], "real", lambda a: 1 - _erf(a))
    row("erfinv", tl.erfinv, [(3, 4)], "unit", _erfinv)
    row("lgamma", tl.lgamma, [(3, 4)], "positive", _lgamma)
    row("digamma", tl.digamma, [(3, 4)], "positive", _digamma)
    row("polygamma-1", lambda a: tl.polygamma(1, a), [(3, 4)], "positive",
        lambda a: polygamma_fallback(1, a))
    row("xlogy", tl.xlogy, [(3, 4), (3, 4)], "positive", lambda a, b: a * np.log(b))
    row("logaddexp", tl.logaddexp, [(3, 4), (4,)], "real", np.logaddexp)
    row("logaddexp2", tl.logaddexp2, [(3, 4), (3, 4)], "real", np.logaddexp2)
    row("logit", lambda a: tl.logit(a * 0.4 + 0.5), [(3, 4)], "unit",
        lambda a: np.log((a * 0.4 + 0.5) / (1 - (a * 0.4 + 0.5))))
    row("sinc", tl.sinc, [(3, 4)], "nonzero", np.sinc)
    row("copysign", lambda a, b: tl.copysign(a, b), [(3, 4), (3, 4)], "nonzero", np.copysign)
    row("frac", tl.frac, [(3, 4)], "nonzero", lambda a: a - np.trunc(a))
    row("fmod", lambda a: tl.fmod(a * 3, 1.3), [(3, 4)], "nonzero",
        lambda a: np.fmod(a * 3, 1.3))
    row("remainder", lambda a: tl.remainder(a * 3, 1.3), [(3, 4)], "nonzero",
        lambda a: np.remainder(a * 3, 1.3))
    row("float_power", lambda a: tl.float_power(a, 2.5).to(a.dtype), [(3, 4)], "positive",
        lambda a: a ** 2.5)
    row("deg2rad", tl.deg2rad, [(3, 4)], "real", np.deg2rad)
    row("diff", lambda a: tl.diff(a, n=2, dim=1), [(3, 5)], "real",
        lambda a: np.diff(a, n=2, axis=1))
    row("diff-prepend", lambda a, b: tl.diff(a, dim=0, prepend=b), [(3, 4), (1, 4)], "real",
        lambda a, b: np.diff(np.concatenate([b, a]), axis=0))
    row("trapezoid", lambda a: tl.trapezoid(a, dx=0.5), [(3, 5)], "real",
        lambda a: np.trapezoid(a, dx=0.5) if hasattr(np, "trapezoid") else np.trapz(a, dx=0.5))
    row("nan_to_num", tl.nan_to_num, [(3, 4)], "real", np.nan_to_num)
