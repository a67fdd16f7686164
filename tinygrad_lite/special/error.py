"""The error-function family of ``torch.special``: ``erfcx`` (scaled, its rule in ``ops``) and
the standard normal distribution's ``ndtr`` and ``log_ndtr`` (composites, so differentiable for
free) and ``ndtri`` (its rule in ``ops``)."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..ops import special as special_ops
from ._common import as_float, written

__all__ = ["erfcx", "ndtr", "ndtri", "log_ndtr"]

_SQRT2 = math.sqrt(2.0)


def erfcx(input: TensorBase, *, out: Any = None) -> TensorBase:
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return written(special_ops.erfcx(as_float(input)), out, "erfcx")


def ndtr(input: TensorBase, *, out: Any = None) -> TensorBase:
    """The standard normal CDF, ``erfc(-x / sqrt 2) / 2`` (accurate in the lower tail)."""
    return written(0.5 * _fn.erfc(-as_float(input) / _SQRT2), out, "ndtr")


def ndtri(input: TensorBase, *, out: Any = None) -> TensorBase:
    """The inverse of ``ndtr`` (one node with PyTorch's rule, in ``ops``; accurate in the far
    tails, where ``sqrt 2 * erfinv(2 p - 1)`` rounds ``2 p - 1`` to -1)."""
    return written(special_ops.ndtri(as_float(input)), out, "ndtri")


def log_ndtr(input: TensorBase, *, out: Any = None) -> TensorBase:
    """``log(ndtr(x))``, accurate in both tails: ``log(erfcx(-x / sqrt 2) / 2) - x^2 / 2`` up
    to 0 (erfcx there lies in (0, 1]: no underflow however far the tail), ``log1p(-ndtr(-x))``
    above (``log`` of a value that rounds to 1 would lose the small difference: at x = 6 a
    relative 6e-8, at x = 20 all of it)."""
    x = as_float(input)
    upper = x > 0.0
    below = _fn.where(upper, _fn.zeros_like(x), x)
    lower_tail = _fn.log(erfcx(-below / _SQRT2) / 2.0) - 0.5 * below * below
    above = _fn.log1p(-ndtr(-_fn.where(upper, x, _fn.ones_like(x))))
    return written(_fn.where(upper, above, lower_tail), out, "log_ndtr")
