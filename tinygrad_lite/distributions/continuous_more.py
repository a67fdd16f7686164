"""More continuous distributions: Chi2, StudentT, FisherSnedecor (reparameterised through
Gamma draws), ContinuousBernoulli, and VonMises (rejection-sampled, no rsample)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from ..nn.functional import binary_cross_entropy_with_logits
from .continuous import Gamma, _noise
from .distribution import Distribution, broadcast_all, constraints
from .relaxed import clamp_probs

__all__ = ["Chi2", "StudentT", "FisherSnedecor", "ContinuousBernoulli", "VonMises"]


class Chi2(Gamma):
    """Chi-squared with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> TensorBase:
        """The degrees of freedom."""
        return self.concentration * 2

    def expand(self, batch_shape: Any) -> Chi2:
        """The same distribution over a larger batch."""
        return Chi2(self.df.expand(*batch_shape), validate_args=self._validate_args)


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
        x = _noise(shape, self.df, lambda g, s: g.standard_normal(s))
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
        var = self.scale.pow(2) * df / (df - 2)
        var = _fn.where(df <= 2, math.inf, var)
        return _fn.where(df <= 1, math.nan, var)


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


class ContinuousBernoulli(Distribution):
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
        return self.icdf(_noise(shape, self.probs, lambda g, s: g.random(s)))

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


_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
             -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
             0.32411e-3]
_I1_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
             0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]


def _eval_poly(y: TensorBase, coef: list) -> TensorBase:
    result: Any = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def log_modified_bessel(x: TensorBase, order: int = 0) -> TensorBase:
    """``log I_order(x)`` for x > 0, order 0 or 1 (the polynomial fits PyTorch uses)."""
    if order not in (0, 1):
        raise ValueError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75).pow(2)
    small = _eval_poly(y, _I0_SMALL if order == 0 else _I1_SMALL)
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _I0_LARGE if order == 0 else
                                           _I1_LARGE).log()
    return _fn.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """The circular von Mises distribution (angles modulo 2 pi) with ``loc`` and
    ``concentration``; sampled by Best and Fisher's rejection sampler (no rsample)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``kappa cos(x - loc) - log(2 pi I0(kappa))``."""
        self._validate_sample(value)
        return (self.concentration * (value - self.loc).cos() - math.log(2 * math.pi)
                - log_modified_bessel(self.concentration, 0))

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Rejection samples in float64 (float32 can hang for tiny concentrations)."""
        shape = self._extended_shape(sample_shape)
        kappa = np.broadcast_to(self.concentration._data.astype(np.float64), shape)
        loc = np.broadcast_to(self.loc._data.astype(np.float64), shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
            rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
            r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
        x, done, rng = np.zeros(shape), np.zeros(shape, bool), default_rng()
        while not done.all():
            u1, u2, u3 = rng.random((3, *shape))
            z = np.cos(math.pi * u1)
            f = (1 + r * z) / (r + z)
            c = kappa * (r - f)
            with np.errstate(divide="ignore", invalid="ignore"):
                accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
            accept &= ~done
            x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(np.clip(f, -1, 1)), x)
            done |= accept
        out = (x + math.pi + loc) % (2 * math.pi) - math.pi
        return wrap(out.astype(self.loc._data.dtype))

    @property
    def mean(self) -> TensorBase:
        """The circular mean, ``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """The circular variance ``1 - I1(kappa) / I0(kappa)``."""
        k = self.concentration
        return 1 - (log_modified_bessel(k, 1) - log_modified_bessel(k, 0)).exp()
