"""PyTorch's ``torch.distributions.utils``: the helpers custom distributions are written with
(broadcasting parameters, converting between probabilities and logits, clamping probabilities,
lower-triangular matrices as vectors and back, cached properties)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import finfo_of
from .distribution import broadcast_all

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits", "lazy_property",
           "tril_matrix_to_vec", "vec_to_tril_matrix"]


def logits_to_probs(logits: TensorBase, is_binary: bool = False) -> TensorBase:
    """Probabilities from logits: a sigmoid each (``is_binary``), else a softmax over the
    last dim."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def clamp_probs(probs: TensorBase) -> TensorBase:
    """Probabilities clamped to ``[eps, 1 - eps]`` (so their logs and logits stay finite)."""
    eps = float(finfo_of(probs._data.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: TensorBase, is_binary: bool = False) -> TensorBase:
    """Logits from probabilities (clamped away from 0 and 1 first): ``log p - log(1 - p)``
    each (``is_binary``), else ``log p``."""
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()


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


class lazy_property:  # noqa: N801 - PyTorch's name; used as a decorator
    """A property computed on first access and then stored in the instance (which may also
    set it beforehand: a distribution built from ``probs`` sets them, ``logits`` follow)."""

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped, self.__doc__ = wrapped, wrapped.__doc__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value
