"""Continuous relaxations of discrete distributions (Concrete / Gumbel-softmax) with
reparameterised samples: LogitRelaxedBernoulli, RelaxedBernoulli, ExpRelaxedCategorical,
RelaxedOneHotCategorical. Lower ``temperature`` means samples closer to 0/1 or one-hot."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from .discrete import Categorical
from .distribution import Distribution, as_tensor_like, broadcast_all, constraints
from .transformed import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli", "ExpRelaxedCategorical",
           "RelaxedOneHotCategorical", "clamp_probs"]


def clamp_probs(probs: TensorBase) -> TensorBase:
    """Probabilities clamped to ``[eps, 1 - eps]`` (so their logs and logits stay finite)."""
    eps = float(finfo_of(probs._data.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def _uniform(shape: tuple, like: TensorBase) -> TensorBase:
    return clamp_probs(wrap(np.asarray(default_rng().random(shape), like._data.dtype)))


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample: ``(logit(u) + logits) / temperature``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        scalar = not isinstance(probs if probs is not None else logits, TensorBase)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            p = clamp_probs(self.probs)
            self.logits = p.log() - (-p).log1p()
        else:
            (self.logits,) = broadcast_all(logits)
            self.probs = clamp_probs(self.logits.sigmoid())
        self._param = self.probs if probs is not None else self.logits
        self.temperature = as_tensor_like(temperature, self._param)
        super().__init__(() if scalar else self._param.shape, validate_args=validate_args)

    @property
    def param_shape(self) -> tuple:
        """The shape of the parameter given."""
        return self._param.shape

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``(logit(u) + logit(probs)) / temperature`` for uniform u."""
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(*shape))
        u = _uniform(shape, self.probs)
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``log t + d - 2 log(1 + e^d)`` with ``d = logits - t x``."""
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """A sample in (0, 1): ``sigmoid`` of a LogitRelaxedBernoulli sample."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits, validate_args)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> TensorBase:
        """The relaxation temperature."""
        return self.base_dist.temperature  # type: ignore[attr-defined]

    @property
    def logits(self) -> TensorBase:
        """The Bernoulli logits."""
        return self.base_dist.logits  # type: ignore[attr-defined]

    @property
    def probs(self) -> TensorBase:
        """The Bernoulli probabilities."""
        return self.base_dist.probs  # type: ignore[attr-defined]


class ExpRelaxedCategorical(Distribution):
    """The log of a RelaxedOneHotCategorical sample: ``log_softmax((logits + g) / t)`` with
    Gumbel noise g."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits, validate_args)
        self.temperature = as_tensor_like(temperature, self._categorical.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @property
    def logits(self) -> TensorBase:
        """The normalised logits."""
        return self._categorical.logits

    @property
    def probs(self) -> TensorBase:
        """The probabilities."""
        return self._categorical.probs

    @property
    def param_shape(self) -> tuple:
        """The shape of ``probs``."""
        return self._categorical.param_shape

    def expand(self, batch_shape: Any) -> ExpRelaxedCategorical:
        """The same distribution over a larger batch."""
        k = self._categorical._num_events
        return ExpRelaxedCategorical(self.temperature, logits=self.logits.expand(
            *batch_shape, k), validate_args=self._validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``log_softmax((logits + gumbel) / temperature)``."""
        shape = self._extended_shape(sample_shape)
        u = _uniform(shape, self.logits)
        gumbels = -(-(u.log())).log()
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(-1, keepdim=True)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Concrete density of the log-simplex point ``value``."""
        k = self._categorical._num_events
        self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = _fn.full_like(self.temperature, float(k)).lgamma() + \
            self.temperature.log() * (k - 1)
        score = logits - value * self.temperature
        score = (score - score.logsumexp(-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A point of the simplex near a one-hot vector: ``exp`` of an ExpRelaxedCategorical
    sample (Gumbel-softmax)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    @property
    def temperature(self) -> TensorBase:
        """The relaxation temperature."""
        return self.base_dist.temperature  # type: ignore[attr-defined]

    @property
    def logits(self) -> TensorBase:
        """The normalised logits."""
        return self.base_dist.logits  # type: ignore[attr-defined]

    @property
    def probs(self) -> TensorBase:
        """The probabilities."""
        return self.base_dist.probs  # type: ignore[attr-defined]
