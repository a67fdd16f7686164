"""``NegativeBinomial``: successes before ``total_count`` failures, as
``torch.distributions.negative_binomial``."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.grad_mode import no_grad
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of
from ..functions.creation import poisson
from ..nn.functional import logsigmoid
from . import constraints
from .distribution import Distribution, broadcast_all
from .gamma import Gamma

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

    @property
    def param_shape(self) -> Any:
        """The shape of the given parameter (``probs`` or ``logits``)."""
        return self._param.size()

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Gamma-Poisson draws, as PyTorch draws them: a Gamma(total_count, exp(-logits))
        rate (a zero count gives the smallest rate), then a Poisson draw of it."""
        with no_grad():
            rate = Gamma(self.total_count, self.logits.neg().exp(),
                         validate_args=False).sample(sample_shape)
            return poisson(rate)

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
