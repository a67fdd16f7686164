"""Special functions and the inverse trigonometric/hyperbolic family, on whole arrays.

erf, erfc, erfinv, lgamma, digamma, polygamma and ndtri use ``scipy.special`` when it is
installed (it usually is: scikit-learn depends on it) and otherwise vectorised NumPy: erf by its
all-positive series below 3 and the continued fraction of erfc above (a few ulps in float64),
erfinv by Newton steps on erf, ndtri by Newton steps on erfc, digamma/polygamma by the
recurrence up to 10 and their asymptotic series, lgamma by ``math.lgamma`` per element. Each
backward rule is written with operators and these same functions, so it runs on arrays in a
plain backward and is differentiable again under ``create_graph`` (lgamma -> digamma ->
polygamma(1) -> polygamma(2) ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import get_default_dtype, is_float_dtype
from .common import array_of, is_array, unary_result, unary_rule, wrap
from .elementwise import cast, where_rule

__all__ = ["asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc",
           "erfinv", "lgamma", "digamma", "polygamma", "logit", "entr", "erfcx", "ndtri",
           "scipy_special"]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def scipy_special() -> Any:
    """``scipy.special``, or None when SciPy is not installed."""
    try:
        import scipy.special
    except ImportError:
        return None
    return scipy.special


def _float(x: TensorBase) -> TensorBase:
    """An integer input converted to the default float dtype, as PyTorch's float functions do."""
    return x if is_float_dtype(x._data.dtype) else cast(x, get_default_dtype().np)


def _apply(fn: Callable[[np.ndarray], np.ndarray], x: Any) -> Any:
    """``fn`` on an array, or as a recorded op on a tensor (for rules under create_graph)."""
    return fn(x) if is_array(x) else _PRIMITIVES[fn](x)


# -- the NumPy kernels (float64 inside, result in the input's dtype) -----------------------------

def _erf_numpy(x: np.ndarray) -> np.ndarray:
    sp = scipy_special()
    if sp is not None:
        return sp.erf(x)
    return erf_fallback(x)


def erf_fallback(x: np.ndarray) -> np.ndarray:
    """erf without SciPy: for |x| < 3 the series 2x/sqrt(pi) e^(-x^2) sum (2x^2)^n/(2n+1)!!
    (all terms positive: no cancellation), above it 1 - erfc by its continued fraction."""
    a = np.asarray(x, np.float64)
    ax = np.abs(a)
    small = ax < 3.0
    xs = np.where(small, ax, 0.0)
    term = np.ones_like(xs)
    total = np.ones_like(xs)
    two_x2 = 2.0 * xs * xs
    for n in range(1, 90):  # at |x| = 3 the terms fall below 1e-17 of the sum by n ~ 80
        term = term * two_x2 / (2 * n + 1)
        total = total + term
    series = _TWO_OVER_SQRT_PI * xs * np.exp(-xs * xs) * total
    xl = np.where(small, 3.0, ax)
    fraction = np.zeros_like(xl)
    for k in range(60, 0, -1):  # erfc(x) = e^(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + ...)))
        fraction = (k / 2.0) / (xl + fraction)
    tail = 1.0 - np.exp(-xl * xl) / math.sqrt(math.pi) / (xl + fraction)
    return np.sign(a) * np.where(small, series, tail)


def erfc_fallback(x: np.ndarray) -> np.ndarray:
    """erfc without SciPy, with relative accuracy in the far tail (erfc(10) = 2.1e-45, where
    1 - erf is 0): 1 - erf below |x| = 1 (erfc >= 0.157 there: nothing cancels), Laplace's
    continued fraction above, and erfc(-x) = 2 - erfc(x)."""
    a = np.asarray(x, np.float64)
    ax = np.abs(a)
    small = ~(ax >= 1.0)  # NaN takes this branch and stays NaN
    xl = np.where(small, 1.0, ax)
    fraction = np.zeros_like(xl)
    for k in range(200, 0, -1):  # 200 terms: converged to 1 ulp from x = 1 on
        fraction = (k / 2.0) / (xl + fraction)
    with np.errstate(over="ignore", invalid="ignore"):
        tail = np.exp(-xl * xl) / math.sqrt(math.pi) / (xl + fraction)
    tail = np.where(a < 0, 2.0 - tail, tail)
    return np.where(small, 1.0 - erf_fallback(np.where(small, a, 0.0)), tail)


