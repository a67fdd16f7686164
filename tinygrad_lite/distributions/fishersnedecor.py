"""``FisherSnedecor``: the F distribution with ``df1`` and ``df2`` degrees of freedom, as
``torch.distributions.fishersnedecor``; samples reparameterised through Gamma draws."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of
from . import constraints
from .distribution import Distribution, broadcast_all
from .gamma import Gamma

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1: Any, df2: Any, validate_args: bool | None = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1, validate_args=False)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2, validate_args=False)
        super().__init__(self.df1.shape, validate_args=validate_args)

    def expand(self, batch_shape: Any) -> FisherSnedecor:
        """The same distribution over a larger batch."""
        return FisherSnedecor(self.df1.expand(*batch_shape), self.df2.expand(*batch_shape),
                              validate_args=self._validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """The ratio of two scaled Gamma draws."""
        tiny = float(finfo_of(self.df1._data.dtype).tiny)
        x1 = self._gamma1.rsample(sample_shape)
        x2 = self._gamma2.rsample(sample_shape).clamp(min=tiny)
        return (x1 / x2).clamp(min=tiny)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The F log-density."""
        self._validate_sample(value)
        ct1, ct2 = self.df1 * 0.5, self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = _fn.lgamma(ct1 + ct2) - _fn.lgamma(ct1) - _fn.lgamma(ct2)
        t2 = ct1 * ct3.log() + (ct1 - 1) * value.log()
        t3 = (ct1 + ct2) * (ct3 * value).log1p()
        return t1 + t2 - t3

    @property
    def mean(self) -> TensorBase:
        """``df2 / (df2 - 2)`` for df2 > 2, NaN otherwise."""
        df2 = self.df2
        return _fn.where(df2 <= 2, math.nan, df2 / (df2 - 2))

    @property
    def mode(self) -> TensorBase:
        """``(df1 - 2) / df1 * df2 / (df2 + 2)`` for df1 > 2, NaN otherwise."""
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return _fn.where(self.df1 <= 2, math.nan, mode)

    @property
    def variance(self) -> TensorBase:
        """The F variance for df2 > 4, NaN otherwise."""
        df1, df2 = self.df1, self.df2
        var = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return _fn.where(df2 <= 4, math.nan, var)
