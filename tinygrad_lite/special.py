"""``tl.special``: PyTorch's ``torch.special`` names.

Most are the ``tl.*`` functions under their SciPy-style names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``...); the rest are composites with gradients
for free (``ndtr``, ``ndtri``, ``log_ndtr``, ``entr``, ``xlog1py``, ``multigammaln``, ``i0``...)
and the regularised incomplete gamma functions ``gammainc``/``gammaincc``, which, as in PyTorch,
are differentiable in ``other`` (x) but not in ``input`` (a). Values come from ``scipy.special``
when it is installed, else from vectorised NumPy series and continued fractions.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _special_extra
from . import functions as _fn
from ._core.tensor_base import TensorBase, wrap
from ._special_extra import *  # noqa: F403
from .autograd.function import Function
from .dtypes import float_result_type, get_default_dtype, is_float_dtype
from .ops import binary_math
from .ops.incomplete_gamma import gammainc_fallback
from .ops.special import scipy_special

__all__ = ["digamma", "psi", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammaln", "polygamma", "multigammaln", "log1p", "logit", "logsumexp", "softmax",
           "log_softmax", "sinc", "round", "xlogy", "xlog1py", "entr", "ndtr", "ndtri",
           "log_ndtr", "i0", "i0e", "i1", "i1e", "gammainc", "gammaincc", "zeta",
           *_special_extra.__all__]

digamma = psi = _fn.digamma
erf, erfc, erfinv = _fn.erf, _fn.erfc, _fn.erfinv
exp2, expm1, log1p = _fn.exp2, _fn.expm1, _fn.log1p
expit = _fn.sigmoid
gammaln = _fn.lgamma
polygamma, logit, logsumexp, sinc, xlogy = _fn.polygamma, _fn.logit, _fn.logsumexp, _fn.sinc, \
    _fn.xlogy
round = _fn.round  # noqa: A001 - PyTorch's name
_SQRT2 = math.sqrt(2.0)


def _tensor(x: Any) -> TensorBase:
    return x if isinstance(x, TensorBase) else _fn.tensor(x)


def _float(x: Any) -> TensorBase:
    """``x`` as a floating tensor: integer and bool inputs in the default float dtype, as
    PyTorch's float-valued special functions take them (negating a uint8 would wrap around)."""
    t = _tensor(x)
    return t if is_float_dtype(t._data.dtype) else t.to(get_default_dtype())


def softmax(input: TensorBase, dim: int, *, dtype: Any = None) -> TensorBase:
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    return _fn.softmax(input, dim, dtype=dtype)


def log_softmax(input: TensorBase, dim: int, *, dtype: Any = None) -> TensorBase:
    """``x - logsumexp(x)`` along ``dim``."""
    return _fn.log_softmax(input, dim, dtype=dtype)


def xlog1py(input: Any, other: Any) -> TensorBase:
    """``x * log1p(y)``, 0 where x is 0 (and y is not NaN); PyTorch's gradients (``log1p(y)``
    in x, also at x = 0, except where y <= -1)."""
    target = _result_dtype(input, other)
    x, y = (_tensor(v) for v in (input, other))
    x, y = (v if v._data.dtype == target else v.to(target) for v in (x, y))
    return binary_math.xlog1py(x, y)


class _Entropy(Function):
    """``-x log x`` with PyTorch's derivative ``-(1 + log x)``: +inf at 0, NaN below."""

    @staticmethod
    def forward(ctx: Any, x: TensorBase) -> TensorBase:
        ctx.save_for_backward(x)
        a = x._data
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(a > 0, -a * np.log(np.where(a > 0, a, 1.0)), 0.0)
        return wrap(np.where(a < 0, -np.inf, np.where(np.isnan(a), a, value)).astype(a.dtype))

    @staticmethod
    def backward(ctx: Any, grad: TensorBase) -> TensorBase:
        (x,) = ctx.saved_tensors
        return grad * -(1.0 + _fn.log(x))


def entr(input: TensorBase) -> TensorBase:
    """Elementwise entropy ``-x log x``: 0 at 0, -inf below 0."""
    x = _tensor(input)
    return _Entropy.apply(x if is_float_dtype(x._data.dtype) else x.float())


