"""Standard Gamma sampling as a primitive (PyTorch's ``_standard_gamma``): the generator draws
the sample, and the backward pass uses the implicit reparameterisation gradient
``dx/da = -(dP(a, x)/da) / p(x; a)`` (P the regularised incomplete gamma function), as PyTorch's
``_standard_gamma_grad``. That makes Gamma, Chi2, Beta, Dirichlet, StudentT and FisherSnedecor
samples differentiable.

The generator is an argument: the package's default one lives above this layer, so the
distributions pass it in.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from . import special
from .common import array_of, constant, wrap

__all__ = ["standard_gamma", "gamma_sample_grad"]

_MAX_TERMS = 5000


def _log_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log S`` with ``P(a, x) = x^a e^-x S / Gamma(a + 1)`` (the series; good for x < a+1)."""
    term, total = np.ones_like(x), np.ones_like(x)
    for n in range(1, _MAX_TERMS):
        term = term * x / (a + n)
        total = total + term
        if np.all(term <= total * 1e-17):
            break
    return np.log(total)


def _log_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log h`` with ``Q(a, x) = x^a e^-x h / Gamma(a)`` (Lentz's continued fraction; good
    for x > a + 1)."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / np.where(np.abs(b) < tiny, tiny, b)
    h = d.copy()
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b = b + 2
        d = an * d + b
        d = 1 / np.where(np.abs(d) < tiny, tiny, d)
        c = b + an / np.where(np.abs(c) < tiny, tiny, c)
        delta = d * c
        h = h * delta
        if np.all(np.abs(delta - 1) < 1e-16):
            break
    return np.log(h)


def _digamma(a: np.ndarray) -> np.ndarray:
    return np.asarray(special.digamma(wrap(a))._data)


def gamma_sample_grad(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/da`` of a standard Gamma(a) sample ``x`` (float64 arrays of one shape)."""
    out = np.zeros_like(x)
    # The series and the continued fraction give P and Q with their x^a e^-x / Gamma factors
    # split off, so the ratio (dP/da) / p needs only d(log S)/da, which central differences
    # of the remaining smooth factor give to ~1e-10.
    low = x < a + 1
    for mask, fn in ((low, _log_series), (~low, _log_fraction)):
        if not mask.any():
            continue
        aa, xx = a[mask], x[mask]
        h = 1e-5 * np.maximum(aa, 1.0)
        h = np.minimum(h, aa / 2)
        dlog = (fn(aa + h, xx) - fn(aa - h, xx)) / (2 * h)
        if fn is _log_series:
            s = np.exp(fn(aa, xx))
            out[mask] = -(xx * s / aa) * (np.log(xx) - _digamma(aa) - 1 / aa + dlog)
        else:
            hf = np.exp(fn(aa, xx))
            out[mask] = xx * hf * (np.log(xx) - _digamma(aa) + dlog)
    return out


class StandardGammaBackward0(Node):
    """``grad * dx/da``, ``dx/da`` from the concentration and the sample kept in float64."""

    a: np.ndarray
    x: np.ndarray

    def backward(self, grad):
        dxda = gamma_sample_grad(self.a, self.x)
        return (grad * constant(np.asarray(dxda, dtype=array_of(grad).dtype), grad),)


def standard_gamma(concentration: TensorBase, generator: Any) -> TensorBase:
    """Gamma(concentration, 1) draws of ``concentration``'s shape from ``generator`` (the
    package's stream); differentiable in ``concentration``."""
    # PyTorch's sampler value by value in row-major order (see TorchStream.standard_gamma_as)
    out = generator.standard_gamma_as(concentration._data, concentration._data.dtype)
    return gamma_draws(concentration, out)


def gamma_draws(concentration: TensorBase, draws: np.ndarray) -> TensorBase:
    """``draws`` (Gamma(concentration, 1) values already drawn) as a tensor whose gradient
    with respect to ``concentration`` is the implicit reparameterisation one."""
    out = np.asarray(draws, dtype=concentration._data.dtype)
    if not (grad_state.enabled and concentration._requires_grad):
        return wrap(out)
    node = StandardGammaBackward0(concentration)
    node.a = np.ascontiguousarray(concentration._data, dtype=np.float64)
    node.x = np.asarray(draws, dtype=np.float64)
    return wrap(out, node)
