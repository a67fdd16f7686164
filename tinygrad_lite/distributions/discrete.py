"""Discrete distributions: Bernoulli, Categorical, OneHotCategorical, Binomial, Poisson,
Geometric. Parameters as probabilities or logits (PyTorch's normalisation); ``log_prob`` is
differentiable in them, which is what score-function (REINFORCE) estimators need."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from ..nn.functional import binary_cross_entropy_with_logits, one_hot
from .distribution import Distribution, broadcast_all, constraints

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "Binomial", "Poisson",
           "Geometric"]

_EPS = 1e-12


def _probs_and_logits(probs: Any, logits: Any, binary: bool) -> tuple:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        (p,) = broadcast_all(probs)
        return p, None
    (lg,) = broadcast_all(logits)
    return None, lg


class Bernoulli(Distribution):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = _probs_and_logits(probs, logits, True)
        self._given_probs = p is not None
        self.probs = p if p is not None else lg.sigmoid()
        self.logits = lg if lg is not None else (p.clamp(_EPS, 1 - _EPS) / (
            1 - p.clamp(_EPS, 1 - _EPS))).log()
        super().__init__(self.probs.shape, validate_args=validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """0/1 draws."""
        shape = self._extended_shape(sample_shape)
        # (a uniform float below each probability, as PyTorch's bernoulli kernel draws)
        draws = default_rng().uniform_as(0.0, 1.0, shape, np.float32) < np.broadcast_to(
            self.probs._data, shape)
        return wrap(draws.astype(self.probs._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``-BCE(logits, value)``."""
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> TensorBase:
        """``BCE(logits, probs)``."""
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> TensorBase:
        """``[0, 1]`` over the batch."""
        values = _fn.tensor([0.0, 1.0], dtype=self.probs.dtype).reshape(
            2, *([1] * len(self._batch_shape)))
        return values.expand(2, *self._batch_shape) if expand else values

    @property
    def mean(self) -> TensorBase:
        """``probs``."""
        return self.probs

    @property
    def mode(self) -> TensorBase:
        """1 where probs > 0.5 (NaN at exactly 0.5, as PyTorch)."""
        m = (self.probs >= 0.5).to(self.probs.dtype)
        return _fn.where(self.probs == 0.5, math.nan, m)

    @property
    def variance(self) -> TensorBase:
        """``p (1 - p)``."""
        return self.probs * (1 - self.probs)


