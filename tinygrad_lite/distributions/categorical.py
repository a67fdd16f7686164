"""``Categorical``: one of K categories given by ``probs`` or ``logits``, normalised as
PyTorch does, as ``torch.distributions.categorical``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from . import constraints
from .distribution import Distribution
from .utils import probs_to_logits

__all__ = ["Categorical"]


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
            # PyTorch's probs_to_logits: log of probabilities clamped to [eps, 1 - eps]
            self.logits = probs_to_logits(self.probs)
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(-1, keepdim=True)
            self.probs = self.logits.softmax(-1)
        self._param = self.probs if probs is not None else self.logits
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
