"""``OneHotCategorical`` (a Categorical whose samples are one-hot vectors) and
``OneHotCategoricalStraightThrough`` (with the straight-through gradient), as
``torch.distributions.one_hot_categorical``."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..nn.functional import one_hot
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """A Categorical whose samples are one-hot vectors (the Categorical is kept in
    ``_categorical``; ``probs`` and ``logits`` are its, so ``repr`` lists no parameter)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        # as PyTorch, the inner Categorical checks its parameters by the default setting,
        # whatever ``validate_args`` says (which governs the values given to log_prob)
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args)

    def expand(self, batch_shape: Any) -> OneHotCategorical:
        """The same distribution over a larger batch."""
        new = type(self).__new__(type(self))
        categorical = self._categorical.expand(batch_shape)
        assert isinstance(categorical, Categorical)
        new._categorical = categorical
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def _param(self) -> TensorBase:
        return self._categorical._param

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

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """One-hot samples, in the dtype of ``probs``."""
        index = self._categorical.sample(sample_shape)
        return one_hot(index, self._categorical._num_events).to(self.probs.dtype)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The log-probability of the category each one-hot vector marks."""
        self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(-1))

    def entropy(self) -> TensorBase:
        """The Categorical entropy."""
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> TensorBase:
        """The ``n`` one-hot vectors, along a new leading dim (over the batch)."""
        n = self._event_shape[0]
        values = _fn.eye(n, dtype=self._param.dtype)
        values = values.reshape(n, *([1] * len(self._batch_shape)), n)
        return values.expand(n, *self._batch_shape, n) if expand else values

    @property
    def mean(self) -> TensorBase:
        """``probs``."""
        return self.probs

    @property
    def mode(self) -> TensorBase:
        """The one-hot vector of the most likely category."""
        probs = self.probs
        return one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

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
