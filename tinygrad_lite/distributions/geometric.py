"""``Geometric``: failures before the first success, as ``torch.distributions.geometric``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from ..nn.functional import binary_cross_entropy_with_logits
from . import constraints
from ._probs_or_logits import probs_or_logits
from .distribution import Distribution, broadcast_all
from .utils import probs_to_logits

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Failures before the first success, success probability ``probs``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        p, lg = probs_or_logits(probs, logits, True)
        self.probs = p if p is not None else lg.sigmoid()
        # PyTorch's probs_to_logits: probabilities clamped to [eps, 1 - eps] of the dtype
        self.logits = lg if lg is not None else probs_to_logits(p, is_binary=True)
        self._param = self.probs if p is not None else self.logits
        super().__init__(self.probs.shape, validate_args=validate_args)
        if self._validate_args and p is not None and not bool((p > 0).all()):
            # beyond unit_interval: a probability of success of 0 never stops
            raise ValueError(f"Expected parameter probs ({type(p).__name__} of shape "
                             f"{tuple(p.shape)}) of distribution {self!r} to be positive but "
                             f"found invalid values:\n{p[~(p > 0)]}")

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Geometric draws (from 0)."""
        shape = self._extended_shape(sample_shape)
        probs = self.probs._data
        dtype = probs.dtype
        # as PyTorch: floor(log(u) / log1p(-p)) of a uniform u in [tiny, 1) of the dtype
        u = default_rng().uniform_as(float(np.finfo(dtype).tiny), 1.0, shape, dtype)
        return wrap(np.floor(np.log(u) / np.log1p(-probs)).astype(dtype))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``k log(1 - p) + log p``, unclamped as PyTorch: with p = 1 it is 0 at k = 0 and
        -inf at any other k."""
        self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p = 1 at k = 0 counts as p = 0 in the first term (0 * log 1, not 0 * -inf)
        probs = _fn.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> TensorBase:
        """``BCE(logits, probs) / probs``."""
        return binary_cross_entropy_with_logits(self.logits, self.probs,
                                                reduction="none") / self.probs

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
