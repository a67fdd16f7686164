"""``GeneralizedPareto`` with ``loc``, ``scale`` and ``concentration``, as
``torch.distributions.generalized_pareto``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import uniform
from .distribution import Distribution, broadcast_all

__all__ = ["GeneralizedPareto"]


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
        u = uniform(shape, self.loc)
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
