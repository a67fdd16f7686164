"""``Weibull``: ``scale * E^(1/concentration)`` for E ~ Exponential(1), as
``torch.distributions.weibull``."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._constants import EULER
from .distribution import broadcast_all
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform

__all__ = ["Weibull"]


class Weibull(TransformedDistribution):
    """Weibull: ``scale * E^(1/concentration)`` for E ~ Exponential(1)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any,
                 validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(_fn.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any) -> Weibull:
        """The same distribution over a larger batch."""
        return Weibull(self.scale.expand(*batch_shape), self.concentration.expand(
            *batch_shape), validate_args=self._validate_args)

    @property
    def mean(self) -> TensorBase:
        """``scale Gamma(1 + 1/k)``."""
        return self.scale * _fn.lgamma(1 + self.concentration_reciprocal).exp()

    @property
    def mode(self) -> TensorBase:
        """``scale ((k - 1) / k)^(1/k)`` (NaN below k = 1, as PyTorch)."""
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(k.reciprocal())

    @property
    def variance(self) -> TensorBase:
        """``scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2)``."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (_fn.lgamma(1 + 2 * r).exp() - (2 * _fn.lgamma(1 + r)).exp())

    def entropy(self) -> TensorBase:
        """``euler_gamma (1 - 1/k) + log(scale / k) + 1``."""
        r = self.concentration_reciprocal
        return EULER * (1 - r) + (self.scale * r).log() + 1
