"""``Kumaraswamy``: ``(1 - U^(1/b))^(1/a)`` for uniform U, as
``torch.distributions.kumaraswamy``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._constants import EULER
from .distribution import broadcast_all
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform

__all__ = ["Kumaraswamy"]


def _kumaraswamy_moment(a: TensorBase, b: TensorBase, n: int) -> TensorBase:
    arg1 = 1 + n / a
    return b * (_fn.lgamma(arg1) + _fn.lgamma(b) - _fn.lgamma(arg1 + b)).exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy(a = concentration1, b = concentration0): ``(1 - U^(1/b))^(1/a)``."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval

    def __init__(self, concentration1: Any, concentration0: Any,
                 validate_args: bool | None = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base = Uniform(_fn.full_like(self.concentration0, 0.0),
                       _fn.full_like(self.concentration0, 1.0), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any) -> Kumaraswamy:
        """The same distribution over a larger batch."""
        return Kumaraswamy(self.concentration1.expand(*batch_shape),
                           self.concentration0.expand(*batch_shape),
                           validate_args=self._validate_args)

    @property
    def mean(self) -> TensorBase:
        """``b B(1 + 1/a, b)``."""
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> TensorBase:
        """``((a - 1) / (a b - 1))^(1/a)``; NaN where a or b is below 1 (as PyTorch)."""
        a, b = self.concentration1, self.concentration0
        log_mode = b.reciprocal() * (-b).log1p() - (-b * a).log1p()
        return _fn.where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self) -> TensorBase:
        """The second moment minus the squared mean."""
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 2) - \
            self.mean.pow(2)

    def entropy(self) -> TensorBase:
        """The Kumaraswamy entropy (harmonic number through digamma)."""
        a, b = self.concentration1, self.concentration0
        h0 = _fn.digamma(b + 1) + EULER
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * h0 - a.log() - b.log()
