"""``Bernoulli``: 1 with probability ``probs`` (or ``sigmoid(logits)``), as
``torch.distributions.bernoulli``; ``log_prob`` differentiable in the parameters."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from ._probs_or_logits import probs_or_logits
from .distribution import broadcast_all
from .exp_family import ExponentialFamily
from .utils import probs_to_logits

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """1 with probability ``probs`` (or ``sigmoid(logits)``), else 0."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = probs_or_logits(probs, logits, True)
        self._given_probs = p is not None
        self.probs = p if p is not None else lg.sigmoid()
        # PyTorch's probs_to_logits: probabilities clamped to [eps, 1 - eps] of their dtype
        self.logits = lg if lg is not None else probs_to_logits(p, is_binary=True)
        self._param = self.probs if p is not None else self.logits
        super().__init__(self.probs.shape, validate_args=validate_args)

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter (``probs`` or ``logits``)."""
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """0/1 draws."""
        shape = self._extended_shape(sample_shape)
        # (a uniform below each probability, as PyTorch's bernoulli kernel draws)
        # (np.array, not np.ascontiguousarray: that makes a 0-d array 1-d)
        draws = default_rng().below(np.array(np.broadcast_to(self.probs._data, shape)))
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