def _erfc_numpy(x: np.ndarray) -> np.ndarray:
    sp = scipy_special()
    return sp.erfc(x) if sp is not None else erfc_fallback(x)


def _erfinv_numpy(y: np.ndarray) -> np.ndarray:
    sp = scipy_special()
    if sp is not None:
        return np.where(y == 0, y, sp.erfinv(y))  # (erfinv(-0.0) is -0.0: SciPy gives +0.0)
    y64 = np.asarray(y, np.float64)
    inside = np.abs(y64) < 1
    t = np.where(inside, y64, 0.0)
    w = -np.log((1.0 - t) * (1.0 + t))  # Giles' single-precision start, then Newton steps
    x = np.where(w < 5, t * (1.5 + 0.25 * (w - 2.5)), t * (3.0 + 0.1 * (np.sqrt(w) - 3.0)))
    for _ in range(6):
        x = x - (erf_fallback(x) - t) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
    return np.where(inside, x, np.where(np.abs(y64) == 1, np.sign(y64) * np.inf, np.nan))


_lgamma_scalar = np.frompyfunc(math.lgamma, 1, 1)


def _lgamma_numpy(x: np.ndarray) -> np.ndarray:
    a = np.asarray(x, np.float64)
    poles = (a <= 0) & (a == np.round(a))  # (-inf among them: lgamma(-inf) is inf)
    sp = scipy_special()
    if sp is None:
        out = np.asarray(_lgamma_scalar(np.where(poles, 1.0, a)), np.float64)
        return np.where(poles, np.inf, out)
    out = np.asarray(sp.gammaln(a), np.float64)
    # SciPy's gammaln overflows for subnormal x (lgamma(5e-324) is 744.4): math.lgamma there
    redo = np.isinf(out) & np.isfinite(a) & ~poles
    if redo.any():
        out[redo] = np.asarray(_lgamma_scalar(a[redo]), np.float64)
    return np.where(poles, np.inf, out)


_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6)  # B2 .. B14


def polygamma_fallback(n: int, x: np.ndarray) -> np.ndarray:
    """psi^(n)(x) without SciPy: shift x up to >= 10 with the recurrence, then the asymptotic
    series; digamma (n = 0) reflects negative x."""
    a = np.asarray(x, np.float64)
    if n == 0:
        negative = a < 0.5
        reflected = np.where(negative, 1.0 - a, a)
        out = _shifted_polygamma(0, reflected)
        with np.errstate(divide="ignore", invalid="ignore"):
            cot = np.cos(math.pi * a) / np.sin(math.pi * a)
        out = np.where(negative, out - math.pi * cot, out)
        return np.where((a <= 0) & (a == np.round(a)), np.nan, out)
    return np.where((a <= 0) & (a == np.round(a)), np.nan, _shifted_polygamma(n, a))


def _shifted_polygamma(n: int, a: np.ndarray) -> np.ndarray:
    sign = -1.0 if n % 2 == 0 else 1.0  # (-1)^(n+1)
    acc = np.zeros_like(a)
    z = a.copy()
    for _ in range(10):  # psi^(n)(x) = psi^(n)(x+1) + (-1)^(n+1) n! / x^(n+1)
        low = z < 10
        if not low.any():
            break
        with np.errstate(divide="ignore", invalid="ignore"):
            acc = acc + np.where(low, sign * math.factorial(n) / z ** (n + 1), 0.0)
        z = np.where(low, z + 1.0, z)
    if n == 0:
        series = np.log(z) - 0.5 / z
        for k, b in enumerate(_BERNOULLI, start=1):
            series = series - b / (2 * k * z ** (2 * k))
        return series + acc
    series = math.factorial(n - 1) / z ** n + math.factorial(n) / (2 * z ** (n + 1))
    for k, b in enumerate(_BERNOULLI, start=1):
        series = series + b * math.factorial(2 * k + n - 1) / (math.factorial(2 * k)
                                                               * z ** (2 * k + n))
    return sign * series + acc


