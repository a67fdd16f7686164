"""``Gamma`` with shape ``concentration`` and ``rate``, as ``torch.distributions.gamma``;
samples reparameterised through the standard Gamma sampler's implicit gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from ..ops.standard_gamma import standard_gamma
from ..special import gammainc
from . import constraints
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma with shape ``concentration`` and ``rate``."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """Standard Gamma draws over ``rate``; implicit reparameterisation gradients."""
        shape = self._extended_shape(sample_shape)
        value = (standard_gamma(self.concentration.expand(*shape), default_rng())
                 / self.rate.expand(*shape))
        # as PyTorch: a draw that underflows is held at the dtype's smallest normal number
        np.maximum(value._data, finfo_of(value._data.dtype).tiny, out=value._data)
        return value

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``a log b + (a - 1) log x - b x - lgamma(a)``; ``(a - 1) log x`` is ``xlogy`` (0
        where a = 1, even at x = 0 or outside the support), as PyTorch."""
        self._validate_sample(value)
        a, b = self.concentration, self.rate
        return a * b.log() + _fn.xlogy(a - 1, value) - b * value - _fn.lgamma(a)

    def cdf(self, value: TensorBase) -> TensorBase:
        """``P(a, b x)``, the regularised incomplete gamma function (differentiable in the value
        and the rate, not in the concentration, as in PyTorch)."""
        self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)

    def entropy(self) -> TensorBase:
        """``a - log b + lgamma(a) + (1 - a) digamma(a)``."""
        a = self.concentration
        return a - self.rate.log() + _fn.lgamma(a) + (1 - a) * _fn.digamma(a)

    @property
    def mean(self) -> TensorBase:
        """``a / b``."""
        return self.concentration / self.rate

    @property
    def mode(self) -> TensorBase:
        """``(a - 1) / b``, 0 below a = 1."""
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> TensorBase:
        """``a / b^2``."""
        return self.concentration / self.rate ** 2
