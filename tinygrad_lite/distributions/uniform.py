"""``Uniform`` on ``[low, high)``, as ``torch.distributions.uniform``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import uniform
from .distribution import Distribution, broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform on ``[low, high)``."""

    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict[str, Any]:  # type: ignore[override]
        """``low < high``, each bound by the other (as PyTorch, whose validation error names
        the failing parameter and its ``LessThan``/``GreaterThan`` constraint)."""
        return {"low": constraints.less_than(self.high),
                "high": constraints.greater_than(self.low)}

    @property
    def support(self) -> Any:
        """``[low, high]``."""
        return constraints.interval(self.low, self.high)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``low + u (high - low)``."""
        u = uniform(self._extended_shape(sample_shape), self.low)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log(high - low)`` inside, -inf outside."""
        self._validate_sample(value)
        inside = (value >= self.low) & (value < self.high)
        return _fn.where(inside, -(self.high - self.low).log(), -math.inf)

    def cdf(self, value: TensorBase) -> TensorBase:
        """The fraction of the interval below ``value``, clamped to [0, 1]."""
        self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(0, 1)

    def icdf(self, value: TensorBase) -> TensorBase:
        """``low + p (high - low)``."""
        return self.low + value * (self.high - self.low)

    def entropy(self) -> TensorBase:
        """``log(high - low)``."""
        return (self.high - self.low).log()

    @property
    def mean(self) -> TensorBase:
        """The midpoint."""
        return (self.low + self.high) / 2

    @property
    def mode(self) -> TensorBase:
        """NaN: every point is a mode (as PyTorch)."""
        return self.low * math.nan

    @property
    def variance(self) -> TensorBase:
        """``(high - low)^2 / 12``."""
        return (self.high - self.low) ** 2 / 12