def ndtr(input: TensorBase) -> TensorBase:
    """The standard normal CDF, ``erfc(-x / sqrt 2) / 2`` (accurate in the lower tail)."""
    return 0.5 * _fn.erfc(-_float(input) / _SQRT2)


def ndtri(input: TensorBase) -> TensorBase:
    """The inverse of ``ndtr``: ``sqrt 2 * erfinv(2 p - 1)``."""
    return _SQRT2 * _fn.erfinv(2.0 * _float(input) - 1.0)


def log_ndtr(input: TensorBase) -> TensorBase:
    """``log(ndtr(x))``, accurate far into the lower tail: ``erfc`` keeps its relative accuracy
    down to x = -20; below, the asymptotic ``-x^2/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x^2 +
    3/x^4 - 15/x^6)`` (its next term is below 1e-10 there), before erfc underflows."""
    x = _float(input)
    lower = x < -20.0
    direct = _fn.log(ndtr(_fn.where(lower, _fn.zeros_like(x), x)))
    t = _fn.where(lower, x, _fn.full_like(x, -30.0))
    r = 1.0 / (t * t)
    series = _fn.log(1.0 - r + 3.0 * r * r - 15.0 * r * r * r)
    tail = -0.5 * t * t - _fn.log(-t) - 0.5 * math.log(2.0 * math.pi) + series
    return _fn.where(lower, tail, direct)


def _erfcx_value(x: TensorBase) -> TensorBase:
    """``exp(x^2) erfc(x)``; above x = 5 its continued fraction
    ``1 / (sqrt(pi) (x + 1/2 / (x + 1 / (x + 3/2 / ...))))``, where the product would
    overflow."""
    large = x > 5.0
    small_x = _fn.where(large, _fn.zeros_like(x), x)
    direct = _fn.exp(small_x * small_x) * _fn.erfc(small_x)
    t = _fn.where(large, x, _fn.full_like(x, 10.0))
    fraction = _fn.zeros_like(t)
    for k in range(40, 0, -1):  # converged to double precision from x = 5 on
        fraction = (k / 2.0) / (t + fraction)
    tail = 1.0 / (math.sqrt(math.pi) * (t + fraction))
    return _fn.where(large, tail, direct)


class _Erfcx(Function):
    """``erfcx`` with its derivative ``2 x erfcx(x) - 2 / sqrt(pi)`` (-inf where erfcx
    overflows, as PyTorch's; differentiating the composite gives inf * 0 there)."""

    @staticmethod
    def forward(ctx: Any, x: TensorBase) -> TensorBase:
        y = _erfcx_value(x)  # (forward runs without recording, as in PyTorch)
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: TensorBase) -> TensorBase:
        x, y = ctx.saved_tensors
        return grad * (2.0 * x * y - 2.0 / math.sqrt(math.pi))


def erfcx(input: TensorBase) -> TensorBase:
    """The scaled complementary error function ``exp(x^2) erfc(x)``."""
    return _Erfcx.apply(_float(input))


def multigammaln(input: TensorBase, p: int) -> TensorBase:
    """The log of the multivariate gamma function of dimension ``p``."""
    x = _float(input)
    if (x._data <= (p - 1) / 2).any():
        raise RuntimeError(f"multigammaln: All elements must be greater than (p-1)/2 = "
                           f"{(p - 1) / 2}")
    total = p * (p - 1) / 4 * math.log(math.pi)
    return sum((_fn.lgamma(x - j / 2.0) for j in range(p)), _fn.full_like(x, total))


def _bessel(x: TensorBase, order: int, scaled: bool) -> TensorBase:
    """Modified Bessel functions of the first kind, orders 0 and 1, by their power series
    (composites: differentiable), exponentially scaled on request."""
    x = _float(x)
    half = 0.5 * x
    term = half if order == 1 else _fn.ones_like(half)
    total = term
    square = half * half
    # the terms (x/2)^2k / (k! (k + order)!) peak near k = |x|/2 and then fall off within a
    # few sqrt(|x|): as many terms as the largest argument needs (|x| below ~700, where e^x
    # stays finite)
    largest = float(np.abs(half._data).max(initial=0.0)) * 2.0
    for k in range(1, int(largest / 2 + 10 * math.sqrt(largest) + 20)):
        term = term * square / (k * (k + order))
        total = total + term
    return total * _fn.exp(-_fn.abs(x)) if scaled else total


