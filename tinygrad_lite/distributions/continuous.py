"""Continuous distributions: Normal, LogNormal, Uniform, Exponential, Laplace, Cauchy, Gamma,
Beta, Dirichlet, MultivariateNormal. Reparameterised samples where PyTorch has them; densities
and entropies from tensor ops, so gradients flow to every parameter."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .. import linalg
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from ..special import gammainc
from ._gamma import standard_gamma
from .distribution import LOG_2PI, Distribution, broadcast_all, constraints

__all__ = ["Normal", "LogNormal", "Uniform", "Exponential", "Laplace", "Cauchy", "Gamma",
           "Beta", "Dirichlet", "MultivariateNormal"]


def _noise(shape: tuple, like: TensorBase, draw: Any) -> TensorBase:
    return wrap(np.asarray(draw(default_rng(), shape), dtype=like._data.dtype))


class Normal(Distribution):
    """Gaussian with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + scale * eps`` with standard normal ``eps``."""
        eps = _noise(self._extended_shape(sample_shape), self.loc,
                     lambda g, s: g.standard_normal(s))
        return self.loc + eps * self.scale

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Gaussian log-density."""
        self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - \
            0.5 * LOG_2PI

    def cdf(self, value: TensorBase) -> TensorBase:
        """``(1 + erf((x - loc) / (scale sqrt 2))) / 2``."""
        return 0.5 * (1 + _fn.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value: TensorBase) -> TensorBase:
        """``loc + scale sqrt 2 erfinv(2p - 1)``."""
        return self.loc + self.scale * _fn.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> TensorBase:
        """``0.5 log(2 pi e scale^2)``."""
        return 0.5 + 0.5 * LOG_2PI + self.scale.log()

    @property
    def mean(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """``scale ** 2``."""
        return self.scale ** 2

    @property
    def stddev(self) -> TensorBase:
        """``scale``."""
        return self.scale

    def expand(self, batch_shape: Any) -> Normal:
        """The same distribution over a larger batch."""
        return Normal(self.loc.expand(*batch_shape), self.scale.expand(*batch_shape),
                      validate_args=False)


class LogNormal(Distribution):
    """``exp`` of a Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args)
        self.loc, self.scale = self.base_dist.loc, self.base_dist.scale
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``exp`` of a Normal sample."""
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Normal log-density of ``log x`` minus ``log x``."""
        self._validate_sample(value)
        y = value.log()
        return self.base_dist.log_prob(y) - y

    def cdf(self, value: TensorBase) -> TensorBase:
        """The Normal CDF of ``log x``."""
        return self.base_dist.cdf(value.log())

    def entropy(self) -> TensorBase:
        """The Normal entropy plus ``loc``."""
        return self.base_dist.entropy() + self.loc

    @property
    def mean(self) -> TensorBase:
        """``exp(loc + scale^2 / 2)``."""
        return (self.loc + self.scale ** 2 / 2).exp()

    @property
    def mode(self) -> TensorBase:
        """``exp(loc - scale^2)``."""
        return (self.loc - self.scale ** 2).exp()

    @property
    def variance(self) -> TensorBase:
        """``(exp(scale^2) - 1) exp(2 loc + scale^2)``."""
        s2 = self.scale ** 2
        return (s2.exp() - 1) * (2 * self.loc + s2).exp()


class Uniform(Distribution):
    """Uniform on ``[low, high)``."""

    arg_constraints = {"low": constraints.real, "high": constraints.real}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if (validate_args is not False and Distribution._validate_default
                and not (self.low._data < self.high._data).all()):
            raise ValueError(f"Expected parameter low < high in Uniform, got low={self.low} "
                             f"and high={self.high}")
        super().__init__(self.low.shape, validate_args=validate_args)

    @property
    def support(self) -> Any:
        """``[low, high]``."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``low + u (high - low)``."""
        u = _noise(self._extended_shape(sample_shape), self.low, lambda g, s: g.random(s))
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log(high - low)`` inside, -inf outside."""
        self._validate_sample(value)
        inside = (value >= self.low) & (value < self.high)
        return _fn.where(inside, -(self.high - self.low).log(), -math.inf)

    def cdf(self, value: TensorBase) -> TensorBase:
        """The fraction of the interval below ``value``, clamped to [0, 1]."""
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value: TensorBase) -> TensorBase:
        """``low + p (high - low)``."""
        return self.low + value * (self.high - self.low)

    def entropy(self) -> TensorBase:
        """``log(high - low)``."""
        return (self.high - self.low).log()

    @property
    def mean(self) -> TensorBase:
        """The midpoint."""
        return (self.low + self.high) / 2

    @property
    def mode(self) -> TensorBase:
        """NaN: every point is a mode (as PyTorch)."""
        return self.low * math.nan

    @property
    def variance(self) -> TensorBase:
        """``(high - low)^2 / 12``."""
        return (self.high - self.low) ** 2 / 12


class Exponential(Distribution):
    """Exponential with ``rate``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``-log(u) / rate``."""
        e = _noise(self._extended_shape(sample_shape), self.rate,
                   lambda g, s: g.standard_exponential(s))
        return e / self.rate

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``log(rate) - rate x``."""
        self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: TensorBase) -> TensorBase:
        """``1 - exp(-rate x)``."""
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: TensorBase) -> TensorBase:
        """``-log(1 - p) / rate``."""
        return -(1 - value).log() / self.rate

    def entropy(self) -> TensorBase:
        """``1 - log(rate)``."""
        return 1.0 - self.rate.log()

    @property
    def mean(self) -> TensorBase:
        """``1 / rate``."""
        return 1 / self.rate

    @property
    def mode(self) -> TensorBase:
        """0."""
        return self.rate * 0

    @property
    def variance(self) -> TensorBase:
        """``1 / rate^2``."""
        return self.rate ** -2


