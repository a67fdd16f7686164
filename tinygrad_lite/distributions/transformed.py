"""``TransformedDistribution`` (a base distribution pushed through transforms, its density by
the change of variables) and the distributions PyTorch defines that way: Gumbel, HalfNormal,
HalfCauchy, Weibull, Pareto (Kumaraswamy and LogisticNormal: transformed_more.py)."""

from __future__ import annotations

import math
from typing import Any

from .. import functions as _fn
from .._core.grad_mode import no_grad
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of
from .continuous import Cauchy, Exponential, Normal, Uniform
from .distribution import Distribution, broadcast_all, constraints
from .independent import Independent
from .transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    Transform,
    _sum_rightmost,
)

__all__ = ["TransformedDistribution", "Gumbel", "HalfNormal", "HalfCauchy", "Weibull",
           "Pareto"]

EULER = 0.57721566490153286061


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one Transform or a list)."""

    arg_constraints: dict[str, Any] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any,
                 validate_args: bool | None = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list) and all(isinstance(t, Transform)
                                                  for t in transforms):
            self.transforms = list(transforms)
        else:
            raise ValueError(f"transforms must be a Transform or a list of Transforms, but "
                             f"was {transforms}")
        base_shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:
            # the transforms' parameters broadcast the batch: the base must follow
            cut = len(expanded_base_shape) - base_event_dim
            base_distribution = base_distribution.expand(expanded_base_shape[:cut])
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """As the base distribution."""
        return self.base_dist.has_rsample

    @property
    def support(self) -> Any:
        """The last transform's codomain (over the whole event)."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) -
                                              support.event_dim)
        return support

    def expand(self, batch_shape: Any) -> TransformedDistribution:
        """The base distribution expanded under the same transforms."""
        new = super().expand(batch_shape)
        assert isinstance(new, TransformedDistribution)
        shape = tuple(batch_shape) + tuple(self.event_shape)
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_event = len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(shape[:len(shape) - base_event])
        return new

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """A base sample pushed through the transforms, without gradient."""
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x.detach()

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """A reparameterised base sample pushed through the transforms."""
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The base log-density at the pre-image minus the transforms' log-Jacobians."""
        self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: TensorBase) -> TensorBase:
        # a decreasing overall transform turns the base CDF into a survival function
        sign: Any = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: TensorBase) -> TensorBase:
        """The base CDF at the pre-image (flipped where the transforms decrease)."""
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: TensorBase) -> TensorBase:
        """The base inverse CDF pushed through the transforms."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value


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


class HalfNormal(TransformedDistribution):
    """``|X|`` for X ~ Normal(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base = Normal(0.0, scale, validate_args=validate_args)
        self.scale = base.scale
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """Twice the Normal density on x >= 0, -inf below."""
        self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _fn.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: TensorBase) -> TensorBase:
        """``2 Phi(x / scale) - 1``."""
        self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, value: TensorBase) -> TensorBase:
        """The Normal icdf at ``(p + 1) / 2``."""
        return self.base_dist.icdf((value + 1) / 2)

    def entropy(self) -> TensorBase:
        """The Normal entropy minus ``log 2``."""
        return self.base_dist.entropy() - math.log(2)

    @property
    def mean(self) -> TensorBase:
        """``scale sqrt(2 / pi)``."""
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self) -> TensorBase:
        """0."""
        return _fn.zeros_like(self.scale)

    @property
    def variance(self) -> TensorBase:
        """``scale^2 (1 - 2 / pi)``."""
        return self.scale.pow(2) * (1 - 2 / math.pi)


class HalfCauchy(TransformedDistribution):
    """``|X|`` for X ~ Cauchy(0, scale)."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        base = Cauchy(0.0, scale, validate_args=validate_args)
        self.scale = base.scale
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """Twice the Cauchy density on x >= 0, -inf below."""
        self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return _fn.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: TensorBase) -> TensorBase:
        """``2 F_cauchy(x) - 1``."""
        self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, value: TensorBase) -> TensorBase:
        """``scale tan(pi p / 2)``."""
        return self.scale * (value * (math.pi / 2)).tan()

    def entropy(self) -> TensorBase:
        """The Cauchy entropy minus ``log 2``."""
        return self.base_dist.entropy() - math.log(2)

    @property
    def mean(self) -> TensorBase:
        """Infinite."""
        return _fn.full_like(self.scale, math.inf)

    @property
    def mode(self) -> TensorBase:
        """0."""
        return _fn.zeros_like(self.scale)

    @property
    def variance(self) -> TensorBase:
        """Infinite."""
        return _fn.full_like(self.scale, math.inf)


class Weibull(TransformedDistribution):
    """Weibull: ``scale * E^(1/concentration)`` for E ~ Exponential(1)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale: Any, concentration: Any,
                 validate_args: bool | None = None) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(_fn.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any) -> Weibull:
        """The same distribution over a larger batch."""
        return Weibull(self.scale.expand(*batch_shape), self.concentration.expand(
            *batch_shape), validate_args=self._validate_args)

    @property
    def mean(self) -> TensorBase:
        """``scale Gamma(1 + 1/k)``."""
        return self.scale * _fn.lgamma(1 + self.concentration_reciprocal).exp()

    @property
    def mode(self) -> TensorBase:
        """``scale ((k - 1) / k)^(1/k)`` (NaN below k = 1, as PyTorch)."""
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(k.reciprocal())

    @property
    def variance(self) -> TensorBase:
        """``scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2)``."""
        r = self.concentration_reciprocal
        return self.scale.pow(2) * (_fn.lgamma(1 + 2 * r).exp() - (2 * _fn.lgamma(1 + r)).exp())

    def entropy(self) -> TensorBase:
        """``euler_gamma (1 - 1/k) + log(scale / k) + 1``."""
        r = self.concentration_reciprocal
        return EULER * (1 - r) + (self.scale * r).log() + 1


class Pareto(TransformedDistribution):
    """Pareto: ``scale * exp(E)`` for E ~ Exponential(alpha)."""

    arg_constraints = {"scale": constraints.positive, "alpha": constraints.positive}

    def __init__(self, scale: Any, alpha: Any, validate_args: bool | None = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=validate_args)
        super().__init__(base, [ExpTransform(), AffineTransform(loc=0, scale=self.scale)],
                         validate_args=validate_args)

    def expand(self, batch_shape: Any) -> Pareto:
        """The same distribution over a larger batch."""
        return Pareto(self.scale.expand(*batch_shape), self.alpha.expand(*batch_shape),
                      validate_args=self._validate_args)

    @property
    def support(self) -> Any:
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale)

    @property
    def mean(self) -> TensorBase:
        """``alpha scale / (alpha - 1)``, infinite for alpha <= 1."""
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> TensorBase:
        """``scale``."""
        return self.scale

    @property
    def variance(self) -> TensorBase:
        """``scale^2 alpha / ((alpha - 1)^2 (alpha - 2))``, infinite for alpha <= 2."""
        a = self.alpha.clamp(min=2)
        return self.scale.pow(2) * a / ((a - 1).pow(2) * (a - 2))

    def entropy(self) -> TensorBase:
        """``log(scale / alpha) + 1 + 1/alpha``."""
        return (self.scale / self.alpha).log() + (1 + self.alpha.reciprocal())
