"""Elementwise transforms (``torch.distributions.transforms``): exp, sigmoid, tanh, softplus,
abs, power, affine, and a distribution's CDF."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ...dtypes import finfo_of
from ...nn.functional import softplus
from .. import constraints
from ..distribution import Distribution, broadcast_all
from .base import Transform, _clipped_sigmoid, _Elementwise, _same

__all__ = ["ExpTransform", "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform",
           "PowerTransform", "AffineTransform", "CumulativeDistributionTransform"]


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
        # a tensor, as PyTorch's (``sign`` is then a tensor too)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy with the cache size."""
        return self if self._cache_size == cache_size else PowerTransform(self.exponent,
                                                                           cache_size)

    @property
    def sign(self) -> Any:
        """The sign of the exponent (a tensor)."""
        return self.exponent.sign()

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
        # as PyTorch: the scale's (not x's) event dims summed, then expanded to x's batch
        # (a scale with more batch dims than x is refused by the expand)
        shape = tuple(x.shape)
        if isinstance(self.scale, TensorBase):
            result = self.scale.abs().log()
        else:
            result = _fn.full_like(x, math.log(abs(self.scale)))
        if self._event_dim:
            result = result.reshape(*result.shape[:result.ndim - self._event_dim], -1).sum(-1)
            shape = shape[:len(shape) - self._event_dim]
        return result.expand(*shape)

    def forward_shape(self, shape: Any) -> tuple:
        """Broadcast with ``loc`` and ``scale``."""
        return tuple(np.broadcast_shapes(tuple(shape), tuple(getattr(self.loc, "shape", ())),
                                         tuple(getattr(self.scale, "shape", ()))))

    inverse_shape = forward_shape


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

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy with the cache size."""
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size)

    def _call(self, x: TensorBase) -> TensorBase:
        return self.distribution.cdf(x)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The log-density at ``x``."""
        return self.distribution.log_prob(x)
