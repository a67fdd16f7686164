"""``OneHotCategorical`` (a Categorical whose samples are one-hot vectors) and
``OneHotCategoricalStraightThrough`` (with the straight-through gradient), as
``torch.distributions.one_hot_categorical``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from ..nn.functional import one_hot
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A Categorical whose samples are one-hot vectors."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits, validate_args)
        self.probs, self.logits = self._categorical.probs, self._categorical.logits
        super().__init__(self._categorical.batch_shape, self.probs.shape[-1:], validate_args)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """One-hot samples."""
        index = self._categorical.sample(sample_shape)
        return one_hot(index, self._categorical._num_events).to(self.probs.dtype)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The log-probability of the category each one-hot vector marks."""
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> TensorBase:
        """The Categorical entropy."""
        return self._categorical.entropy()

    @property
    def mean(self) -> TensorBase:
        """``probs``."""
        return self.probs

    @property
    def variance(self) -> TensorBase:
        """``p (1 - p)``."""
        return self.probs * (1 - self.probs)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` with ``rsample``: the one-hot sample in the forward pass, the
    gradient of ``probs`` in the backward pass (straight-through estimator)."""

    has_rsample = True

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``sample + (probs - probs.detach())``."""
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