def _polygamma_numpy(n: int, x: np.ndarray) -> np.ndarray:
    sp = scipy_special()
    out = (sp.psi(x) if n == 0 else sp.polygamma(n, x)) if sp is not None \
        else polygamma_fallback(n, x)
    # at -inf, past infinitely many poles, there is no limit: NaN (as PyTorch's), not inf
    return np.where(x == -np.inf, np.nan, out) if n else out


def _digamma_numpy(x: np.ndarray) -> np.ndarray:
    return _polygamma_numpy(0, x)


def _typed(fn: Callable[[np.ndarray], np.ndarray], x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(fn(x)).astype(x.dtype, copy=False)


# -- nodes and primitives ----------------------------------------------------------------------

def _sqrt(x: Any) -> Any:
    return unary_rule("sqrt", x)


class AsinBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / _sqrt(1 - x * x),)


class AcosBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (-grad / _sqrt(1 - x * x),)


class AtanBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / (1 + x * x),)


class SinhBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * _apply(np.cosh, x),)


class CoshBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * _apply(np.sinh, x),)


class AsinhBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / _sqrt(x * x + 1),)


class AcoshBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / _sqrt(x * x - 1),)


class AtanhBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad / (1 - x * x),)


class ErfBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * _TWO_OVER_SQRT_PI * unary_rule("exp", -(x * x)),)


class ErfcBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (-grad * _TWO_OVER_SQRT_PI * unary_rule("exp", -(x * x)),)


class ErfinvBackward0(Node):
    def backward(self, grad):
        y = self.saved_output()
        return (grad * (math.sqrt(math.pi) / 2) * unary_rule("exp", y * y),)


class LgammaBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * _apply(_digamma_numpy, x),)


class PolygammaBackward0(Node):
    n: int

    def backward(self, grad):
        (x,) = self.saved_tensors
        if is_array(x):
            return (grad * _polygamma_numpy(self.n + 1, x),)
        return (grad * polygamma(self.n + 1, x),)


def _unary(kernel: Callable[[np.ndarray], np.ndarray], node: type[Node], x: TensorBase,
           save: str = "input") -> TensorBase:
    x = _float(x)
    return unary_result(_typed(kernel, x._data), x, node, save=save)


def asin(x: TensorBase) -> TensorBase:
    """Elementwise arcsine."""
    return _unary(np.arcsin, AsinBackward0, x)


def acos(x: TensorBase) -> TensorBase:
    """Elementwise arccosine."""
    return _unary(np.arccos, AcosBackward0, x)


def atan(x: TensorBase) -> TensorBase:
    """Elementwise arctangent."""
    return _unary(np.arctan, AtanBackward0, x)


def sinh(x: TensorBase) -> TensorBase:
    """Elementwise hyperbolic sine."""
    return _unary(np.sinh, SinhBackward0, x)


def cosh(x: TensorBase) -> TensorBase:
    """Elementwise hyperbolic cosine."""
    return _unary(np.cosh, CoshBackward0, x)


def asinh(x: TensorBase) -> TensorBase:
    """Elementwise inverse hyperbolic sine."""
    return _unary(np.arcsinh, AsinhBackward0, x)


def acosh(x: TensorBase) -> TensorBase:
    """Elementwise inverse hyperbolic cosine."""
    return _unary(np.arccosh, AcoshBackward0, x)


def atanh(x: TensorBase) -> TensorBase:
    """Elementwise inverse hyperbolic tangent."""
    return _unary(np.arctanh, AtanhBackward0, x)


