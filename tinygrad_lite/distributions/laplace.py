"""``Laplace`` with location ``loc`` and scale ``scale``, as
``torch.distributions.laplace``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import uniform_between
from .distribution import Distribution, broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc - scale sign(u) log(1 - |u|)`` for uniform u in (-1, 1)."""
        eps = float(np.finfo(self.loc._data.dtype).eps)
        u = uniform_between(eps - 1, 1.0, self._extended_shape(sample_shape), self.loc)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-log(2 scale) - |x - loc| / scale``."""
        self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: TensorBase) -> TensorBase:
        """The Laplace CDF."""
        self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * _fn.expm1(-z.abs() / self.scale)

    def icdf(self, value: TensorBase) -> TensorBase:
        """``loc - scale sign(p - 1/2) log(1 - 2 |p - 1/2|)``."""
        term = value - 0.5
        return self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()

    def entropy(self) -> TensorBase:
        """``1 + log(2 scale)``."""
        return 1 + (2 * self.scale).log()

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
        """``2 scale^2``."""
        return 2 * self.scale ** 2
