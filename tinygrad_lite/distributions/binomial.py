"""``Binomial``: successes in ``total_count`` trials, as ``torch.distributions.binomial``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from . import constraints
from ._probs_or_logits import probs_or_logits
from .distribution import Distribution, broadcast_all
from .utils import probs_to_logits

__all__ = ["Binomial"]


class Binomial(Distribution):
    """Successes in ``total_count`` trials of probability ``probs`` (or ``sigmoid(logits)``)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = probs_or_logits(probs, logits, True)
        if p is not None:
            self.total_count, p = broadcast_all(total_count, p)
            # PyTorch's probs_to_logits: probabilities clamped to [eps, 1 - eps] of the dtype
            self.probs, self.logits = p, probs_to_logits(p, is_binary=True)
        else:
            self.total_count, lg = broadcast_all(total_count, lg)
            self.probs, self.logits = lg.sigmoid(), lg
        self.total_count = self.total_count.type_as(self.probs)
        self._param = p if p is not None else lg
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter (``probs`` or ``logits``)."""
        return self._param.size()

    @property
    def support(self) -> Any:
        """The integers ``0 .. total_count``."""
        return constraints.integer_interval(0, self.total_count)

    def enumerate_support(self, expand: bool = True) -> TensorBase:
        """``0 .. n`` along a new first dim (n the same over the batch, as PyTorch needs)."""
        n = self._homogeneous_count("enumerate_support")
        values = _fn.arange(n + 1, dtype=self._param.dtype).reshape(
            -1, *([1] * len(self._batch_shape)))
        return values.expand(-1, *self._batch_shape) if expand else values

    def _homogeneous_count(self, method: str) -> int:
        n = int(self.total_count.max().item())
        if not self.total_count.min().item() == n:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{method}`.")
        return n

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Binomial draws, as PyTorch's ``binomial`` makes them."""
        shape = self._extended_shape(sample_shape)
        dtype = self.probs._data.dtype
        return wrap(default_rng().binomial_as(np.broadcast_to(self.total_count._data, shape),
                                              np.broadcast_to(self.probs._data, shape), dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``log C(n, k) + k log p + (n - k) log(1 - p)``."""
        self._validate_sample(value)
        return self._log_prob_unchecked(value)

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
        self._homogeneous_count("entropy")
        log_p = self._log_prob_unchecked(self.enumerate_support(False))
        return -(log_p.exp() * log_p).sum(0)

    def _log_prob_unchecked(self, value: TensorBase) -> TensorBase:
        # PyTorch's form: k logit - n (max(logit, 0) + log1p(exp(-|logit|))) - log k! ...
        n, lg = self.total_count, self.logits
        normalize = n * lg.clamp(min=0) + n * (-lg.abs()).exp().log1p() - _fn.lgamma(n + 1)
        return value * lg - normalize - _fn.lgamma(value + 1) - _fn.lgamma(n - value + 1)

    @property
    def variance(self) -> TensorBase:
        """``n p (1 - p)``."""
        return self.total_count * self.probs * (1 - self.probs)
