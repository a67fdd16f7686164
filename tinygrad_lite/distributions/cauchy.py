"""``Cauchy`` with location ``loc`` and scale ``scale``, as
``torch.distributions.cauchy``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import standard_cauchy
from .distribution import Distribution, broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + scale * standard Cauchy``."""
        eps = standard_cauchy(self._extended_shape(sample_shape), self.loc)
        return self.loc + eps * self.scale

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log(pi scale (1 + z^2))``."""
        self._validate_sample(value)
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - (1 + z * z).log()

    def cdf(self, value: TensorBase) -> TensorBase:
        """``atan(z) / pi + 1/2``."""
        self._validate_sample(value)
        return _fn.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: TensorBase) -> TensorBase:
        """``loc + scale tan(pi (p - 1/2))``."""
        return _fn.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> TensorBase:
        """``log(4 pi scale)``."""
        return math.log(4 * math.pi) + self.scale.log()

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mean(self) -> TensorBase:
        """Undefined: NaN (as PyTorch)."""
        return self.loc * math.nan

    @property
    def variance(self) -> TensorBase:
        """Infinite (as PyTorch)."""
        return self.loc * 0 + math.inf
