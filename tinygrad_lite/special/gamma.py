"""The gamma family of ``torch.special`` beyond the ``tl.*`` aliases: ``multigammaln``, the
regularised incomplete gamma functions ``gammainc``/``gammaincc`` (which, as in PyTorch, are
differentiable in ``other`` (x) but not in ``input`` (a); their rule is in ``ops``) and the
Hurwitz ``zeta``. Values come from ``scipy.special`` when it is installed, else from vectorised
NumPy series and continued fractions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import incomplete_gamma
from ..ops import special as special_ops
from ._common import as_float, as_tensor, result_dtype, written

__all__ = ["multigammaln", "gammainc", "gammaincc", "zeta"]


def multigammaln(input: TensorBase, p: int, *, out: Any = None) -> TensorBase:
    """The log of the multivariate gamma function of dimension ``p`` (``tl.mvlgamma``)."""
    return written(_fn.mvlgamma(as_float(input), p), out, "multigammaln")


def zeta(input: Any, other: Any, *, out: Any = None) -> TensorBase:
    """The Hurwitz zeta function ``sum_k (k + q)^-x`` (no gradient, as in PyTorch)."""
    x, q = (np.asarray(t._data if isinstance(t, TensorBase) else t, np.float64)
            for t in (input, other))
    sp = special_ops.scipy_special()  # looked up when called (tests switch SciPy off)
    if sp is not None:
        values = sp.zeta(x, q)
    else:  # Euler-Maclaurin: 20 terms, then the integral and two correction terms
        x, q = np.broadcast_arrays(x, q)
        n = 20
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            head = sum((k + q) ** -x for k in range(n))
            a = q + n
            values = (head + a ** (1 - x) / (x - 1) + 0.5 * a ** -x + x * a ** (-x - 1) / 12
                      - x * (x + 1) * (x + 2) * a ** (-x - 3) / 720)
            values = np.where(x == 1, np.inf, np.where(x < 1, np.nan, values))
    return written(wrap(np.asarray(values, result_dtype(input, other))), out, "zeta")


def _incomplete(input: Any, other: Any, upper: bool) -> TensorBase:
    a, x = as_tensor(input), as_tensor(other)
    if not is_float_dtype(a._data.dtype) and not is_float_dtype(x._data.dtype):
        a, x = a.float(), x.float()
    return incomplete_gamma.gammainc(a, x, upper)


def gammainc(input: Any, other: Any, *, out: Any = None) -> TensorBase:
    """The regularised lower incomplete gamma function ``P(a, x)`` (a = input, x = other);
    differentiable in x."""
    return written(_incomplete(input, other, False), out, "gammainc")


def gammaincc(input: Any, other: Any, *, out: Any = None) -> TensorBase:
    """The regularised upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return written(_incomplete(input, other, True), out, "gammaincc")
