"""``Binomial``: successes in ``total_count`` trials, as ``torch.distributions.binomial``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from . import constraints
from ._probs_or_logits import PROBS_EPS, probs_or_logits
from .distribution import Distribution, broadcast_all

__all__ = ["Binomial"]


class Binomial(Distribution):
    """Successes in ``total_count`` trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = probs_or_logits(probs, logits, True)
        self.probs = p if p is not None else lg.sigmoid()
        self.logits = lg if lg is not None else (p.clamp(PROBS_EPS, 1 - PROBS_EPS) / (
            1 - p.clamp(PROBS_EPS, 1 - PROBS_EPS))).log()
        self.total_count, self.probs = broadcast_all(total_count, self.probs)
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def support(self) -> Any:
        """``0 .. total_count``."""
        return constraints.interval(0, self.total_count)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Binomial draws, as PyTorch's ``binomial`` makes them."""
        shape = self._extended_shape(sample_shape)
        dtype = self.probs._data.dtype
        return wrap(default_rng().binomial_as(np.broadcast_to(self.total_count._data, shape),
                                              np.broadcast_to(self.probs._data, shape), dtype))

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
