"""``LogisticNormal``: a Normal vector mapped to the simplex by stick breaking, as
``torch.distributions.logistic_normal``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .distribution import Distribution
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """A Normal(loc, scale) vector mapped to the simplex by stick breaking."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base: Distribution = Normal(loc, scale, validate_args=validate_args)
        if not base.batch_shape:
            base = base.expand([1])
        super().__init__(base, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any) -> LogisticNormal:
        """The same distribution over a larger batch."""
        new = super().expand(batch_shape)
        assert isinstance(new, LogisticNormal)
        return new

    @property
    def loc(self) -> TensorBase:
        """The Normal's location."""
        return self.base_dist.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> TensorBase:
        """The Normal's scale."""
        return self.base_dist.base_dist.scale  # type: ignore[attr-defined]
