"""``Pareto``: ``scale * exp(E)`` for E ~ Exponential(alpha), as ``torch.distributions.pareto``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .distribution import broadcast_all
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform

__all__ = ["Pareto"]


class Pareto(TransformedDistribution):
    """Pareto: ``scale * exp(E)`` for E ~ Exponential(alpha)."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any) -> Pareto:
        """The same distribution over a larger batch."""
        return Pareto(self.scale.expand(*batch_shape), self.alpha.expand(*batch_shape),
                      validate_args=self._validate_args)

    @property
    def support(self) -> Any:
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> TensorBase:
        """``alpha scale / (alpha - 1)``, infinite for alpha <= 1."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> TensorBase:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> TensorBase:
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))``, infinite for alpha <= 2."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> TensorBase:
        """``log(scale / alpha) + 1 + 1/alpha``."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
