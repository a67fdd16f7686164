"""The Transform base class, its inverse and composition (``torch.distributions.transforms``):
a transform maps x to y = t(x), inverts it (``t.inv``) and gives ``log |dy/dx|``
(``log_abs_det_jacobian``), summed over ``event_dim`` dims."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ...dtypes import finfo_of
from .. import constraints

__all__ = ["Transform", "ComposeTransform", "identity_transform"]


def _sum_rightmost(value: Any, dim: int) -> Any:
    """``value`` summed over its last ``dim`` dims (numbers pass through)."""
    if dim <= 0 or not isinstance(value, TensorBase):
        return value
    return value.reshape(*value.shape[:value.ndim - dim], -1).sum(-1)


def _clipped_sigmoid(x: TensorBase) -> TensorBase:
    # keeps the result strictly inside (0, 1) so that the inverse stays finite
    finfo = finfo_of(x._data.dtype)
    return x.sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))


def _same(a: Any, b: Any) -> bool:
    """Whether two parameters (numbers or tensors) are equal everywhere."""
    if isinstance(a, TensorBase) or isinstance(b, TensorBase):
        da = a._data if isinstance(a, TensorBase) else a
        db = b._data if isinstance(b, TensorBase) else b
        return bool(np.all(np.asarray(da) == np.asarray(db)))
    return bool(a == b)


class Transform:
    """Base class: an invertible (or not) map with a log-Jacobian; ``cache_size=1`` remembers
    the last ``(x, y)`` pair so that ``inv(t(x))`` returns ``x`` exactly."""

    bijective = False
    domain: Any = constraints.real
    codomain: Any = constraints.real

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._cached: tuple | None = None
        self._inverse_transform: Transform | None = None

    @property
    def event_dim(self) -> int:
        """The number of rightmost dims one event spans (domain and codomain must agree)."""
        if self.domain.event_dim == self.codomain.event_dim:
            return int(self.domain.event_dim)
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def sign(self) -> Any:
        """+1 or -1: whether the (monotone, bijective) map increases or decreases."""
        raise NotImplementedError

    @property
    def inv(self) -> Transform:
        """The inverse transform (``inv(t)(y) = x``)."""
        if self._inverse_transform is None:
            self._inverse_transform = _InverseTransform(self)
        return self._inverse_transform

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy of this transform that caches its last call (built anew when the class
        takes no other arguments; a class with parameters overrides this)."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    __hash__ = object.__hash__

    def __call__(self, x: TensorBase) -> TensorBase:
        """``y = t(x)``."""
        if self._cache_size == 0:
            return self._call(x)
        if self._cached is not None and self._cached[0] is x:
            return self._cached[1]
        y = self._call(x)
        self._cached = (x, y)
        return y

    def _inv_call(self, y: TensorBase) -> TensorBase:
        if self._cache_size == 0:
            return self._inverse(y)
        if self._cached is not None and self._cached[1] is y:
            return self._cached[0]
        x = self._inverse(y)
        self._cached = (x, y)
        return x

    def _call(self, x: TensorBase) -> TensorBase:
        raise NotImplementedError

    def _inverse(self, y: TensorBase) -> TensorBase:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """``log |dy/dx|`` (summed over the event dims)."""
        raise NotImplementedError

    def forward_shape(self, shape: Any) -> tuple:
        """The output shape for an input of ``shape``."""
        return tuple(shape)

    def inverse_shape(self, shape: Any) -> tuple:
        """The input shape for an output of ``shape``."""
        return tuple(shape)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _InverseTransform(Transform):
    """``t.inv``: the same transform run backwards."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def domain(self) -> Any:
        """The codomain of the forward transform."""
        return self._inv.codomain

    @property
    def codomain(self) -> Any:
        """The domain of the forward transform."""
        return self._inv.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """As the forward transform."""
        return self._inv.bijective

    @property
    def sign(self) -> Any:
        """As the forward transform."""
        return self._inv.sign

    @property
    def inv(self) -> Transform:
        """The forward transform."""
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The inverse of the forward transform with that cache."""
        return self._inv.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._inv == other._inv

    __hash__ = object.__hash__

    def __call__(self, x: TensorBase) -> TensorBase:
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """Minus the forward transform's, at ``(y, x)``."""
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape: Any) -> tuple:
        """The forward transform's inverse shape."""
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> tuple:
        """The forward transform's forward shape."""
        return self._inv.forward_shape(shape)

    def __repr__(self) -> str:
        return f"_InverseTransform({self._inv!r})"


class ComposeTransform(Transform):
    """``parts`` applied in order (the empty composition is the identity)."""

    def __init__(self, parts: list, cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    __hash__ = object.__hash__

    @property
    def domain(self) -> Any:
        """The first part's domain, widened to the largest event any part needs."""
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @property
    def codomain(self) -> Any:
        """The last part's codomain, widened likewise."""
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        """Whether every part is."""
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        """The product of the parts' signs."""
        sign: Any = 1
        for part in self.parts:
            sign = sign * part.sign
        return sign

    @property
    def inv(self) -> Transform:
        """The parts inverted, in reverse order."""
        if self._inverse_transform is None:
            inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
            inverse._inverse_transform = self
            self._inverse_transform = inverse
        return self._inverse_transform

    def with_cache(self, cache_size: int = 1) -> Transform:
        """The composition with every part caching."""
        return self if self._cache_size == cache_size else ComposeTransform(self.parts,
                                                                             cache_size)

    def __call__(self, x: TensorBase) -> TensorBase:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """The parts' log-Jacobians at their intermediate values, summed to one event."""
        if not self.parts:
            return _fn.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        total: Any = 0
        event_dim = self.domain.event_dim
        for part, xi, yi in zip(self.parts, xs[:-1], xs[1:]):
            total = total + _sum_rightmost(part.log_abs_det_jacobian(xi, yi),
                                           event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total

    def forward_shape(self, shape: Any) -> tuple:
        """Through every part."""
        for part in self.parts:
            shape = part.forward_shape(shape)
        return tuple(shape)

    def inverse_shape(self, shape: Any) -> tuple:
        """Back through every part."""
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return tuple(shape)

    def __repr__(self) -> str:
        return "ComposeTransform(\n    " + ",\n    ".join(map(repr, self.parts)) + "\n)"


identity_transform = ComposeTransform([])


class _Elementwise(Transform):
    """A transform whose instances of one class are all equal (no parameters)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, type(self))

    __hash__ = object.__hash__
