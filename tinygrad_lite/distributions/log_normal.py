"""``LogNormal``: ``exp`` of a Normal(loc, scale), as ``torch.distributions.log_normal``: a
TransformedDistribution through ``ExpTransform`` (its log_prob, cdf and icdf, and their
validation, are the change of variables')."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``exp`` of a Normal(loc, scale)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def loc(self) -> TensorBase:
        """The base Normal's mean (a property, as PyTorch: ``repr`` does not list it)."""
        return self.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> TensorBase:
        """The base Normal's standard deviation."""
        return self.base_dist.scale  # type: ignore[attr-defined]

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
