"""``InverseGamma``: ``1 / X`` for X ~ Gamma(concentration, rate), as
``torch.distributions.inverse_gamma`` (a transformed distribution)."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


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
