"""``Beta`` with ``concentration1`` (alpha) and ``concentration0`` (beta), as
``torch.distributions.beta``; drawn as PyTorch draws them: a Dirichlet over the two."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from .dirichlet import dirichlet_sample
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta with ``concentration1`` (alpha) and ``concentration0`` (beta)."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        super().__init__(self.concentration1.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """The first component of a Dirichlet draw over ``(concentration1, concentration0)``,
        as PyTorch samples it (differentiable in both concentrations)."""
        shape = self._extended_shape(sample_shape)
        pairs = _fn.stack([self.concentration1.expand(*shape),
                           self.concentration0.expand(*shape)], -1)
        return dirichlet_sample(pairs).select(-1, 0)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``(a-1) log x + (b-1) log(1-x) - log B(a, b)``, each product ``xlogy`` (0 where the
        concentration is 1, even at the ends or outside [0, 1]), as PyTorch's Dirichlet."""
        self._validate_sample(value)
        a, b = self.concentration1, self.concentration0
        return (_fn.xlogy(a - 1, value) + _fn.xlogy(b - 1, 1 - value)
                - (_fn.lgamma(a) + _fn.lgamma(b) - _fn.lgamma(a + b)))

    def entropy(self) -> TensorBase:
        """The Beta entropy."""
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (_fn.lgamma(a) + _fn.lgamma(b) - _fn.lgamma(total)
                - (a - 1) * _fn.digamma(a) - (b - 1) * _fn.digamma(b)
                + (total - 2) * _fn.digamma(total))

    @property
    def mean(self) -> TensorBase:
        """``a / (a + b)``."""
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> TensorBase:
        """``(a-1)+ / ((a-1)+ + (b-1)+)``; 1 when both concentrations are below 1 and NaN
        when the density is flat, as PyTorch's Dirichlet-based rule gives."""
        a_excess = (self.concentration1 - 1).clamp(min=0.0)
        b_excess = (self.concentration0 - 1).clamp(min=0.0)
        both_below_one = (self.concentration1 < 1) & (self.concentration0 < 1)
        return _fn.where(both_below_one, 1.0, a_excess / (a_excess + b_excess))

    @property
    def variance(self) -> TensorBase:
        """``a b / ((a + b)^2 (a + b + 1))``."""
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total ** 2 * (total + 1))
