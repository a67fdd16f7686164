"""The error-function family of ``torch.special``: ``erfcx`` (scaled, its rule in ``ops``) and
the standard normal distribution's ``ndtr``, ``ndtri`` and ``log_ndtr`` (composites, so
differentiable for free)."""

from __future__ import annotations

import math

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..ops import special as special_ops
from ._common import as_float

__all__ = ["erfcx", "ndtr", "ndtri", "log_ndtr"]

_SQRT2 = math.sqrt(2.0)


def erfcx(input: TensorBase) -> TensorBase:
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return special_ops.erfcx(as_float(input))


def ndtr(input: TensorBase) -> TensorBase:
    """The standard normal CDF, ``erfc(-x / sqrt 2) / 2`` (accurate in the lower tail)."""
    return 0.5 * _fn.erfc(-as_float(input) / _SQRT2)


def ndtri(input: TensorBase) -> TensorBase:
    """The inverse of ``ndtr``: ``sqrt 2 * erfinv(2 p - 1)``."""
    return _SQRT2 * _fn.erfinv(2.0 * as_float(input) - 1.0)


def log_ndtr(input: TensorBase) -> TensorBase:
    """``log(ndtr(x))``, accurate far into the lower tail: ``erfc`` keeps its relative accuracy
    down to x = -20; below, the asymptotic ``-x^2/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x^2 +
    3/x^4 - 15/x^6)`` (its next term is below 1e-10 there), before erfc underflows."""
    x = as_float(input)
    lower = x < -20.0
    direct = _fn.log(ndtr(_fn.where(lower, _fn.zeros_like(x), x)))
    t = _fn.where(lower, x, _fn.full_like(x, -30.0))
    r = 1.0 / (t * t)
    series = _fn.log(1.0 - r + 3.0 * r * r - 15.0 * r * r * r)
    tail = -0.5 * t * t - _fn.log(-t) - 0.5 * math.log(2.0 * math.pi) + series
    return _fn.where(lower, tail, direct)
