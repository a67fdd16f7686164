"""Transforms onto the simplex (``torch.distributions.transforms``): softmax (not injective)
and stick breaking (bijective)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ...dtypes import finfo_of
from ...nn.functional import logsigmoid
from .. import constraints
from .base import _clipped_sigmoid, _Elementwise

__all__ = ["SoftmaxTransform", "StickBreakingTransform"]


class SoftmaxTransform(_Elementwise):
    """``y = softmax(x)`` over the last dim (not injective: the inverse is ``log y``)."""

    domain, codomain = constraints.real_vector, constraints.simplex

    def _call(self, x: TensorBase) -> TensorBase:
        probs = (x - x.max(-1, keepdim=True)[0]).exp()
        return probs / probs.sum(-1, keepdim=True)

    def _inverse(self, y: TensorBase) -> TensorBase:
        return y.log()

    def forward_shape(self, shape: Any) -> tuple:
        """The same shape (at least one dim)."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape)

    inverse_shape = forward_shape


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
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] + 1,)

    def inverse_shape(self, shape: Any) -> tuple:
        """One entry fewer in the last dim."""
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return tuple(shape[:-1]) + (shape[-1] - 1,)
