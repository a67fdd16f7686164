"""PyTorch's ``torch.distributions.utils``: the helpers custom distributions are written with
(broadcasting parameters, converting between probabilities and logits, cached properties)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core.tensor_base import TensorBase
from .distribution import broadcast_all
from .relaxed import clamp_probs
from .transforms_extra import tril_matrix_to_vec, vec_to_tril_matrix

__all__ = ["broadcast_all", "logits_to_probs", "clamp_probs", "probs_to_logits",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix"]


def logits_to_probs(logits: TensorBase, is_binary: bool = False) -> TensorBase:
    """Probabilities from logits: a sigmoid each (``is_binary``), else a softmax over the
    last dim."""
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def probs_to_logits(probs: TensorBase, is_binary: bool = False) -> TensorBase:
    """Logits from probabilities (clamped away from 0 and 1 first): ``log p - log(1 - p)``
    each (``is_binary``), else ``log p``."""
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()


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