class Laplace(Distribution):
    """Laplace with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc - scale sign(u) log(1 - |u|)`` for uniform u in (-1, 1)."""
        u = _noise(self._extended_shape(sample_shape), self.loc,
                   lambda g, s: g.uniform(np.nextafter(-1.0, 0), 1.0, s))
        return self.loc - self.scale * u.sign() * (1 - u.abs()).log()

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log(2 scale) - |x - loc| / scale``."""
        self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: TensorBase) -> TensorBase:
        """The Laplace CDF."""
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * _fn.expm1(-z.abs() / self.scale)

    def entropy(self) -> TensorBase:
        """``1 + log(2 scale)``."""
        return 1 + (2 * self.scale).log()

    @property
    def mean(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """``2 scale^2``."""
        return 2 * self.scale ** 2


class Cauchy(Distribution):
    """Cauchy with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + scale * standard Cauchy``."""
        eps = _noise(self._extended_shape(sample_shape), self.loc,
                     lambda g, s: g.standard_cauchy(s))
        return self.loc + eps * self.scale

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log(pi scale (1 + z^2))``."""
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (1 + z * z).log()

    def cdf(self, value: TensorBase) -> TensorBase:
        """``atan(z) / pi + 1/2``."""
        return _fn.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def entropy(self) -> TensorBase:
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + self.scale.log()

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mean(self) -> TensorBase:
        """Undefined: NaN (as PyTorch)."""
        return self.loc * math.nan

    @property
    def variance(self) -> TensorBase:
        """Infinite (as PyTorch)."""
        return self.loc * 0 + math.inf


class Gamma(Distribution):
    """Gamma with shape ``concentration`` and ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """Standard Gamma draws over ``rate``; implicit reparameterisation gradients."""
        shape = self._extended_shape(sample_shape)
        return standard_gamma(self.concentration.expand(*shape)) / self.rate.expand(*shape)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``a log b + (a - 1) log x - b x - lgamma(a)``."""
        self._validate_sample(value)
        a, b = self.concentration, self.rate
        return a * b.log() + (a - 1) * value.log() - b * value - _fn.lgamma(a)

    def cdf(self, value: TensorBase) -> TensorBase:
        """``P(a, b x)``, the regularised incomplete gamma function (differentiable in the value
        and the rate, not in the concentration, as in PyTorch)."""
        self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self) -> TensorBase:
        """``a - log b + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - self.rate.log() + _fn.lgamma(a) + (1 - a) * _fn.digamma(a)

    @property
    def mean(self) -> TensorBase:
        """``a / b``."""
        return self.concentration / self.rate

    @property
    def mode(self) -> TensorBase:
        """``(a - 1) / b``, 0 below a = 1."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> TensorBase:
        """``a / b^2``."""
        return self.concentration / self.rate ** 2


