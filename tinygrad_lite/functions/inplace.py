"""In-place functions (``x.add_(y)``, ``x.relu_()``, ``x[i] = v`` ...): the out-of-place function
computes the result and ``ops.inplace`` stores it (version bump, leaf check, graph rebase).
Bound as Tensor methods; ``tl.relu_`` and friends are PyTorch's in-place functions."""

from __future__ import annotations

from typing import Any, TypeVar

import numpy as np

from .._core.tensor_base import TensorBase, wrap
from ..ops import inplace
from .basic import add, exp, mul, neg, pow, relu, sub
from .indexing import masked_fill
from .nan_reductions import div
from .pointwise import clamp

__all__ = ["add_", "sub_", "mul_", "div_", "pow_", "clamp_", "clip_", "relu_", "neg_", "exp_",
           "masked_fill_", "fill_", "zero_", "copy_", "setitem"]

# In-place functions return their input itself, so its type is kept.
_TensorT = TypeVar("_TensorT", bound=TensorBase)


def _scaled(other: Any, alpha: Any) -> Any:
    """``alpha * other`` for the in-place fast path (computed without recording)."""
    if alpha == 1:
        return other
    return wrap(other._data * alpha) if isinstance(other, TensorBase) else other * alpha


def add_(input: _TensorT, other: Any, *, alpha: Any = 1) -> _TensorT:
    """In place: ``input += alpha * other``."""
    return inplace.arith(input, "add_", np.add, _scaled(other, alpha),
                         lambda s: add(s, other, alpha=alpha))


def sub_(input: _TensorT, other: Any, *, alpha: Any = 1) -> _TensorT:
    """In place: ``input -= alpha * other``."""
    return inplace.arith(input, "sub_", np.subtract, _scaled(other, alpha),
                         lambda s: sub(s, other, alpha=alpha))


def mul_(input: _TensorT, other: Any) -> _TensorT:
    """In place: ``input *= other``."""
    return inplace.arith(input, "mul_", np.multiply, other, lambda s: mul(s, other))


def div_(input: _TensorT, other: Any, *, rounding_mode: str | None = None) -> _TensorT:
    """In place: ``input /= other`` (float tensors only, as the result is float; with a
    ``rounding_mode``, integer tensors too)."""
    if rounding_mode is not None:
        return inplace.apply(input, "div_", lambda s: div(s, other, rounding_mode=rounding_mode))
    return inplace.arith(input, "div_", np.divide, other, lambda s: div(s, other))


def pow_(input: _TensorT, exponent: Any) -> _TensorT:
    """In place: ``input **= exponent``."""
    return inplace.arith(input, "pow_", np.power, exponent, lambda s: pow(s, exponent))


def clamp_(input: _TensorT, min: Any = None, max: Any = None) -> _TensorT:  # noqa: A002
    """In place: limit to ``[min, max]``."""
    return inplace.apply(input, "clamp_", lambda s: clamp(s, min, max))


clip_ = clamp_


def relu_(input: _TensorT) -> _TensorT:
    """In place: ``max(input, 0)``."""
    return inplace.apply(input, "relu_", relu)


def neg_(input: _TensorT) -> _TensorT:
    """In place: ``-input``."""
    return inplace.apply(input, "neg_", neg)


def exp_(input: _TensorT) -> _TensorT:
    """In place: ``exp(input)``."""
    return inplace.apply(input, "exp_", exp)


def masked_fill_(input: _TensorT, mask: Any, value: Any) -> _TensorT:
    """In place: ``value`` where ``mask`` is true."""
    return inplace.apply(input, "masked_fill_", lambda s: masked_fill(s, mask, value))


def fill_(input: _TensorT, value: Any) -> _TensorT:
    """In place: every element set to ``value`` (a number or a 0-dim tensor)."""
    return inplace.fill(input, value, "fill_")


def zero_(input: _TensorT) -> _TensorT:
    """In place: every element set to 0."""
    return inplace.fill(input, 0, "zero_")


def copy_(input: _TensorT, src: Any) -> _TensorT:
    """In place: the values of ``src`` (broadcast, converted to this dtype)."""
    return inplace.copy(input, src)


def setitem(input: TensorBase, index: Any, value: Any) -> None:
    """``input[index] = value`` (``Tensor.__setitem__``)."""
    inplace.setitem(input, index, value)
