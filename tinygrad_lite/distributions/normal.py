"""``Normal``: the Gaussian with mean ``loc`` and standard deviation ``scale``, as
``torch.distributions.normal``; reparameterised samples."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._constants import LOG_2PI
from ._draws import standard_normal
from .distribution import broadcast_all
from .exp_family import ExponentialFamily

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """Gaussian with mean ``loc`` and standard deviation ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + scale * eps`` with standard normal ``eps``."""
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Gaussian log-density."""
        self._validate_sample(value)
        return -((value - self.loc) ** 2) / (2 * self.scale ** 2) - self.scale.log() - \
            0.5 * LOG_2PI

    def cdf(self, value: TensorBase) -> TensorBase:
        """``(1 + erf((x - loc) / (scale sqrt 2))) / 2``."""
        self._validate_sample(value)
        return 0.5 * (1 + _fn.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value: TensorBase) -> TensorBase:
        """``loc + scale sqrt 2 erfinv(2p - 1)``."""
        return self.loc + self.scale * _fn.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> TensorBase:
        """``0.5 log(2 pi e scale^2)``."""
        return 0.5 + 0.5 * LOG_2PI + self.scale.log()

    @property
    def mean(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """``scale ** 2``."""
        return self.scale ** 2

    @property
    def stddev(self) -> TensorBase:
        """``scale``."""
        return self.scale

    def expand(self, batch_shape: Any) -> Normal:
        """The same distribution over a larger batch."""
        return Normal(self.loc.expand(*batch_shape), self.scale.expand(*batch_shape),
                      validate_args=False)
