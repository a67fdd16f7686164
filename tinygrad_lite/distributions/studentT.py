"""``StudentT``: Student's t with ``df``, ``loc`` and ``scale``, as
``torch.distributions.studentT``; samples reparameterised through Gamma draws."""

# ruff: noqa: N999 - PyTorch's module name (torch.distributions.studentT)

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import standard_normal
from .chi2 import Chi2
from .distribution import Distribution, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0,
                 validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df, validate_args=False)
        super().__init__(self.df.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any) -> StudentT:
        """The same distribution over a larger batch."""
        shape = tuple(batch_shape)
        return StudentT(self.df.expand(*shape), self.loc.expand(*shape),
                        self.scale.expand(*shape), validate_args=self._validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + scale X / sqrt(Z / df)`` for X ~ Normal(0, 1), Z ~ Chi2(df)."""
        shape = self._extended_shape(sample_shape)
        x = standard_normal(shape, self.df)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * (z / self.df).rsqrt()

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Student t log-density."""
        self._validate_sample(value)
        y = (value - self.loc) / self.scale
        df = self.df
        z = (self.scale.log() + 0.5 * df.log() + 0.5 * math.log(math.pi)
             + _fn.lgamma(0.5 * df) - _fn.lgamma(0.5 * (df + 1.0)))
        return -0.5 * (df + 1.0) * (y ** 2 / df).log1p() - z

    def entropy(self) -> TensorBase:
        """The Student t entropy."""
        df = self.df
        lbeta = _fn.lgamma(0.5 * df) + math.lgamma(0.5) - _fn.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (_fn.digamma(0.5 * (df + 1))
                                                      - _fn.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)

    @property
    def mean(self) -> TensorBase:
        """``loc`` for df > 1, NaN otherwise."""
        return _fn.where(self.df <= 1, math.nan, self.loc)

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """``scale^2 df / (df - 2)`` for df > 2, inf for 1 < df <= 2, NaN for df <= 1."""
        df = self.df
        # df - 2 at df = 2 would put 0 * inf = NaN into the gradient of the masked entries
        safe_df = _fn.where(df > 2, df, 3.0)
        var = self.scale.pow(2) * safe_df / (safe_df - 2)
        var = _fn.where(df <= 2, math.inf, var)
        return _fn.where(df <= 1, math.nan, var)
