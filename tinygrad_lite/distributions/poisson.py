"""``Poisson`` with ``rate``, as ``torch.distributions.poisson``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from . import constraints
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson with ``rate``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Poisson draws."""
        shape = self._extended_shape(sample_shape)
        draws = default_rng().poisson_as(np.broadcast_to(self.rate._data, shape))
        return wrap(draws.astype(self.rate._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``k log(rate) - rate - lgamma(k + 1)`` (``xlogy``: 0 log 0 = 0)."""
        self._validate_sample(value)
        return _fn.xlogy(value, self.rate) - self.rate - _fn.lgamma(value + 1)

    @property
    def mean(self) -> TensorBase:
        """``rate``."""
        return self.rate

    @property
    def mode(self) -> TensorBase:
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self) -> TensorBase:
        """``rate``."""
        return self.rate
