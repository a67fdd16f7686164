"""``HalfNormal``: ``|X|`` for X ~ Normal(0, scale), as ``torch.distributions.half_normal``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class HalfNormal(TransformedDistribution):
    """``|X|`` for X ~ Normal(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        # the base is not validated: the scale is, as this distribution's (PyTorch's order)
        base = Normal(0.0, scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> TensorBase:
        """The base Normal's scale (a property, as PyTorch: ``repr`` does not list it)."""
        return self.base_dist.scale  # type: ignore[attr-defined]

    def log_prob(self, value: TensorBase) -> TensorBase:
        """Twice the Normal density on x >= 0, -inf below."""
        self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _fn.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: TensorBase) -> TensorBase:
        """``2 Phi(x / scale) - 1``."""
        self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, value: TensorBase) -> TensorBase:
        """The Normal icdf at ``(p + 1) / 2``."""
        return self.base_dist.icdf((value + 1) / 2)

    def entropy(self) -> TensorBase:
        """The Normal entropy minus ``log 2``."""
        return self.base_dist.entropy() - math.log(2)

    @property
    def mean(self) -> TensorBase:
        """``scale sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> TensorBase:
        """0."""
        return _fn.zeros_like(self.scale)

    @property
    def variance(self) -> TensorBase:
        """``scale^2 (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)