def i0(input: TensorBase) -> TensorBase:
    """The modified Bessel function of the first kind, order 0."""
    return _bessel(input, 0, False)


def i0e(input: TensorBase) -> TensorBase:
    """``i0`` scaled by ``exp(-|x|)``."""
    return _bessel(input, 0, True)


def i1(input: TensorBase) -> TensorBase:
    """The modified Bessel function of the first kind, order 1."""
    return _bessel(input, 1, False)


def i1e(input: TensorBase) -> TensorBase:
    """``i1`` scaled by ``exp(-|x|)``."""
    return _bessel(input, 1, True)


def zeta(input: Any, other: Any) -> TensorBase:
    """The Hurwitz zeta function ``sum_k (k + q)^-x`` (no gradient, as in PyTorch)."""
    x, q = (np.asarray(t._data if isinstance(t, TensorBase) else t, np.float64)
            for t in (input, other))
    sp = scipy_special()
    if sp is not None:
        out = sp.zeta(x, q)
    else:  # Euler-Maclaurin: 20 terms, then the integral and two correction terms
        x, q = np.broadcast_arrays(x, q)
        n = 20
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            head = sum((k + q) ** -x for k in range(n))
            a = q + n
            out = (head + a ** (1 - x) / (x - 1) + 0.5 * a ** -x + x * a ** (-x - 1) / 12
                   - x * (x + 1) * (x + 2) * a ** (-x - 3) / 720)
            out = np.where(x == 1, np.inf, np.where(x < 1, np.nan, out))
    return wrap(np.asarray(out, _result_dtype(input, other)))


def _result_dtype(*values: Any) -> np.dtype:
    """PyTorch's promoted floating dtype of the operands (Python numbers as wrapped numbers)."""
    return float_result_type(*(v._data if isinstance(v, TensorBase) else v for v in values))


# -- the regularised incomplete gamma functions ---------------------------------------------


def _gammainc_values(a: np.ndarray, x: np.ndarray, upper: bool) -> np.ndarray:
    sp = scipy_special()
    if sp is not None:
        return sp.gammaincc(a, x) if upper else sp.gammainc(a, x)
    lower = gammainc_fallback(a, x)  # the series and continued fraction (ops/)
    return 1.0 - lower if upper else lower


class _IncompleteGamma(Function):
    """P(a, x) or Q(a, x); the derivative in x is ``+-x^(a-1) e^-x / Gamma(a)``."""

    @staticmethod
    def forward(ctx: Any, a: TensorBase, x: TensorBase, upper: bool) -> TensorBase:
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        dtype = np.result_type(a._data.dtype, x._data.dtype)
        return wrap(np.asarray(_gammainc_values(a._data, x._data, upper), dtype))

    @staticmethod
    def backward(ctx: Any, grad: TensorBase) -> tuple:
        a, x = ctx.saved_tensors
        name = "gammaincc" if ctx.upper else "gammainc"
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{name}' with respect to its first "
                                      "argument (input, a) is not implemented")
        density = _fn.exp((a - 1.0) * _fn.log(x) - x - _fn.lgamma(a))
        return None, (-grad if ctx.upper else grad) * density, None


def _incomplete(input: Any, other: Any, upper: bool) -> TensorBase:
    a, x = _tensor(input), _tensor(other)
    if not is_float_dtype(a._data.dtype) and not is_float_dtype(x._data.dtype):
        a, x = a.float(), x.float()
    return _IncompleteGamma.apply(a, x, upper)


def gammainc(input: Any, other: Any) -> TensorBase:
    """The regularised lower incomplete gamma function ``P(a, x)`` (a = input, x = other);
    differentiable in x."""
    return _incomplete(input, other, False)


def gammaincc(input: Any, other: Any) -> TensorBase:
    """The regularised upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``."""
    return _incomplete(input, other, True)
