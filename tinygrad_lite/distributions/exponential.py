"""``Exponential`` with ``rate``, as ``torch.distributions.exponential``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import exponential
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential with ``rate``."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``-log(u) / rate``."""
        e = exponential(self._extended_shape(sample_shape), self.rate)
        return e / self.rate

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``log(rate) - rate x``."""
        self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: TensorBase) -> TensorBase:
        """``1 - exp(-rate x)``."""
        self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: TensorBase) -> TensorBase:
        """``-log(1 - p) / rate``."""
        return -(1 - value).log() / self.rate

    def entropy(self) -> TensorBase:
        """``1 - log(rate)``."""
        return 1.0 - self.rate.log()

    @property
    def mean(self) -> TensorBase:
        """``1 / rate``."""
        return 1 / self.rate

    @property
    def mode(self) -> TensorBase:
        """0."""
        return self.rate * 0

    @property
    def variance(self) -> TensorBase:
        """``1 / rate^2``."""
        return self.rate ** -2
