"""Transforms of event shape (``torch.distributions.transforms``): reshaping the rightmost dims,
and reinterpreting batch dims of another transform as event dims."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.size import Size
from ..._core.tensor_base import TensorBase
from .. import constraints
from .base import Transform, _sum_rightmost

__all__ = ["ReshapeTransform", "IndependentTransform"]


class ReshapeTransform(Transform):
    """The rightmost ``in_shape`` dims reshaped to ``out_shape``."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape, self.out_shape = Size(in_shape), Size(out_shape)
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

    # (equality is identity, as PyTorch's: it defines no __eq__ for this transform)

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy with the cache size."""
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size)

    def _call(self, x: TensorBase) -> TensorBase:
        return x.reshape(*x.shape[:x.ndim - len(self.in_shape)], *self.out_shape)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.reshape(*y.shape[:y.ndim - len(self.out_shape)], *self.in_shape)

    def log_abs_det_jacobian(self, x: TensorBase, y: TensorBase) -> TensorBase:
        """Zero (a reshape preserves volume)."""
        return _fn.zeros(tuple(x.shape[:x.ndim - len(self.in_shape)]), dtype=x.dtype)

    def forward_shape(self, shape: Any) -> tuple:
        """``shape`` with its ``in_shape`` tail replaced by ``out_shape``."""
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        if tuple(shape[len(shape) - len(self.in_shape):]) != self.in_shape:
            raise ValueError(f"Shape mismatch: expected {self.in_shape} at the end of {shape}")
        return tuple(shape[:len(shape) - len(self.in_shape)]) + self.out_shape

    def inverse_shape(self, shape: Any) -> tuple:
        """``shape`` with its ``out_shape`` tail replaced by ``in_shape``."""
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
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

    def with_cache(self, cache_size: int = 1) -> Transform:
        """A copy with the cache size (its base transform caching too)."""
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size)

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

    # (equality is identity, as PyTorch's: it defines no __eq__ for this transform)

    def _call(self, x: TensorBase) -> TensorBase:
        if x.ndim < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: TensorBase) -> TensorBase:
        if y.ndim < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
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

    def __repr__(self) -> str:
        return f"IndependentTransform({self.base_transform!r}, {self.reinterpreted_batch_ndims})"
