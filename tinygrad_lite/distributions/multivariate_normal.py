"""``MultivariateNormal``: the Gaussian over vectors, given a covariance, precision or
lower Cholesky factor, as ``torch.distributions.multivariate_normal``.

As PyTorch, the given matrix is kept (expanded to the batch shape) as the instance attribute
of its name, so that it is validated and listed by ``repr``; the other two matrices and
``scale_tril`` are lazy properties, stored in the instance on first access (after which
``repr`` lists them too). Every computation goes through the unbroadcasted Cholesky factor."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .. import linalg
from .._core.size import Size
from .._core.tensor_base import TensorBase
from . import constraints
from ._constants import LOG_2PI
from ._draws import standard_normal
from .distribution import Distribution
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mahalanobis(lower: TensorBase, x: TensorBase) -> TensorBase:
    """``x^T (L L^T)^-1 x`` for a lower Cholesky factor ``L`` (batch shapes broadcast)."""
    z = linalg.solve_triangular(lower, x.unsqueeze(-1), upper=False).squeeze(-1)
    return (z * z).sum(-1)


def _precision_to_scale_tril(precision: TensorBase) -> TensorBase:
    """The lower Cholesky factor of ``precision^-1`` without forming the inverse: the
    Cholesky factor of the index-reversed precision, reversed back, is ``L^-T``."""
    lf = linalg.cholesky(precision.flip((-2, -1)))
    l_inv = lf.flip((-2, -1)).transpose(-2, -1)
    eye = _fn.eye(precision.shape[-1], dtype=precision.dtype)
    return linalg.solve_triangular(l_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """Gaussian over vectors: ``loc`` and one of ``covariance_matrix``, ``precision_matrix``,
    ``scale_tril``."""

    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: TensorBase, covariance_matrix: TensorBase | None = None,
                 precision_matrix: TensorBase | None = None,
                 scale_tril: TensorBase | None = None,
                 validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (precision_matrix is not None) + \
                (scale_tril is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        given, name = next((m, n) for m, n in ((scale_tril, "scale_tril"),
                                               (covariance_matrix, "covariance_matrix"),
                                               (precision_matrix, "precision_matrix"))
                           if m is not None)
        if given.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch = Size(_fn.broadcast_shapes(given.shape[:-2], loc.shape[:-1]))
        # the given matrix as an attribute (shadowing its lazy property): validated, listed
        self.__dict__[name] = given.expand(*batch, -1, -1)
        self.loc = loc.expand(*batch, -1)
        super().__init__(batch, self.loc.shape[-1:], validate_args)
        # factorised only after validation, so that a non-PD matrix raises ValueError there
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any) -> MultivariateNormal:
        """The same distribution over a larger batch (given or computed matrices follow)."""
        new = type(self).__new__(type(self))
        batch, event = tuple(batch_shape), tuple(self._event_shape)
        new.loc = self.loc.expand(*batch, *event)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(*batch, *event, *event)
        Distribution.__init__(new, batch, event, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self) -> tuple:
        return (*self._batch_shape, *self._event_shape, *self._event_shape)

    @lazy_property
    def scale_tril(self) -> TensorBase:
        """The lower Cholesky factor of the covariance, expanded to the batch shape."""
        return self._unbroadcasted_scale_tril.expand(*self._matrix_shape())

    @lazy_property
    def covariance_matrix(self) -> TensorBase:
        """``L L^T``, expanded to the batch shape."""
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.mT).expand(*self._matrix_shape())

    @lazy_property
    def precision_matrix(self) -> TensorBase:
        """``(L L^T)^-1 = L^-T L^-1``, expanded to the batch shape."""
        lower = self._unbroadcasted_scale_tril
        eye = _fn.eye(lower.shape[-1], dtype=lower.dtype)
        l_inv = linalg.solve_triangular(lower, eye, upper=False)
        return (l_inv.mT @ l_inv).expand(*self._matrix_shape())

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """``loc + L eps``."""
        eps = standard_normal(self._extended_shape(sample_shape), self.loc)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Gaussian log-density via the Cholesky factor."""
        self._validate_sample(value)
        lower = self._unbroadcasted_scale_tril
        mahalanobis = _batch_mahalanobis(lower, value - self.loc)
        half_logdet = lower.diagonal(0, -2, -1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * LOG_2PI + mahalanobis) - half_logdet

    def entropy(self) -> TensorBase:
        """``k/2 (1 + log 2 pi) + log|L|``, one per batch element."""
        k = self._event_shape[0]
        half_logdet = self._unbroadcasted_scale_tril.diagonal(0, -2, -1).log().sum(-1)
        h = 0.5 * k * (1.0 + LOG_2PI) + half_logdet
        return h.expand(*self._batch_shape) if len(self._batch_shape) else h

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
        """The diagonal of the covariance, expanded to the batch shape."""
        return (self._unbroadcasted_scale_tril ** 2).sum(-1).expand(
            *self._batch_shape, *self._event_shape)
