"""``Gumbel`` with location ``loc`` and scale ``scale`` (uniform noise through
``-log(-log u)``), as ``torch.distributions.gumbel``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of
from . import constraints
from ._constants import EULER
from .distribution import broadcast_all
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform

__all__ = ["Gumbel"]


class Gumbel(TransformedDistribution):
    """Gumbel with location ``loc`` and scale ``scale`` (uniform noise through -log(-log u))."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = finfo_of(self.loc._data.dtype)
        base = Uniform(_fn.full_like(self.loc, float(finfo.tiny)),
                       _fn.full_like(self.loc, 1 - float(finfo.eps)), validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-1.0),
                      ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``z - exp(z) - log scale`` with ``z = (loc - x) / scale``."""
        self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> TensorBase:
        """``loc + scale * euler_gamma``."""
        return self.loc + self.scale * EULER

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def stddev(self) -> TensorBase:
        """``pi scale / sqrt 6``."""
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> TensorBase:
        """``pi^2 scale^2 / 6``."""
        return self.stddev.pow(2)

    def entropy(self) -> TensorBase:
        """``log scale + 1 + euler_gamma``."""
        return self.scale.log() + (1 + EULER)
