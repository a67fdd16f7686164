"""``Multinomial``: counts of ``total_count`` draws from a Categorical, as
``torch.distributions.multinomial``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from . import constraints
from .categorical import Categorical
from .distribution import Distribution, broadcast_all

__all__ = ["Multinomial"]


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
        """Nonnegative count vectors summing to at most ``total_count`` (PyTorch checks no
        more)."""
        return constraints.multinomial(self.total_count)

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
