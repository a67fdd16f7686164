"""``HalfCauchy``: ``|X|`` for X ~ Cauchy(0, scale), as ``torch.distributions.half_cauchy``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from .cauchy import Cauchy
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfCauchy"]


class HalfCauchy(TransformedDistribution):
    """``|X|`` for X ~ Cauchy(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        # the base is not validated: the scale is, as this distribution's (PyTorch's order)
        base = Cauchy(0.0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> TensorBase:
        """The base Cauchy's scale (a property, as PyTorch: ``repr`` does not list it)."""
        return self.base_dist.scale  # type: ignore[attr-defined]

    def log_prob(self, value: TensorBase) -> TensorBase:
        """Twice the Cauchy density on x >= 0, -inf below."""
        self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _fn.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: TensorBase) -> TensorBase:
        """``2 F_cauchy(x) - 1``."""
        self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, value: TensorBase) -> TensorBase:
        """``scale tan(pi p / 2)``."""
        return self.scale * (value * (math.pi / 2)).tan()

    def entropy(self) -> TensorBase:
        """The Cauchy entropy minus ``log 2``."""
        return self.base_dist.entropy() - math.log(2)

    @property
    def mean(self) -> TensorBase:
        """Infinite."""
        return _fn.full_like(self.scale, math.inf)

    @property
    def mode(self) -> TensorBase:
        """0."""
        return _fn.zeros_like(self.scale)

    @property
    def variance(self) -> TensorBase:
        """Infinite."""
        return _fn.full_like(self.scale, math.inf)
