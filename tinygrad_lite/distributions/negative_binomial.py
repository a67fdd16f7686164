"""``NegativeBinomial``: successes before ``total_count`` failures, as
``torch.distributions.negative_binomial``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from ..nn.functional import logsigmoid
from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["NegativeBinomial"]


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