class Beta(Distribution):
    """Beta with ``concentration1`` (alpha) and ``concentration0`` (beta)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``X / (X + Y)`` for Gamma draws X, Y (differentiable in both concentrations)."""
        shape = self._extended_shape(sample_shape)
        x = standard_gamma(self.concentration1.expand(*shape))
        y = standard_gamma(self.concentration0.expand(*shape))
        return (x / (x + y)).clamp(min=float(finfo_of(x._data.dtype).tiny),
                                   max=1 - float(finfo_of(x._data.dtype).eps))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``(a-1) log x + (b-1) log(1-x) - log B(a, b)``."""
        self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return ((a - 1) * value.log() + (b - 1) * (1 - value).log()
                - (_fn.lgamma(a) + _fn.lgamma(b) - _fn.lgamma(a + b)))

    def entropy(self) -> TensorBase:
        """The Beta entropy."""
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (_fn.lgamma(a) + _fn.lgamma(b) - _fn.lgamma(total)
                - (a - 1) * _fn.digamma(a) - (b - 1) * _fn.digamma(b)
                + (total - 2) * _fn.digamma(total))

    @property
    def mean(self) -> TensorBase:
        """``a / (a + b)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> TensorBase:
        """``(a-1)+ / ((a-1)+ + (b-1)+)``; 1 when both concentrations are below 1 and NaN
        when the density is flat, as PyTorch's Dirichlet-based rule gives."""
        a_excess = (self.concentration1 - 1).clamp(min=0.0)
        b_excess = (self.concentration0 - 1).clamp(min=0.0)
        both_below_one = (self.concentration1 < 1) & (self.concentration0 < 1)
        return _fn.where(both_below_one, 1.0, a_excess / (a_excess + b_excess))

    @property
    def variance(self) -> TensorBase:
        """``a b / ((a + b)^2 (a + b + 1))``."""
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total ** 2 * (total + 1))


class Dirichlet(Distribution):
    """Dirichlet over the simplex of the last dim of ``concentration``."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: TensorBase, validate_args: bool | None = None) -> None:
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """Normalised Gamma draws (differentiable in the concentration)."""
        shape = self._extended_shape(sample_shape)
        g = standard_gamma(self.concentration.expand(*shape))
        return g / g.sum(-1, keepdim=True)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``sum (a_i - 1) log x_i + lgamma(sum a) - sum lgamma(a_i)``."""
        self._validate_sample(value)
        a = self.concentration
        return (((a - 1) * value.log()).sum(-1) + _fn.lgamma(a.sum(-1))
                - _fn.lgamma(a).sum(-1))

    def entropy(self) -> TensorBase:
        """The Dirichlet entropy."""
        a = self.concentration
        a0 = a.sum(-1)
        k = a.shape[-1]
        return (_fn.lgamma(a).sum(-1) - _fn.lgamma(a0) + (a0 - k) * _fn.digamma(a0)
                - ((a - 1) * _fn.digamma(a)).sum(-1))

    @property
    def mean(self) -> TensorBase:
        """``a / sum a``."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self) -> TensorBase:
        """The per-component variance."""
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0 ** 2 * (a0 + 1))


class MultivariateNormal(Distribution):
    """Gaussian over vectors: ``loc`` and one of ``covariance_matrix``, ``precision_matrix``,
    ``scale_tril`` (kept as its Cholesky factor)."""

    arg_constraints = {"loc": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: TensorBase, covariance_matrix: TensorBase | None = None,
                 precision_matrix: TensorBase | None = None,
                 scale_tril: TensorBase | None = None,
                 validate_args: bool | None = None) -> None:
        if (covariance_matrix is not None) + (precision_matrix is not None) + \
                (scale_tril is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))
        self.loc = loc
        batch = np.broadcast_shapes(loc.shape[:-1], self._unbroadcasted_scale_tril.shape[:-2])
        super().__init__(batch, loc.shape[-1:], validate_args)

    @property
    def scale_tril(self) -> TensorBase:
        """The lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril

    @property
    def covariance_matrix(self) -> TensorBase:
        """``L L^T``."""
        lower = self._unbroadcasted_scale_tril
        return lower @ lower.mT

    @property
    def precision_matrix(self) -> TensorBase:
        """The inverse covariance."""
        return linalg.inv(self.covariance_matrix)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + L eps``."""
        eps = _noise(self._extended_shape(sample_shape), self.loc,
                     lambda g, s: g.standard_normal(s))
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Gaussian log-density via the Cholesky factor."""
        self._validate_sample(value)
        diff = value - self.loc
        lower = self._unbroadcasted_scale_tril
        z = linalg.solve_triangular(lower, diff.unsqueeze(-1), upper=False).squeeze(-1)
        half_logdet = lower.diagonal(0, -2, -1).log().sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * LOG_2PI + (z * z).sum(-1)) - half_logdet

    def entropy(self) -> TensorBase:
        """``k/2 (1 + log 2 pi) + log|L|``."""
        k = self._event_shape[0]
        half_logdet = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        return 0.5 * k * (1.0 + LOG_2PI) + half_logdet

    @property
    def mean(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """The diagonal of the covariance."""
        return (self._unbroadcasted_scale_tril ** 2).sum(-1)

