"""More of ``torch.distributions.transforms``: CatTransform and StackTransform (a transform per
block or per index along a dim), CorrCholeskyTransform (unconstrained vectors to Cholesky
factors of correlation matrices, by tanh and stick breaking) and PositiveDefiniteTransform
(square matrices to positive definite ones, through their lower Cholesky factor). Importing
this module registers them with ``biject_to``/``transform_to`` as PyTorch's registry does."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .. import linalg
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from ..nn.functional import softplus
from .constraint_registry import biject_to, transform_to
from .distribution import constraints
from .transform_base import Transform, _sum_rightmost
from .transforms import LowerCholeskyTransform

__all__ = ["CatTransform", "StackTransform", "CorrCholeskyTransform",
           "PositiveDefiniteTransform", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def _tril_mask(n: int, diag: int) -> np.ndarray:
    arange = np.arange(n)
    return arange < arange.reshape(-1, 1) + (diag + 1)


def tril_matrix_to_vec(mat: TensorBase, diag: int = 0) -> TensorBase:
    """The lower-triangular entries (below ``diag``) of ``mat``, row by row."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    positions = np.flatnonzero(_tril_mask(n, diag))
    return mat.reshape(*mat.shape[:-2], n * n).index_select(-1, wrap(positions))


def vec_to_tril_matrix(vec: TensorBase, diag: int = 0) -> TensorBase:
    """The (batched) D x D lower-triangular matrix whose entries below ``diag`` are ``vec``,
    row by row (zeros elsewhere); differentiable in ``vec``."""
    m = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * m + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > finfo_of(vec._data.dtype).eps:
        raise ValueError(f"The size of last dimension is {m} which cannot be expressed as the "
                         "lower triangular part of a square D x D matrix.")
    n = round(n)
    source = np.full(n * n, m, np.int64)  # index m: an appended zero
    source[np.flatnonzero(_tril_mask(n, diag))] = np.arange(m)
    padded = _fn.cat([vec, _fn.zeros_like(vec[..., :1])], -1)
    return padded.index_select(-1, wrap(source)).reshape(*vec.shape[:-1], n, n)


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


def _check_dim(value: TensorBase, dim: int, size: int, name: str, label: str) -> None:
    if not -value.ndim <= dim < value.ndim:
        raise AssertionError(f"dim {dim} out of range for tensor with {value.ndim} dimensions")
    if value.shape[dim] != size:
        raise AssertionError(f"{name}.size({dim}) = {value.shape[dim]} must equal {label} "
                             f"{size}")


class CatTransform(Transform):
    """``tseq[i]`` on the i-th block of ``lengths[i]`` entries (1 by default) along ``dim``."""

    def __init__(self, tseq: Any, dim: int = 0, lengths: Any = None,
                 cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms "
                                 f"({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        """The largest event any part spans."""
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        """The total size along ``dim``."""
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same blocks, caching."""
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _blocks(self, value: TensorBase, name: str) -> list:
        _check_dim(value, self.dim, self.length, name, "length")
        out, start = [], 0
        for length in self.lengths:
            out.append(value.narrow(self.dim, start, length))
            start += length
        return out

    def _call(self, x: TensorBase) -> TensorBase:
        parts = self._blocks(x, "x")
        return _fn.cat([t(p) for t, p in zip(self.transforms, parts)], self.dim)

    def _inverse(self, y: TensorBase) -> TensorBase:
        parts = self._blocks(y, "y")
        return _fn.cat([t.inv(p) for t, p in zip(self.transforms, parts)], self.dim)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The blocks' log-Jacobians, concatenated (or summed once ``dim`` is an event dim)."""
        pieces = []
        for t, xs, ys in zip(self.transforms, self._blocks(x, "x"), self._blocks(y, "y")):
            value = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                value = _sum_rightmost(value, self.event_dim - t.event_dim)
            pieces.append(value)
        dim = self.dim - x.ndim if self.dim >= 0 else self.dim
        dim += self.event_dim
        if dim < 0:
            return _fn.cat(pieces, dim)
        total = pieces[0]
        for piece in pieces[1:]:
            total = total + piece
        return total

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is."""
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        """The parts' domains, block by block."""
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @property
    def codomain(self) -> Any:
        """The parts' codomains, block by block."""
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """``tseq[i]`` on the i-th slice along ``dim``."""

    def __init__(self, tseq: Any, dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The same slices, caching."""
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z: TensorBase, name: str) -> list:
        _check_dim(z, self.dim, len(self.transforms), name, "len(transforms)")
        return [z.select(self.dim, i) for i in range(z.shape[self.dim])]

    def _call(self, x: TensorBase) -> TensorBase:
        return _fn.stack([t(s) for t, s in zip(self.transforms, self._slice(x, "x"))],
                         self.dim)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return _fn.stack([t.inv(s) for t, s in zip(self.transforms, self._slice(y, "y"))],
                         self.dim)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The slices' log-Jacobians, stacked along ``dim``."""
        return _fn.stack([t.log_abs_det_jacobian(xs, ys) for t, xs, ys in
                          zip(self.transforms, self._slice(x, "x"), self._slice(y, "y"))],
                         self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is."""
        return all(t.bijective for t in self.transforms)

    @property
    def domain(self) -> Any:
        """The parts' domains, slice by slice."""
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @property
    def codomain(self) -> Any:
        """The parts' codomains, slice by slice."""
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


for _registry in (biject_to, transform_to):
    _registry.register("CorrCholesky", lambda c: CorrCholeskyTransform())
transform_to.register("PositiveDefinite", lambda c: PositiveDefiniteTransform())
transform_to.register("PositiveSemidefinite", lambda c: PositiveDefiniteTransform())
biject_to.register("cat", lambda c: CatTransform([biject_to(p) for p in c.cseq], c.dim,
                                                 c.lengths))
transform_to.register("cat", lambda c: CatTransform([transform_to(p) for p in c.cseq], c.dim,
                                                    c.lengths))
biject_to.register("stack", lambda c: StackTransform([biject_to(p) for p in c.cseq], c.dim))
transform_to.register("stack", lambda c: StackTransform([transform_to(p) for p in c.cseq],
                                                        c.dim))