class Categorical(Distribution):
    """One of K categories (the last dim of ``probs`` or ``logits``), normalised as PyTorch
    does: probs divided by their sum, logits shifted by their logsumexp."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = self.probs.clamp(min=_EPS).log()
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self.probs = self.logits.softmax(-1)
        self._num_events = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1], validate_args=validate_args)

    @property
    def support(self) -> Any:
        """The integers 0 .. K-1."""
        return constraints.integer_interval(0, self._num_events - 1)

    @property
    def param_shape(self) -> tuple:
        """The shape of ``probs``."""
        return self.probs.shape

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Category indices (int64) of shape ``sample_shape + batch_shape``."""
        n = int(np.prod(sample_shape)) if len(sample_shape) else 1
        rows = self.probs.detach().reshape(-1, self._num_events)
        draws = _fn.multinomial(rows, n, replacement=True)  # (rows, n)
        out = draws.numpy().T.reshape(tuple(sample_shape) + tuple(self._batch_shape))
        return wrap(out.astype(np.int64))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The log-probability of each category index in ``value``."""
        self._validate_sample(value)
        value = value.long()
        shape = np.broadcast_shapes(tuple(value.shape), tuple(self._batch_shape))
        logits = self.logits.expand(*shape, self._num_events)
        return logits.gather(-1, value.expand(*shape).unsqueeze(-1)).squeeze(-1)

    def entropy(self) -> TensorBase:
        """``-sum p log p``."""
        logits = self.logits.clamp(min=float(finfo_of(self.logits._data.dtype).min))
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> TensorBase:
        """``0 .. K-1`` over the batch."""
        values = _fn.arange(self._num_events).reshape(-1, *([1] * len(self._batch_shape)))
        return values.expand(-1, *self._batch_shape) if expand else values

    @property
    def mean(self) -> TensorBase:
        """NaN (categories have no mean), as PyTorch."""
        return _fn.full(tuple(self._batch_shape), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> TensorBase:
        """The most likely category."""
        return self.probs.argmax(-1)

    @property
    def variance(self) -> TensorBase:
        """NaN, as PyTorch."""
        return self.mean


class OneHotCategorical(Distribution):
    """A Categorical whose samples are one-hot vectors."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits, validate_args)
        self.probs, self.logits = self._categorical.probs, self._categorical.logits
        super().__init__(self._categorical.batch_shape, self.probs.shape[-1:], validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """One-hot samples."""
        index = self._categorical.sample(sample_shape)
        return one_hot(index, self._categorical._num_events).to(self.probs.dtype)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The log-probability of the category each one-hot vector marks."""
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> TensorBase:
        """The Categorical entropy."""
        return self._categorical.entropy()

    @property
    def mean(self) -> TensorBase:
        """``probs``."""
        return self.probs

    @property
    def variance(self) -> TensorBase:
        """``p (1 - p)``."""
        return self.probs * (1 - self.probs)


class Binomial(Distribution):
    """Successes in ``total_count`` trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = _probs_and_logits(probs, logits, True)
        self.probs = p if p is not None else lg.sigmoid()
        self.logits = lg if lg is not None else (p.clamp(_EPS, 1 - _EPS) / (
            1 - p.clamp(_EPS, 1 - _EPS))).log()
        self.total_count, self.probs = broadcast_all(total_count, self.probs)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def support(self) -> Any:
        """``0 .. total_count``."""
        return constraints.interval(0, self.total_count)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Binomial draws."""
        shape = self._extended_shape(sample_shape)
        draws = default_rng().binomial(np.broadcast_to(self.total_count._data, shape).astype(
            np.int64), np.broadcast_to(self.probs._data, shape))
        return wrap(draws.astype(self.probs._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``log C(n, k) + k log p + (n - k) log(1 - p)``."""
        self._validate_sample(value)
        n = self.total_count
        log_binom = _fn.lgamma(n + 1) - _fn.lgamma(value + 1) - _fn.lgamma(n - value + 1)
        lg = self.logits  # k log p + (n - k) log(1 - p) = k logit - n log(1 + e^logit)
        return log_binom + value * lg - n * _fn.logaddexp(lg, lg * 0)

    @property
    def mean(self) -> TensorBase:
        """``n p``."""
        return self.total_count * self.probs

    @property
    def mode(self) -> TensorBase:
        """``floor((n + 1) p)``, at most n."""
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    def entropy(self) -> TensorBase:
        """``-sum_k P(k) log P(k)`` over the support (n must be the same everywhere)."""
        n = int(self.total_count.max().item())
        ks = _fn.arange(n + 1, dtype=self.probs.dtype).reshape(-1, *([1] * len(
            self._batch_shape)))
        log_p = self.log_prob(ks.expand(n + 1, *self._batch_shape)) \
            if not self._validate_args else self._log_prob_unchecked(ks)
        return -(log_p.exp() * log_p).sum(0)

    def _log_prob_unchecked(self, value: TensorBase) -> TensorBase:
        n = self.total_count
        log_binom = _fn.lgamma(n + 1) - _fn.lgamma(value + 1) - _fn.lgamma(n - value + 1)
        lg = self.logits
        return log_binom + value * lg - n * _fn.logaddexp(lg, lg * 0)

    @property
    def variance(self) -> TensorBase:
        """``n p (1 - p)``."""
        return self.total_count * self.probs * (1 - self.probs)


class Poisson(Distribution):
    """Poisson with ``rate``."""

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Poisson draws."""
        shape = self._extended_shape(sample_shape)
        draws = default_rng().poisson(np.broadcast_to(self.rate._data, shape))
        return wrap(draws.astype(self.rate._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``k log(rate) - rate - lgamma(k + 1)`` (``xlogy``: 0 log 0 = 0)."""
        self._validate_sample(value)
        return _fn.xlogy(value, self.rate) - self.rate - _fn.lgamma(value + 1)

    @property
    def mean(self) -> TensorBase:
        """``rate``."""
        return self.rate

    @property
    def mode(self) -> TensorBase:
        """``floor(rate)``."""
        return self.rate.floor()

    @property
    def variance(self) -> TensorBase:
        """``rate``."""
        return self.rate


class Geometric(Distribution):
    """Failures before the first success, success probability ``probs``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = _probs_and_logits(probs, logits, True)
        self.probs = p if p is not None else lg.sigmoid()
        super().__init__(self.probs.shape, validate_args=validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Geometric draws (from 0)."""
        shape = self._extended_shape(sample_shape)
        draws = default_rng().geometric(np.broadcast_to(self.probs._data, shape)) - 1
        return wrap(draws.astype(self.probs._data.dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``k log(1 - p) + log p``."""
        self._validate_sample(value)
        p = self.probs.clamp(_EPS, 1 - _EPS)
        return value * (1 - p).log() + p.log()

    def entropy(self) -> TensorBase:
        """``BCE(p) / p``."""
        p = self.probs.clamp(_EPS, 1 - _EPS)
        return -(p * p.log() + (1 - p) * (1 - p).log()) / p

    @property
    def mode(self) -> TensorBase:
        """0."""
        return self.probs * 0

    @property
    def mean(self) -> TensorBase:
        """``1/p - 1``."""
        return 1 / self.probs - 1

    @property
    def variance(self) -> TensorBase:
        """``(1/p - 1) / p``."""
        return (1 / self.probs - 1) / self.probs
