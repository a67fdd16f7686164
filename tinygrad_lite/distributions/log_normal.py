"""``LogNormal``: ``exp`` of a Normal(loc, scale), as ``torch.distributions.log_normal``."""

from __future__ import annotations

import copy
from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .distribution import Distribution
from .normal import Normal

__all__ = ["LogNormal"]


class LogNormal(Distribution):
    """``exp`` of a Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.base_dist = Normal(loc, scale, validate_args)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def loc(self) -> TensorBase:
        """The base Normal's mean (a property, as PyTorch: ``repr`` does not list it)."""
        return self.base_dist.loc

    @property
    def scale(self) -> TensorBase:
        """The base Normal's standard deviation."""
        return self.base_dist.scale

    def expand(self, batch_shape: Any) -> LogNormal:
        """The same distribution over a larger batch (the base Normal expanded)."""
        new = copy.copy(self)
        new.base_dist = self.base_dist.expand(batch_shape)
        new._batch_shape = new.base_dist.batch_shape
        return new

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
        self._validate_sample(value)
        return self.base_dist.cdf(value.log())

    def icdf(self, value: TensorBase) -> TensorBase:
        """``exp`` of the Normal's inverse CDF."""
        return self.base_dist.icdf(value).exp()

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
