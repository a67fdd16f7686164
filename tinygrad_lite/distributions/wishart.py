"""The Wishart distribution over positive definite matrices, as ``torch.distributions.Wishart``:
``df`` degrees of freedom and a scale given as ``covariance_matrix``, ``precision_matrix`` or
``scale_tril``; reparameterised samples by the Bartlett decomposition (chi and normal draws,
the chi part differentiable through the Gamma sampler)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .. import linalg
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..dtypes import finfo_of
from ..functions.creation import default_rng
from .chi2 import Chi2
from .distribution import Distribution, constraints
from .exp_family import ExponentialFamily
from .utils import lazy_property, vec_to_tril_matrix

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x: TensorBase, p: int) -> TensorBase:
    """The multivariate digamma function ``sum_i digamma(x - i / 2)``, i < p."""
    if not bool((x._data > (p - 1) / 2).all()):
        raise AssertionError("Wrong domain for multivariate digamma function.")
    return _fn.digamma(x.unsqueeze(-1) - _fn.arange(p, dtype=x.dtype) / 2).sum(-1)


def _precision_to_scale_tril(precision: TensorBase) -> TensorBase:
    """The lower Cholesky factor of ``precision^-1`` (PyTorch's flip-and-solve)."""
    flipped = linalg.cholesky(_fn.flip(precision, (-2, -1)))
    inverse = _fn.flip(flipped, (-2, -1)).transpose(-2, -1)
    eye = _fn.eye(precision.shape[-1], dtype=precision.dtype).expand(*precision.shape)
    return linalg.solve_triangular(inverse, eye, upper=False)


class Wishart(ExponentialFamily):
    """Wishart(df, V): the distribution of ``sum_k x_k x_k^T`` for df draws x_k ~ N(0, V)."""

    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, df: Any, covariance_matrix: TensorBase | None = None,
                 precision_matrix: TensorBase | None = None,
                 scale_tril: TensorBase | None = None, validate_args: bool | None = None) -> None:
        given = [p for p in (covariance_matrix, precision_matrix, scale_tril) if p is not None]
        if len(given) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = given[0]
        if param.ndim < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional leading "
                             "batch dimensions")
        if isinstance(df, TensorBase):
            batch_shape = tuple(np.broadcast_shapes(tuple(param.shape[:-2]), tuple(df.shape)))
            self.df = df.expand(*batch_shape)
        else:
            batch_shape = tuple(param.shape[:-2])
            self.df = _fn.tensor(float(df), dtype=param.dtype)
        event_shape = tuple(param.shape[-2:])
        p = event_shape[-1]
        if bool((self.df._data <= p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = batch_shape + event_shape
        if scale_tril is not None:
            self.scale_tril = param.expand(*full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(*full)
        else:
            self.precision_matrix = param.expand(*full)
        if bool((self.df._data < p).any()):
            warn("Low df values detected. Singular samples are highly likely to occur "
                 "for ndim - 1 < df < ndim.")
        self.arg_constraints = {"covariance_matrix": constraints.positive_definite,
                                "precision_matrix": constraints.positive_definite,
                                "scale_tril": constraints.lower_cholesky,
                                "df": constraints.greater_than(p - 1)}
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        self._batch_dims = [-(x + 1) for x in range(len(self._batch_shape))]
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = linalg.cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(self.df, batch_shape)

    def _chi2(self, df: TensorBase, batch_shape: tuple) -> Chi2:
        p = self._event_shape[-1]
        offsets = _fn.arange(p, dtype=self._unbroadcasted_scale_tril.dtype)
        return Chi2(df.unsqueeze(-1) - offsets.expand(*batch_shape, p))

    def expand(self, batch_shape: Any) -> Wishart:
        """The same distribution over a larger batch."""
        batch_shape = tuple(batch_shape)
        full = batch_shape + tuple(self._event_shape)
        new = Wishart.__new__(Wishart)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(*full)
        new.df = self.df.expand(*batch_shape)
        new._batch_dims = [-(x + 1) for x in range(len(batch_shape))]
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name].expand(*full)
        new.arg_constraints = self.arg_constraints
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(new.df, batch_shape)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> TensorBase:
        """The lower Cholesky factor of the scale matrix."""
        return self._unbroadcasted_scale_tril.expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> TensorBase:
        """The scale matrix ``L L^T``."""
        lower = self._unbroadcasted_scale_tril
        return (lower @ lower.transpose(-2, -1)).expand(*self._batch_shape, *self._event_shape)

    @lazy_property
    def precision_matrix(self) -> TensorBase:
        """The inverse of the scale matrix."""
        lower = self._unbroadcasted_scale_tril
        eye = _fn.eye(self._event_shape[-1], dtype=lower.dtype).expand(*lower.shape)
        return _fn.cholesky_solve(eye, lower).expand(
            *self._batch_shape, *self._event_shape)

    def _df_matrix(self) -> TensorBase:
        return self.df.reshape(*self._batch_shape, 1, 1)

    @property
    def mean(self) -> TensorBase:
        """``df V``."""
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self) -> TensorBase:
        """``(df - p - 1) V``, NaN where df <= p + 1."""
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = _fn.where(factor <= 0, math.nan, factor)
        return factor.reshape(*self._batch_shape, 1, 1) * self.covariance_matrix

    @property
    def variance(self) -> TensorBase:
        """``df (V_ij^2 + V_ii V_jj)``."""
        cov = self.covariance_matrix
        diag = cov.diagonal(0, -2, -1)
        return self._df_matrix() * (cov.pow(2) + diag.unsqueeze(-1) * diag.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape: tuple) -> TensorBase:
        p = self._event_shape[-1]
        chi = self._dist_chi2.rsample(sample_shape).sqrt()
        chi = chi.clamp(min=float(finfo_of(chi._data.dtype).eps))
        normal = default_rng().standard_normal(tuple(sample_shape) + tuple(self._batch_shape)
                                               + (p * (p - 1) // 2,))
        noise = chi.diag_embed() + vec_to_tril_matrix(
            wrap(normal.astype(chi._data.dtype)), diag=-1)
        chol = self._unbroadcasted_scale_tril @ noise
        return chol @ chol.transpose(-2, -1)

    def _singular(self, sample: TensorBase) -> np.ndarray:
        bad = ~np.asarray(self.support.check(sample), bool)
        return np.asarray(bad.any(tuple(self._batch_dims)) if self._batch_shape else bad)

    def rsample(self, sample_shape: Any = (), max_try_correction: int | None = None
                ) -> TensorBase:
        """Bartlett samples; singular ones are redrawn (up to ``max_try_correction`` times,
        10 by default) with a warning."""
        sample_shape = tuple(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        bad = self._singular(sample)
        if bad.any():
            warn("Singular sample detected.")
            for _ in range(10 if max_try_correction is None else max_try_correction):
                fresh = self._bartlett_sampling(sample_shape)
                mask = wrap(bad.reshape(bad.shape + (1,) * (sample.ndim - bad.ndim)))
                sample = _fn.where(mask, fresh, sample)
                bad = self._singular(sample)
                if not bad.any():
                    break
        return sample

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The Wishart log-density at the positive definite ``value``."""
        self._validate_sample(value)
        nu, p = self.df, self._event_shape[-1]
        lower = self._unbroadcasted_scale_tril
        batch = np.broadcast_shapes(tuple(value.shape[:-2]), tuple(lower.shape[:-2]))
        solved = _fn.cholesky_solve(value.expand(*batch, p, p), lower.expand(*batch, p, p))
        return (-nu * (p * _LOG_2 / 2 + lower.diagonal(0, -2, -1).log().sum(-1))
                - _fn.mvlgamma(nu / 2, p=p)
                + (nu - p - 1) / 2 * linalg.slogdet(value)[1]
                - solved.diagonal(0, -2, -1).sum(-1) / 2)

    def entropy(self) -> TensorBase:
        """The closed form (multivariate gamma and digamma functions of df / 2)."""
        nu, p = self.df, self._event_shape[-1]
        lower = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _LOG_2 / 2 + lower.diagonal(0, -2, -1).log().sum(-1))
                + _fn.mvlgamma(nu / 2, p=p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
                + nu * p / 2)

    @property
    def _natural_params(self) -> tuple:
        """``(-precision / 2, (df - p - 1) / 2)``."""
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (self.df - p - 1) / 2

    def _log_normalizer(self, x: TensorBase, y: TensorBase) -> TensorBase:
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-linalg.slogdet(-2 * x)[1] + _LOG_2 * p) + \
            _fn.mvlgamma(y + (p + 1) / 2, p=p)
