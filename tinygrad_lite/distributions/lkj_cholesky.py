"""``LKJCholesky``: lower Cholesky factors of LKJ-distributed correlation matrices, sampled by
the onion method, as ``torch.distributions.lkj_cholesky``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.grad_mode import no_grad
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from . import constraints
from .beta import Beta
from .distribution import Distribution, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """Lower Cholesky factors of ``dim`` x ``dim`` correlation matrices whose density is
    proportional to ``det(C)^(concentration - 1)`` (sampled by the onion method)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky
    _beta: Distribution

    def __init__(self, dim: int, concentration: Any = 1.0,
                 validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. Found "
                             f"dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        marginal = self.concentration + 0.5 * (dim - 2)
        offset = _fn.cat([_fn.zeros(1, dtype=self.concentration.dtype),
                          _fn.arange(dim - 1, dtype=self.concentration.dtype)])
        self._beta = Beta(offset + 0.5, marginal.unsqueeze(-1) - 0.5 * offset)
        super().__init__(self.concentration.shape, (dim, dim), validate_args)

    def expand(self, batch_shape: Any) -> LKJCholesky:
        """The same distribution over a larger batch."""
        new = LKJCholesky.__new__(LKJCholesky)
        new.dim = self.dim
        new.concentration = self.concentration.expand(*batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Onion-method samples (no gradient, as PyTorch's)."""
        with no_grad():
            y = self._beta.sample(sample_shape)._data[..., None]
            shape = self._extended_shape(sample_shape)
            dt = self.concentration._data.dtype
            u = np.tril(default_rng().standard_normal(shape).astype(dt), -1)
            with np.errstate(invalid="ignore", divide="ignore"):
                u = u / np.linalg.norm(u, axis=-1, keepdims=True)
            u[..., 0, :] = 0.0
            w = np.sqrt(y) * u
            diag = np.sqrt(np.maximum(1 - np.sum(w ** 2, -1), finfo_of(dt).tiny))
            idx = np.arange(self.dim)
            w[..., idx, idx] += diag
            return wrap(w.astype(dt))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``sum_i (2 (c - 1) + dim - i - 1) log L_ii`` minus the log-normalizer."""
        self._validate_sample(value)
        diag_elems = value.diagonal(0, -1, -2)[..., 1:]
        order = _fn.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = _fn.lgamma(alpha) * dm1
        numerator = _fn.mvlgamma(alpha - 0.5, dm1)
        return unnormalized - (0.5 * dm1 * math.log(math.pi) + numerator - denominator)