class LogitBackward0(Node):
    """``1 / (x (1 - x))``: +inf at 0 and 1, as PyTorch's (a composite of log and division
    gives NaN there); NaN outside [0, 1], where PyTorch's rule gives NaN too."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        data = array_of(x)
        outside = (data < 0) | (data > 1)  # a constant mask: no graph needed
        with np.errstate(divide="ignore", invalid="ignore"):
            # (+ 0.0 turns -0.0 * 1 into +0.0: the slope at -0.0 is +inf, as at 0.0)
            inside = grad / (x * (1 - x) + 0.0)
            if not outside.any():
                return (inside,)
            return (where_rule(outside, np.nan, inside),)


def _logit_kernel(a: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(a / (1 - a))


def logit(x: TensorBase) -> TensorBase:
    """Elementwise ``log(x / (1 - x))``."""
    return _unary(_logit_kernel, LogitBackward0, x)


def erf(x: TensorBase) -> TensorBase:
    """The error function, elementwise, on the whole array at once."""
    return _unary(_erf_numpy, ErfBackward0, x)


def erfc(x: TensorBase) -> TensorBase:
    """``1 - erf(x)``, accurate where erf is close to 1."""
    return _unary(_erfc_numpy, ErfcBackward0, x)


def erfinv(x: TensorBase) -> TensorBase:
    """The inverse error function (inf at +-1, nan outside [-1, 1])."""
    return _unary(_erfinv_numpy, ErfinvBackward0, x, save="output")


def lgamma(x: TensorBase) -> TensorBase:
    """``log |Gamma(x)|`` elementwise (inf at the poles 0, -1, -2, ...)."""
    return _unary(_lgamma_numpy, LgammaBackward0, x)


def digamma(x: TensorBase) -> TensorBase:
    """The logarithmic derivative of Gamma, elementwise (``polygamma(0, x)``)."""
    return DigammaBackward0.rename(polygamma(0, x))


class DigammaBackward0(PolygammaBackward0):
    """``digamma``: polygamma of order 0 (PyTorch's name)."""


def polygamma(n: int, input: TensorBase) -> TensorBase:
    """The n-th derivative of digamma, elementwise (``input``: PyTorch's keyword)."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not "
                        f"{type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"polygamma(n, x) does not support negative n (got {n})")
    x = _float(input)
    out = _typed(lambda a: _polygamma_numpy(int(n), a), x._data)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = PolygammaBackward0(x)
    node.n = int(n)
    node.save_for_backward(x)
    return wrap(out, node)


# the recorded op behind each kernel, for backward rules under create_graph
_PRIMITIVES: dict[Callable, Callable] = {np.cosh: cosh, np.sinh: sinh,
                                         _digamma_numpy: digamma}


# -- torch.special's entropy and scaled complementary error function ---------------------------

class SpecialEntrBackward0(Node):
    """``entr``: PyTorch's derivative ``-(1 + log x)``: +inf at 0, NaN below."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        return (grad * -(1.0 + unary_rule("log", x)),)


def entr(x: TensorBase) -> TensorBase:
    """Elementwise entropy ``-x log x`` of a floating tensor: 0 at 0, -inf below 0."""
    a = x._data
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(a > 0, -a * np.log(np.where(a > 0, a, 1.0)), 0.0)
    out = np.where(a < 0, -np.inf, np.where(np.isnan(a), a, value)).astype(a.dtype)
    return unary_result(out, x, SpecialEntrBackward0, save="input")


def _erfcx_numpy(x: np.ndarray) -> np.ndarray:
    """``exp(x^2) erfc(x)``; above x = 5 its continued fraction
    ``1 / (sqrt(pi) (x + 1/2 / (x + 1 / (x + 3/2 / ...))))``, where the product would
    overflow."""
    large = x > 5.0
    small_x = np.where(large, np.zeros_like(x), x)
    direct = np.exp(small_x * small_x) * _typed(_erfc_numpy, small_x)
    t = np.where(large, x, np.full_like(x, 10.0))
    fraction = np.zeros_like(t)
    for k in range(40, 0, -1):  # converged to double precision from x = 5 on
        fraction = (k / 2.0) / (t + fraction)
    tail = 1.0 / (math.sqrt(math.pi) * (t + fraction))
    return np.where(large, tail, direct)


class SpecialErfcxBackward0(Node):
    """``erfcx``: its derivative ``2 x erfcx(x) - 2 / sqrt(pi)`` (-inf where erfcx overflows,
    as PyTorch's; differentiating the composite gives inf * 0 there)."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        y = self.saved_output()
        return (grad * (2.0 * x * y - _TWO_OVER_SQRT_PI),)


def erfcx(x: TensorBase) -> TensorBase:
    """The scaled complementary error function ``exp(x^2) erfc(x)`` of a floating tensor."""
    out = np.asarray(_erfcx_numpy(x._data), x._data.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = SpecialErfcxBackward0(x)
    node.save_for_backward(x)
    result = wrap(out, node)
    node.save_output(result)
    return result


class SincBackward0(Node):
    """PyTorch's rule: ``grad * (pi x cos(pi x) - sin(pi x)) / (pi x^2)``, 0 where ``pi x^2`` is
    0 (selected after the division, so the second derivative at 0 is PyTorch's NaN)."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            pi_x = x * math.pi
            squared = x * x * math.pi
            out = grad * (pi_x * unary_rule("cos", pi_x) - unary_rule("sin", pi_x)) / squared
            zero = np.asarray(array_of(squared) == 0)
            return (where_rule(zero, 0.0, out) if zero.any() else out,)


def sinc(x: TensorBase) -> TensorBase:
    """``sin(pi x) / (pi x)``, 1 at 0 (integers compute in the default float dtype)."""
    x = _float(x)
    data = x._data
    # float16 computes in float32, as PyTorch's half kernels do (pi * x rounded to float16 is
    # far from the integers where sinc vanishes)
    work = data.astype(np.float32) if data.dtype == np.float16 else data
    with np.errstate(divide="ignore", invalid="ignore"):
        pi_x = work * math.pi
        out = np.sin(pi_x) / pi_x
    out = np.asarray(np.where(data == 0, np.ones((), out.dtype), out), dtype=data.dtype)
    return unary_result(out, x, SincBackward0, save="input")


# -- the inverse of the standard normal CDF -----------------------------------------------------

def ndtri_fallback(p: np.ndarray) -> np.ndarray:
    """``ndtri`` without SciPy, accurate in the far lower tail (where ``sqrt 2 erfinv(2p - 1)``
    rounds 2p - 1 to -1 below p = 1e-17): for p <= 1/2, Abramowitz and Stegun's 26.2.23 start
    (4.5e-4 off) and Newton steps on ``erfc(-x / sqrt 2) / 2 - p``; above, ``-ndtri(1 - p)``
    (1 - p is exact there). Subnormal p lose digits (the density there is subnormal too)."""
    a = np.asarray(p, np.float64)
    upper = a > 0.5
    q = np.where(upper, 1.0 - a, a)
    inside = (q > 0) & (q <= 0.5)
    q = np.where(inside, q, 0.25)
    t = np.sqrt(-2.0 * np.log(q))
    x = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
          / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(4):  # quadratic convergence: 4.5e-4 -> 1e-7 -> 1e-14 -> 1 ulp
        pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
        x = x - (0.5 * erfc_fallback(-x / math.sqrt(2.0)) - q) / pdf
    x = np.where(upper, -x, x)
    edge = np.where(a == 0, -np.inf, np.where(a == 1, np.inf, np.nan))  # NaN outside [0, 1]
    return np.where(inside, x, edge)


def _ndtri_numpy(p: np.ndarray) -> np.ndarray:
    sp = scipy_special()
    return sp.ndtri(p) if sp is not None else ndtri_fallback(p)


class SpecialNdtriBackward0(Node):
    """PyTorch's rule: ``sqrt(2 pi) exp(y^2 / 2)`` with ``y = ndtri(p)`` (inf at 0 and 1)."""

    def backward(self, grad):
        y = self.saved_output()
        return (grad * math.sqrt(2.0 * math.pi) * unary_rule("exp", y * y / 2.0),)


def ndtri(x: TensorBase) -> TensorBase:
    """The inverse of the standard normal CDF (-inf at 0, inf at 1, NaN outside [0, 1])."""
    return _unary(_ndtri_numpy, SpecialNdtriBackward0, x, save="output")
