"""More distributions of ``torch.distributions``: InverseGamma (1 / Gamma), GeneralizedPareto,
LKJCholesky (Cholesky factors of LKJ-distributed correlation matrices, by the onion method)
and OneHotCategoricalStraightThrough (one-hot samples with the straight-through gradient)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.grad_mode import no_grad
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from .continuous import Beta, Gamma
from .discrete import OneHotCategorical
from .distribution import Distribution, broadcast_all, constraints
from .transformed import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma", "GeneralizedPareto", "LKJCholesky",
           "OneHotCategoricalStraightThrough"]


class InverseGamma(TransformedDistribution):
    """``1 / X`` for X ~ Gamma(concentration, rate)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True
    base_dist: Gamma

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        base = Gamma(concentration, rate, validate_args=validate_args)
        neg_one = -_fn.ones((), dtype=base.rate.dtype)
        super().__init__(base, PowerTransform(neg_one), validate_args=validate_args)

    @property
    def concentration(self) -> TensorBase:
        """The base Gamma's concentration."""
        return self.base_dist.concentration

    @property
    def rate(self) -> TensorBase:
        """The base Gamma's rate."""
        return self.base_dist.rate

    @property
    def mean(self) -> TensorBase:
        """``rate / (concentration - 1)``, infinite for concentration <= 1."""
        result = self.rate / (self.concentration - 1)
        return _fn.where(self.concentration > 1, result, math.inf)

    @property
    def mode(self) -> TensorBase:
        """``rate / (concentration + 1)``."""
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> TensorBase:
        """``rate^2 / ((a - 1)^2 (a - 2))``, infinite for concentration a <= 2."""
        a = self.concentration
        result = self.rate.square() / ((a - 1).square() * (a - 2))
        return _fn.where(a > 2, result, math.inf)

    def entropy(self) -> TensorBase:
        """``a + log(rate) + lgamma(a) - (1 + a) digamma(a)``."""
        a = self.concentration
        return a + self.rate.log() + _fn.lgamma(a) - (1 + a) * _fn.digamma(a)


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with ``loc``, ``scale`` and ``concentration`` (xi):
    survival ``(1 + xi z)^(-1/xi)`` of ``z = (x - loc) / scale`` (``exp(-z)`` at xi = 0)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, concentration: Any,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any) -> GeneralizedPareto:
        """The same distribution over a larger batch."""
        shape = tuple(batch_shape)
        new = GeneralizedPareto(self.loc.expand(*shape), self.scale.expand(*shape),
                                self.concentration.expand(*shape), validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _safe_concentration(self) -> tuple:
        eq_zero = _fn.isclose(self.concentration, _fn.zeros_like(self.concentration))
        return eq_zero, _fn.where(eq_zero, _fn.ones_like(self.concentration),
                                  self.concentration)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``icdf(U)`` for uniform U."""
        shape = self._extended_shape(sample_shape)
        u = wrap(default_rng().random(shape).astype(self.loc._data.dtype))
        return self.icdf(u)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log scale - (1 + 1/xi) log1p(xi z)`` (``-log scale - z`` at xi = 0)."""
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._safe_concentration()
        y = 1 / safe + _fn.ones_like(z)
        where_nonzero = _fn.where(y == 0, y, y * _fn.log1p(safe * z))
        return -self.scale.log() - _fn.where(eq_zero, z, where_nonzero)

    def log_survival_function(self, value: TensorBase) -> TensorBase:
        """``log P(X > value)``."""
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        eq_zero, safe = self._safe_concentration()
        return _fn.where(eq_zero, -z, -_fn.log1p(safe * z) / safe)

    def log_cdf(self, value: TensorBase) -> TensorBase:
        """``log P(X <= value)``."""
        return _fn.log1p(-self.log_survival_function(value).exp())

    def cdf(self, value: TensorBase) -> TensorBase:
        """``P(X <= value)``."""
        return self.log_cdf(value).exp()

    def icdf(self, value: TensorBase) -> TensorBase:
        """``loc + scale / xi expm1(-xi log(1 - p))`` (``loc - scale log(1 - p)`` at xi = 0)."""
        eq_zero, safe = self._safe_concentration()
        logu = _fn.log1p(-value)
        where_nonzero = self.loc + self.scale / safe * _fn.expm1(-safe * logu)
        return _fn.where(eq_zero, self.loc - self.scale * logu, where_nonzero)

    @property
    def mean(self) -> TensorBase:
        """``loc + scale / (1 - xi)``, NaN for xi >= 1."""
        valid = self.concentration < 1
        safe = _fn.where(valid, self.concentration, 0.5)
        return _fn.where(valid, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self) -> TensorBase:
        """``scale^2 / ((1 - xi)^2 (1 - 2 xi))``, NaN for xi >= 1/2."""
        valid = self.concentration < 0.5
        safe = _fn.where(valid, self.concentration, 0.25)
        result = self.scale ** 2 / ((1 - safe) ** 2 * (1 - 2 * safe))
        return _fn.where(valid, result, math.nan)

    def entropy(self) -> TensorBase:
        """``log scale + xi + 1``."""
        return (self.scale.log() + self.concentration + 1).expand(*self._batch_shape)

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def support(self) -> Any:
        """``[loc, loc - scale / xi]`` for xi < 0, else ``[loc, inf)``."""
        upper = _fn.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                          math.inf)
        return constraints.interval(self.loc, upper)


class LKJCholesky(Distribution):
    """Lower Cholesky factors of ``dim`` x ``dim`` correlation matrices whose density is
    proportional to ``det(C)^(concentration - 1)`` (sampled by the onion method)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky
    _beta: Distribution

    def __init__(self, dim: int, concentration: Any = 1.0,
                 validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. Found "
                             f"dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = _fn.cat([_fn.zeros(1, dtype=self.concentration.dtype),
                          _fn.arange(dim - 1, dtype=self.concentration.dtype)])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.shape, (dim, dim), validate_args)

    def expand(self, batch_shape: Any) -> LKJCholesky:
        """The same distribution over a larger batch."""
        new = LKJCholesky.__new__(LKJCholesky)
        new.dim = self.dim
        new.concentration = self.concentration.expand(*batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Onion-method samples (no gradient, as PyTorch's)."""
        with no_grad():
            y = self._beta.sample(sample_shape)._data[..., None]
            shape = self._extended_shape(sample_shape)
            dt = self.concentration._data.dtype
            u = np.tril(default_rng().standard_normal(shape).astype(dt), -1)
            with np.errstate(invalid="ignore", divide="ignore"):
                u = u / np.linalg.norm(u, axis=-1, keepdims=True)
            u[..., 0, :] = 0.0
            w = np.sqrt(y) * u
            diag = np.sqrt(np.maximum(1 - np.sum(w ** 2, -1), finfo_of(dt).tiny))
            idx = np.arange(self.dim)
            w[..., idx, idx] += diag
            return wrap(w.astype(dt))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``sum_i (2 (c - 1) + dim - i - 1) log L_ii`` minus the log-normalizer."""
        self._validate_sample(value)
        diag_elems = value.diagonal(0, -1, -2)[..., 1:]
        order = _fn.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = _fn.lgamma(alpha) * dm1
        numerator = _fn.mvlgamma(alpha - 0.5, dm1)
        return unnormalized - (0.5 * dm1 * math.log(math.pi) + numerator - denominator)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` with ``rsample``: the one-hot sample in the forward pass, the
    gradient of ``probs`` in the backward pass (straight-through estimator)."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``sample + (probs - probs.detach())``."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())

