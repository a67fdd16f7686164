"""Multinomial and NegativeBinomial, and MixtureSameFamily (a Categorical mixture of one
batched component distribution)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from ..nn.functional import logsigmoid
from .discrete import Categorical
from .distribution import Distribution, broadcast_all, constraints

__all__ = ["Multinomial", "NegativeBinomial", "MixtureSameFamily"]


class Multinomial(Distribution):
    """Counts of ``total_count`` draws from a Categorical(probs or logits)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @property
    def probs(self) -> TensorBase:
        """The normalised probabilities."""
        return self._categorical.probs

    @property
    def logits(self) -> TensorBase:
        """The normalised logits."""
        return self._categorical.logits

    @property
    def param_shape(self) -> tuple:
        """The shape of ``probs``."""
        return self._categorical.param_shape

    @property
    def support(self) -> Any:
        """Count vectors summing to ``total_count``."""
        n = self.total_count
        return constraints.independent(constraints.integer_interval(0, n), 1)

    def expand(self, batch_shape: Any) -> Multinomial:
        """The same distribution over a larger batch."""
        k = self._event_shape[0]
        return Multinomial(self.total_count, logits=self.logits.expand(*batch_shape, k),
                           validate_args=self._validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Count vectors of shape ``sample_shape + batch_shape + (K,)``."""
        shape = self._extended_shape(sample_shape)
        p = self.probs.detach()._data.astype(np.float64)
        p = np.broadcast_to(p / p.sum(-1, keepdims=True), shape)
        draws = default_rng().multinomial(self.total_count, p.reshape(-1, shape[-1]))
        return wrap(draws.reshape(shape).astype(self.probs._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``log n! - sum log x_i! + sum x_i log p_i``."""
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = _fn.lgamma(value.sum(-1) + 1)
        log_factorial_xs = _fn.lgamma(value + 1).sum(-1)
        # 0 * log 0 counts as 0 (a category of probability 0 never drawn)
        logits = _fn.where((value == 0) & (logits == -math.inf), 0.0, logits)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)

    def entropy(self) -> TensorBase:
        """``n H(cat) - log n! + sum_i E[log x_i!]`` with binomial marginals x_i."""
        n = self.total_count
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        ks = _fn.arange(1, n + 1, dtype=self.probs.dtype).reshape(
            -1, *([1] * (len(self._batch_shape) + 1)))
        p = self.probs.clamp(min=0.0)
        log_binom = (math.lgamma(n + 1) - _fn.lgamma(ks + 1) - _fn.lgamma(n - ks + 1)
                     + _fn.xlogy(ks, p) + _fn.xlogy(n - ks, 1 - p))
        term2 = (log_binom.exp() * _fn.lgamma(ks + 1)).sum(0).sum(-1)
        return term1 + term2

    @property
    def mean(self) -> TensorBase:
        """``n p``."""
        return self.probs * self.total_count

    @property
    def variance(self) -> TensorBase:
        """``n p (1 - p)``."""
        return self.total_count * self.probs * (1 - self.probs)


class NegativeBinomial(Distribution):
    """Successes before ``total_count`` failures, success probability ``probs``."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            p = self.probs.clamp(min=float(finfo_of(self.probs._data.dtype).eps),
                                 max=1 - float(finfo_of(self.probs._data.dtype).eps))
            self.logits = p.log() - (-p).log1p()
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.probs = self.logits.sigmoid()
            self._param = self.logits
        self.total_count = self.total_count.to(self._param.dtype)
        super().__init__(self._param.shape, validate_args=validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Gamma-Poisson draws."""
        shape = self._extended_shape(sample_shape)
        rng = default_rng()
        n = np.broadcast_to(self.total_count._data.astype(np.float64), shape)
        odds = np.broadcast_to(np.exp(self.logits._data.astype(np.float64)), shape)
        rate = rng.gamma(np.where(n > 0, n, 1.0)) * odds
        draws = np.where(n > 0, rng.poisson(np.where(n > 0, rate, 0.0)), 0)
        return wrap(draws.astype(self._param._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``lgamma(n + k) - lgamma(k + 1) - lgamma(n) + n log(1 - p) + k log p``."""
        self._validate_sample(value)
        n = self.total_count
        unnormalised = n * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_norm = -_fn.lgamma(n + value) + _fn.lgamma(1.0 + value) + _fn.lgamma(n)
        log_norm = _fn.where(n + value == 0, 0.0, log_norm)
        return unnormalised - log_norm

    @property
    def mean(self) -> TensorBase:
        """``n p / (1 - p)``."""
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> TensorBase:
        """``floor((n - 1) p / (1 - p))``, at least 0."""
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> TensorBase:
        """``mean / (1 - p)``."""
        return self.mean / (-self.logits).sigmoid()


class MixtureSameFamily(Distribution):
    """A mixture: a Categorical over the last batch dim of ``component_distribution``."""

    arg_constraints: dict[str, Any] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError("The Mixture distribution needs to be an instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution need to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = tuple(mixture_distribution.batch_shape)
        cdbs = tuple(component_distribution.batch_shape)[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args)

    @property
    def mixture_distribution(self) -> Categorical:
        """The Categorical over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The batched components."""
        return self._component_distribution

    @property
    def support(self) -> Any:
        """The components' support."""
        return self._component_distribution.support

    def _pad(self, x: TensorBase) -> TensorBase:
        # a slot for the component dim, just left of the event dims
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: TensorBase) -> TensorBase:
        dist_batch_ndims = len(self._batch_shape)
        cat_batch_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(*xs[:-1], *([1] * pad_ndims), xs[-1], *([1] * self._event_ndims))

    @property
    def mean(self) -> TensorBase:
        """The probability-weighted component means."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> TensorBase:
        """Law of total variance: mean of variances plus variance of means."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        comp = self._component_distribution
        mean_cond_var = (probs * comp.variance).sum(dim)
        var_cond_mean = (probs * (comp.mean - self._pad(self.mean)).pow(2.0)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, value: TensorBase) -> TensorBase:
        """The probability-weighted component CDFs."""
        cdf_x = self._component_distribution.cdf(self._pad(value))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``logsumexp`` over components of ``log w_k + log p_k(x)``."""
        self._validate_sample(value)
        log_prob_x = self._component_distribution.log_prob(self._pad(value))
        log_mix = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix).logsumexp(-1)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Component indices from the mixture, then the chosen components' samples."""
        sample_shape = tuple(sample_shape)
        mix = self._mixture_distribution.sample(sample_shape)
        comp = self._component_distribution.sample(sample_shape)
        es = tuple(self._event_shape)
        index = mix.reshape(*mix.shape, *([1] * (len(es) + 1)))
        index = index.expand(*sample_shape, *self._batch_shape, 1, *es) \
            if index.ndim else index
        return comp.gather(len(sample_shape) + len(self._batch_shape), index).squeeze(
            len(sample_shape) + len(self._batch_shape)).detach()
