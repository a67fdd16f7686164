"""``Geometric``: failures before the first success, as ``torch.distributions.geometric``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from . import constraints
from ._probs_or_logits import PROBS_EPS, probs_or_logits
from .distribution import Distribution

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Failures before the first success, success probability ``probs``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = probs_or_logits(probs, logits, True)
        self.probs = p if p is not None else lg.sigmoid()
        super().__init__(self.probs.shape, validate_args=validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Geometric draws (from 0)."""
        shape = self._extended_shape(sample_shape)
        probs = self.probs._data
        dtype = probs.dtype
        # as PyTorch: floor(log(u) / log1p(-p)) of a uniform u in [tiny, 1) of the dtype
        u = default_rng().uniform_as(float(np.finfo(dtype).tiny), 1.0, shape, dtype)
        return wrap(np.floor(np.log(u) / np.log1p(-probs)).astype(dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``k log(1 - p) + log p``."""
        self._validate_sample(value)
        p = self.probs.clamp(PROBS_EPS, 1 - PROBS_EPS)
        return value * (1 - p).log() + p.log()

    def entropy(self) -> TensorBase:
        """``BCE(p) / p``."""
        p = self.probs.clamp(PROBS_EPS, 1 - PROBS_EPS)
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
