"""``ContinuousBernoulli``: the continuous Bernoulli on [0, 1], as
``torch.distributions.continuous_bernoulli``."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from ._draws import uniform
from .distribution import Distribution, broadcast_all
from .exp_family import ExponentialFamily
from .utils import clamp_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli on [0, 1] (density proportional to ``p^x (1-p)^(1-x)``);
    Taylor expansions near p = 1/2 (inside ``lims``), as PyTorch."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, probs: Any = None, logits: Any = None, lims: tuple = (0.499, 0.501),
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        scalar = not isinstance(probs if probs is not None else logits, TensorBase)
        if probs is not None:
            (given,) = broadcast_all(probs)
            if validate_args is not False and (validate_args or Distribution._validate_default) \
                    and not constraints.unit_interval.check(given).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(given)
            p = self.probs
            self.logits = p.log() - (-p).log1p()
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = clamp_probs(self.logits.sigmoid())
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(() if scalar else self._param.shape, validate_args=validate_args)

    def _outside_unstable_region(self) -> TensorBase:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> TensorBase:
        return _fn.where(self._outside_unstable_region(), self.probs, self._lims[0])

    def _cont_bern_log_norm(self) -> TensorBase:
        """The log normalising constant as a function of ``probs``."""
        cut = self._cut_probs()
        below = _fn.where(cut <= 0.5, cut, 0.0)
        above = _fn.where(cut >= 0.5, cut, 1.0)
        log_norm = ((-cut).log1p() - cut.log()).abs().log() - _fn.where(
            cut <= 0.5, (-2.0 * below).log1p(), (2.0 * above - 1.0).log())
        x = (self.probs - 0.5).pow(2)
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _fn.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self) -> TensorBase:
        """The mean (a Taylor expansion near p = 1/2)."""
        cut = self._cut_probs()
        mus = cut / (2.0 * cut - 1.0) + 1.0 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x
        return _fn.where(self._outside_unstable_region(), mus, taylor)

    @property
    def variance(self) -> TensorBase:
        """The variance (a Taylor expansion near p = 1/2)."""
        cut = self._cut_probs()
        var = cut * (cut - 1.0) / (1.0 - 2.0 * cut).pow(2) + 1.0 / (
            (-cut).log1p() - cut.log()).pow(2)
        x = (self.probs - 0.5).pow(2)
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _fn.where(self._outside_unstable_region(), var, taylor)

    @property
    def param_shape(self) -> tuple:
        """The shape of the parameter given."""
        return self._param.shape

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """The inverse CDF at uniform noise."""
        shape = self._extended_shape(sample_shape)
        return self.icdf(uniform(shape, self.probs))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-BCE(logits, x) + log C(p)``."""
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none") + \
            self._cont_bern_log_norm()

    def cdf(self, value: TensorBase) -> TensorBase:
        """The CDF (``x`` itself near p = 1/2)."""
        self._validate_sample(value)
        cut = self._cut_probs()
        cdfs = (cut.pow(value) * (1.0 - cut).pow(1.0 - value) + cut - 1.0) / (2.0 * cut - 1.0)
        unbounded = _fn.where(self._outside_unstable_region(), cdfs, value)
        return _fn.where(value <= 0.0, 0.0, _fn.where(value >= 1.0, 1.0, unbounded))

    def icdf(self, value: TensorBase) -> TensorBase:
        """The inverse CDF."""
        cut = self._cut_probs()
        inv = ((-cut + value * (2.0 * cut - 1.0)).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p())
        return _fn.where(self._outside_unstable_region(), inv, value)

    def entropy(self) -> TensorBase:
        """The continuous Bernoulli entropy."""
        log_p0, log_p1 = (-self.probs).log1p(), self.probs.log()
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0
