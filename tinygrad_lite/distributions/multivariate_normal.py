"""``MultivariateNormal``: the Gaussian over vectors, given a covariance, precision or
lower Cholesky factor, as ``torch.distributions.multivariate_normal``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import linalg
from .._core.tensor_base import TensorBase
from . import constraints
from ._constants import LOG_2PI
from ._draws import standard_normal
from .distribution import Distribution

__all__ = ["MultivariateNormal"]


class MultivariateNormal(Distribution):
    """Gaussian over vectors: ``loc`` and one of ``covariance_matrix``, ``precision_matrix``,
    ``scale_tril`` (kept as its Cholesky factor)."""

    arg_constraints = {"loc": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: TensorBase, covariance_matrix: TensorBase | None = None,
                 precision_matrix: TensorBase | None = None,
                 scale_tril: TensorBase | None = None,
                 validate_args: bool | None = None) -> None:
        if (covariance_matrix is not None) + (precision_matrix is not None) + \
                (scale_tril is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = linalg.cholesky(linalg.inv(precision_matrix))
        self.loc = loc
        batch = np.broadcast_shapes(loc.shape[:-1], self._unbroadcasted_scale_tril.shape[:-2])
        super().__init__(batch, loc.shape[-1:], validate_args)

    @property
    def scale_tril(self) -> TensorBase:
        """The lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril

    @property
    def covariance_matrix(self) -> TensorBase:
        """``L L^T``."""
        lower = self._unbroadcasted_scale_tril
        return lower @ lower.mT

    @property
    def precision_matrix(self) -> TensorBase:
        """The inverse covariance."""
        return linalg.inv(self.covariance_matrix)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + L eps``."""
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Gaussian log-density via the Cholesky factor."""
        self._validate_sample(value)
        diff = value - self.loc
        lower = self._unbroadcasted_scale_tril
        z = linalg.solve_triangular(lower, diff.unsqueeze(-1), upper=False).squeeze(-1)
        half_logdet = lower.diagonal(0, -2, -1).log().sum(-1)
        k = self._event_shape[0]
        return -0.5 * (k * LOG_2PI + (z * z).sum(-1)) - half_logdet

    def entropy(self) -> TensorBase:
        """``k/2 (1 + log 2 pi) + log|L|``."""
        k = self._event_shape[0]
        half_logdet = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        return 0.5 * k * (1.0 + LOG_2PI) + half_logdet

    @property
    def mean(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """The diagonal of the covariance."""
        return (self._unbroadcasted_scale_tril ** 2).sum(-1)
