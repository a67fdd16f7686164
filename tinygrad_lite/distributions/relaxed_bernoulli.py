"""``RelaxedBernoulli`` and ``LogitRelaxedBernoulli``: the continuous relaxation (Concrete) of
the Bernoulli with reparameterised samples, as ``torch.distributions.relaxed_bernoulli``;
lower ``temperature`` means samples closer to 0 or 1."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from ._draws import open_uniform
from .distribution import Distribution, as_tensor_like, broadcast_all
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


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
        u = open_uniform(shape, self.probs)
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
