"""``RelaxedOneHotCategorical`` and ``ExpRelaxedCategorical``: the Gumbel-softmax relaxation of
the one-hot Categorical with reparameterised samples, as
``torch.distributions.relaxed_categorical``; lower ``temperature`` means samples closer to
one-hot."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import open_uniform
from .categorical import Categorical
from .distribution import Distribution, as_tensor_like, broadcast_all
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


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
        u = open_uniform(shape, self.logits)
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
