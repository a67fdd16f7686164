"""Transforms between constrained spaces (``torch.distributions.transforms``): elementwise
(exp, sigmoid, tanh, softplus, abs, power, affine) and over events (softmax, stick breaking,
lower Cholesky, reshape, independent, CDF). TransformedDistribution builds densities from
them."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of
from ..nn.functional import logsigmoid, softplus
from .distribution import Distribution, constraints
from .transform_base import (
    ComposeTransform,
    Transform,
    _clipped_sigmoid,
    _Elementwise,
    _same,
    _sum_rightmost,
    identity_transform,
)

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform",
           "AffineTransform", "SoftmaxTransform", "StickBreakingTransform",
           "LowerCholeskyTransform", "ReshapeTransform", "IndependentTransform",
           "CumulativeDistributionTransform", "identity_transform"]


class ExpTransform(_Elementwise):
    """``y = exp(x)``."""

    domain, codomain, bijective, sign = constraints.real, constraints.positive, True, 1

    def _call(self, x: TensorBase) -> TensorBase:
        return x.exp()

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.log()

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``x``."""
        return x


class SigmoidTransform(_Elementwise):
    """``y = sigmoid(x)``, kept strictly inside (0, 1)."""

    domain, codomain, bijective, sign = constraints.real, constraints.unit_interval, True, 1

    def _call(self, x: TensorBase) -> TensorBase:
        return _clipped_sigmoid(x)

    def _inverse(self, y: TensorBase) -> TensorBase:
        finfo = finfo_of(y._data.dtype)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``-softplus(-x) - softplus(x)``."""
        return -softplus(-x) - softplus(x)


class TanhTransform(_Elementwise):
    """``y = tanh(x)``."""

    domain, codomain = constraints.real, constraints.interval(-1.0, 1.0)
    bijective, sign = True, 1

    def _call(self, x: TensorBase) -> TensorBase:
        return x.tanh()

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.atanh()

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``2 (log 2 - x - softplus(-2x))`` (stable form of ``log(1 - tanh^2)``)."""
        return 2.0 * (math.log(2.0) - x - softplus(-2.0 * x))


class SoftplusTransform(_Elementwise):
    """``y = log(1 + exp(x))``."""

    domain, codomain, bijective, sign = constraints.real, constraints.positive, True, 1

    def _call(self, x: TensorBase) -> TensorBase:
        return softplus(x)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return (-_fn.expm1(-y)).log() + y

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``-softplus(-x)``."""
        return -softplus(-x)


class AbsTransform(_Elementwise):
    """``y = |x|`` (not injective: its inverse picks the positive root)."""

    domain, codomain = constraints.real, constraints.positive

    def _call(self, x: TensorBase) -> TensorBase:
        return x.abs()

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain, codomain, bijective = constraints.positive, constraints.positive, True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.exponent = exponent

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy with the cache size."""
        return self if self._cache_size == cache_size else PowerTransform(self.exponent,
                                                                           cache_size)

    @property
    def sign(self) -> Any:
        """The sign of the exponent."""
        e = self.exponent
        return e.sign() if isinstance(e, TensorBase) else (e > 0) - (e < 0)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and _same(self.exponent, other.exponent)

    __hash__ = object.__hash__

    def _call(self, x: TensorBase) -> TensorBase:
        return x.pow(self.exponent)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``log |exponent y / x|``."""
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> tuple:
        """Broadcast with the exponent's shape."""
        return tuple(np.broadcast_shapes(tuple(shape), tuple(getattr(self.exponent, "shape",
                                                                     ()))))

    inverse_shape = forward_shape


class AffineTransform(Transform):
    """``y = loc + scale x`` (over ``event_dim`` rightmost dims)."""

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc, self.scale, self._event_dim = loc, scale, event_dim

    @property
    def event_dim(self) -> int:
        """The rightmost dims one event spans."""
        return self._event_dim

    @property
    def domain(self) -> Any:
        """The reals (over ``event_dim`` dims)."""
        return constraints.real if self._event_dim == 0 else \
            constraints.independent(constraints.real, self._event_dim)

    codomain = domain

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy with the cache size."""
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self._event_dim, cache_size)

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, AffineTransform) and _same(self.loc, other.loc)
                and _same(self.scale, other.scale) and self._event_dim == other._event_dim)

    __hash__ = object.__hash__

    @property
    def sign(self) -> Any:
        """The sign of ``scale``."""
        s = self.scale
        return s.sign() if isinstance(s, TensorBase) else (s > 0) - (s < 0)

    def _call(self, x: TensorBase) -> TensorBase:
        return self.loc + self.scale * x

    def _inverse(self, y: TensorBase) -> TensorBase:
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``log |scale|`` at every element, summed over the event dims."""
        shape = tuple(x.shape)
        if isinstance(self.scale, TensorBase):
            result = self.scale.abs().log()
            result = result.expand(*np.broadcast_shapes(shape, tuple(result.shape)))
        else:
            result = _fn.full_like(x, math.log(abs(self.scale)))
        if self._event_dim:
            result = _sum_rightmost(result, self._event_dim)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(*np.broadcast_shapes(shape, tuple(result.shape)))

    def forward_shape(self, shape: Any) -> tuple:
        """Broadcast with ``loc`` and ``scale``."""
        return tuple(np.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                         tuple(getattr(self.scale, "shape", ()))))

    inverse_shape = forward_shape


