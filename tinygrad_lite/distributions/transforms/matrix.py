"""Transforms onto structured matrices (``torch.distributions.transforms``): lower Cholesky
factors, Cholesky factors of correlation matrices (tanh and stick breaking along each row),
and positive definite matrices (through their lower Cholesky factor)."""

from __future__ import annotations

import math
from typing import Any

from ... import functions as _fn
from ... import linalg
from ..._core.tensor_base import TensorBase
from ...dtypes import finfo_of
from ...nn.functional import softplus
from .. import constraints
from ..utils import tril_matrix_to_vec, vec_to_tril_matrix
from .base import Transform, _Elementwise

__all__ = ["LowerCholeskyTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform"]


class LowerCholeskyTransform(_Elementwise):
    """Square matrices to lower-triangular ones with a positive diagonal (``exp`` of it)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: TensorBase) -> TensorBase:
        return x.tril(-1) + x.diagonal(0, -2, -1).exp().diag_embed()

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.tril(-1) + y.diagonal(0, -2, -1).log().diag_embed()


def _pad_one(x: TensorBase) -> TensorBase:
    """A 1 before the last dim's entries (``F.pad(x, [1, 0], value=1)``)."""
    return _fn.cat([_fn.ones_like(x[..., :1]), x], -1)


class CorrCholeskyTransform(Transform):
    """Vectors of D (D - 1) / 2 reals to D x D lower Cholesky factors of correlation matrices:
    ``tanh`` to (-1, 1), then stick breaking along each row; bijective."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: TensorBase) -> TensorBase:
        eps = float(finfo_of(x._data.dtype).eps)
        x = x.tanh().clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        z1m_cumprod_sqrt = (1 - r ** 2).sqrt().cumprod(-1)
        r = r + _fn.eye(r.shape[-1], dtype=r.dtype)
        return r * _pad_one(z1m_cumprod_sqrt[..., :-1])

    def _inverse(self, y: TensorBase) -> TensorBase:
        y_cumsum = 1 - (y * y).cumsum(-1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(_pad_one(y_cumsum[..., :-1]), diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return (t.log1p() - (-t).log1p()) / 2

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase,
                             intermediates: Any = None) -> TensorBase:
        """The stick breaking's ``0.5 sum log(1 - cumsum(y^2))`` plus tanh's log-Jacobian."""
        y1m_cumsum = 1 - (y * y).cumsum(-1)
        stick_breaking_logdet = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + softplus(-2 * x) - math.log(2.0)).sum(-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape: Any) -> tuple:
        """(..., N) to (..., D, D) with N = D (D - 1) / 2."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return tuple(shape[:-1]) + (d, d)

    def inverse_shape(self, shape: Any) -> tuple:
        """(..., D, D) to (..., D (D - 1) / 2)."""
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return tuple(shape[:-2]) + (d * (d - 1) // 2,)


class PositiveDefiniteTransform(Transform):
    """Square matrices to positive definite ones: ``L L^T`` with L their lower Cholesky form
    (``LowerCholeskyTransform``); the inverse goes through ``linalg.cholesky``."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = object.__hash__

    def _call(self, x: TensorBase) -> TensorBase:
        lower = LowerCholeskyTransform()(x)
        return lower @ lower.transpose(-2, -1)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return LowerCholeskyTransform().inv(linalg.cholesky(y))
