"""``LowRankMultivariateNormal``: a Gaussian whose covariance is low rank plus diagonal, its
densities through the small capacitance matrix (Woodbury identities, as PyTorch)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions as _fn
from .. import linalg
from .._core.size import Size
from .._core.tensor_base import TensorBase
from . import constraints
from ._constants import LOG_2PI
from ._draws import standard_normal
from .distribution import Distribution

__all__ = ["LowRankMultivariateNormal"]


def _eye_like(m: int, like: TensorBase) -> TensorBase:
    return _fn.eye(m, dtype=like.dtype)


def _batch_capacitance_tril(w: TensorBase, d: TensorBase) -> TensorBase:
    """The Cholesky factor of the capacitance ``I + W^T D^-1 W``."""
    m = w.shape[-1]
    wt_dinv = w.mT / d.unsqueeze(-2)
    return linalg.cholesky(wt_dinv @ w + _eye_like(m, w))


def _batch_lowrank_logdet(w: TensorBase, d: TensorBase,
                          capacitance_tril: TensorBase) -> TensorBase:
    """``log|W W^T + D|`` by the matrix determinant lemma: ``log|C| + log|D|``."""
    return 2 * capacitance_tril.diagonal(0, -2, -1).log().sum(-1) + d.log().sum(-1)


def _batch_lowrank_mahalanobis(w: TensorBase, d: TensorBase, x: TensorBase,
                               capacitance_tril: TensorBase) -> TensorBase:
    """``x^T (W W^T + D)^-1 x`` by the Woodbury identity."""
    wt_dinv_x = (w.mT / d.unsqueeze(-2)) @ x.unsqueeze(-1)
    z = linalg.solve_triangular(capacitance_tril, wt_dinv_x, upper=False).squeeze(-1)
    return (x.pow(2) / d).sum(-1) - z.pow(2).sum(-1)


class LowRankMultivariateNormal(Distribution):
    """Gaussian over vectors with covariance ``cov_factor cov_factor^T + diag(cov_diag)``;
    densities through the small ``rank x rank`` capacitance matrix (Woodbury)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: TensorBase, cov_factor: TensorBase, cov_diag: TensorBase,
                 validate_args: bool | None = None) -> None:
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        n = loc.shape[-1]
        if cov_factor.ndim < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if cov_factor.shape[-2] != n:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {n} x m")
        if tuple(cov_diag.shape[-1:]) != (n,):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {Size((n,))}")
        try:
            batch = np.broadcast_shapes(loc.shape[:-1], cov_factor.shape[:-2],
                                        cov_diag.shape[:-1])
        except ValueError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") \
                from e
        self.loc = loc.expand(*batch, n)
        self.cov_diag = cov_diag.expand(*batch, n)
        self.cov_factor = cov_factor.expand(*batch, n, cov_factor.shape[-1])
        self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag = cov_factor, cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch, (n,), validate_args=validate_args)

    def expand(self, batch_shape: Any) -> LowRankMultivariateNormal:
        """The same distribution over a larger batch."""
        n, m = self._event_shape[0], self.cov_factor.shape[-1]
        shape = tuple(batch_shape)
        return LowRankMultivariateNormal(self.loc.expand(*shape, n),
                                         self.cov_factor.expand(*shape, n, m),
                                         self.cov_diag.expand(*shape, n),
                                         validate_args=self._validate_args)

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
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        return (w.pow(2).sum(-1) + d).expand(*self._batch_shape, *self._event_shape)

    @property
    def covariance_matrix(self) -> TensorBase:
        """``W W^T + diag(D)``."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        n = self._event_shape[0]
        return (w @ w.mT + d.diag_embed()).expand(*self._batch_shape, n, n)

    @property
    def precision_matrix(self) -> TensorBase:
        """The inverse covariance by the Woodbury identity."""
        w, d = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag
        a = linalg.solve_triangular(self._capacitance_tril, w.mT / d.unsqueeze(-2),
                                    upper=False)
        n = self._event_shape[0]
        return (d.reciprocal().diag_embed() - a.mT @ a).expand(*self._batch_shape, n, n)

    @property
    def scale_tril(self) -> TensorBase:
        """The lower Cholesky factor of the covariance."""
        return linalg.cholesky(self.covariance_matrix)

    def _logdet(self) -> TensorBase:
        return _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                     self._unbroadcasted_cov_diag, self._capacitance_tril)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + W eps_W + sqrt(D) eps_D``."""
        shape = self._extended_shape(sample_shape)
        w = self._unbroadcasted_cov_factor
        eps_w = standard_normal(shape[:-1] + (w.shape[-1],), self.loc)
        eps_d = standard_normal(shape, self.loc)
        return self.loc + (w @ eps_w.unsqueeze(-1)).squeeze(-1) + \
            self._unbroadcasted_cov_diag.sqrt() * eps_d

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Gaussian log-density (Woodbury for the Mahalanobis term)."""
        self._validate_sample(value)
        mahalanobis = _batch_lowrank_mahalanobis(
            self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, value - self.loc,
            self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * LOG_2PI + self._logdet() + mahalanobis)

    def entropy(self) -> TensorBase:
        """``(n (1 + log 2 pi) + log|Sigma|) / 2``."""
        h = 0.5 * (self._event_shape[0] * (1.0 + LOG_2PI) + self._logdet())
        return h.expand(*self._batch_shape) if len(self._batch_shape) else h