class SoftmaxTransform(_Elementwise):
    """``y = softmax(x)`` over the last dim (not injective: the inverse is ``log y``)."""

    domain, codomain = constraints.real_vector, constraints.simplex

    def _call(self, x: TensorBase) -> TensorBase:
        probs = (x - x.max(-1, keepdim=True)[0]).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.log()


def _offset(x: TensorBase, k: int) -> TensorBase:
    """``k, k-1, ..., k-n+1`` for the last dim's n entries (the stick-breaking offsets)."""
    return _fn.tensor(k - np.arange(x.shape[-1], dtype=x._data.dtype), dtype=x.dtype)


class StickBreakingTransform(_Elementwise):
    """Reals in R^K to the simplex in R^(K+1) by stick breaking; bijective."""

    domain, codomain, bijective = constraints.real_vector, constraints.simplex, True

    def _call(self, x: TensorBase) -> TensorBase:
        z = _clipped_sigmoid(x - _offset(x, x.shape[-1]).log())
        z_cumprod = (1 - z).cumprod(-1)
        ones = _fn.ones_like(x[..., :1])
        return _fn.cat([z, ones], -1) * _fn.cat([ones, z_cumprod], -1)

    def _inverse(self, y: TensorBase) -> TensorBase:
        y_crop = y[..., :-1]
        sf = (1 - y_crop.cumsum(-1)).clamp(min=float(finfo_of(y._data.dtype).tiny))
        return y_crop.log() - sf.log() + _offset(y_crop, y.shape[-1] - 1).log()

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``sum(-x' + logsigmoid(x') + log y_k)`` with ``x'`` the offset inputs."""
        x = x - _offset(x, x.shape[-1]).log()
        return (-x + logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> tuple:
        """One more entry in the last dim."""
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape: Any) -> tuple:
        """One entry fewer in the last dim."""
        return tuple(shape[:-1]) + (shape[-1] - 1,)


class LowerCholeskyTransform(_Elementwise):
    """Square matrices to lower-triangular ones with a positive diagonal (``exp`` of it)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: TensorBase) -> TensorBase:
        return x.tril(-1) + x.diagonal(0, -2, -1).exp().diag_embed()

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.tril(-1) + y.diagonal(0, -2, -1).log().diag_embed()


class ReshapeTransform(Transform):
    """The rightmost ``in_shape`` dims reshaped to ``out_shape``."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = tuple(in_shape), tuple(out_shape)
        if int(np.prod(self.in_shape)) != int(np.prod(self.out_shape)):
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @property
    def domain(self) -> Any:
        """The reals over ``in_shape``."""
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> Any:
        """The reals over ``out_shape``."""
        return constraints.independent(constraints.real, len(self.out_shape))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ReshapeTransform) and (self.in_shape, self.out_shape) == (
            other.in_shape, other.out_shape)

    __hash__ = object.__hash__

    def _call(self, x: TensorBase) -> TensorBase:
        return x.reshape(*x.shape[:x.ndim - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.reshape(*y.shape[:y.ndim - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """Zero (a reshape preserves volume)."""
        return _fn.zeros(tuple(x.shape[:x.ndim - len(self.in_shape)]), dtype=x.dtype)

    def forward_shape(self, shape: Any) -> tuple:
        """``shape`` with its ``in_shape`` tail replaced by ``out_shape``."""
        if tuple(shape[len(shape) - len(self.in_shape):]) != self.in_shape:
            raise ValueError(f"Shape mismatch: expected {self.in_shape} at the end of {shape}")
        return tuple(shape[:len(shape) - len(self.in_shape)]) + self.out_shape

    def inverse_shape(self, shape: Any) -> tuple:
        """``shape`` with its ``out_shape`` tail replaced by ``in_shape``."""
        if tuple(shape[len(shape) - len(self.out_shape):]) != self.out_shape:
            raise ValueError(f"Shape mismatch: expected {self.out_shape} at the end of {shape}")
        return tuple(shape[:len(shape) - len(self.out_shape)]) + self.in_shape


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more dims in each event."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int,
                 cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def domain(self) -> Any:
        """The base domain over more dims."""
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @property
    def codomain(self) -> Any:
        """The base codomain over more dims."""
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """As the base transform."""
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        """As the base transform."""
        return self.base_transform.sign

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, IndependentTransform)
                and self.base_transform == other.base_transform
                and self.reinterpreted_batch_ndims == other.reinterpreted_batch_ndims)

    __hash__ = object.__hash__

    def _call(self, x: TensorBase) -> TensorBase:
        return self.base_transform(x)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The base log-Jacobian summed over the reinterpreted dims."""
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y),
                              self.reinterpreted_batch_ndims)

    def forward_shape(self, shape: Any) -> tuple:
        """As the base transform."""
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> tuple:
        """As the base transform."""
        return self.base_transform.inverse_shape(shape)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: the support to the unit interval."""

    bijective, codomain, sign = True, constraints.unit_interval, 1

    def __init__(self, distribution: Distribution, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:
        """The distribution's support."""
        return self.distribution.support

    def _call(self, x: TensorBase) -> TensorBase:
        return self.distribution.cdf(x)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The log-density at ``x``."""
        return self.distribution.log_prob(x)
