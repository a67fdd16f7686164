"""In-place functions (``x.add_(y)``, ``x.relu_()``, ``x[i] = v`` ...): the out-of-place function
computes the result and ``ops.inplace`` stores it (version bump, leaf check, graph rebase).
Bound as Tensor methods; ``tl.relu_`` and friends are PyTorch's in-place functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase, wrap
from ..ops import inplace
from .basic import add, div, exp, mul, neg, pow, relu, sub
from .indexing import masked_fill
from .pointwise import clamp

__all__ = ["add_", "sub_", "mul_", "div_", "pow_", "clamp_", "clip_", "relu_", "neg_", "exp_",
           "masked_fill_", "fill_", "zero_", "copy_", "setitem"]


def _scaled(other: Any, alpha: Any) -> Any:
    """``alpha * other`` for the in-place fast path (computed without recording)."""
    if alpha == 1:
        return other
    return wrap(other._data * alpha) if isinstance(other, TensorBase) else other * alpha


def add_(input: TensorBase, other: Any, *, alpha: Any = 1) -> TensorBase:
    """In place: ``input += alpha * other``."""
    return inplace.arith(input, "add_", np.add, _scaled(other, alpha),
                         lambda s: add(s, other, alpha=alpha))


def sub_(input: TensorBase, other: Any, *, alpha: Any = 1) -> TensorBase:
    """In place: ``input -= alpha * other``."""
    return inplace.arith(input, "sub_", np.subtract, _scaled(other, alpha),
                         lambda s: sub(s, other, alpha=alpha))


def mul_(input: TensorBase, other: Any) -> TensorBase:
    """In place: ``input *= other``."""
    return inplace.arith(input, "mul_", np.multiply, other, lambda s: mul(s, other))


def div_(input: TensorBase, other: Any) -> TensorBase:
    """In place: ``input /= other`` (float tensors only, as the result is float)."""
    return inplace.arith(input, "div_", np.divide, other, lambda s: div(s, other))


def pow_(input: TensorBase, exponent: Any) -> TensorBase:
    """In place: ``input **= exponent``."""
    return inplace.arith(input, "pow_", np.power, exponent, lambda s: pow(s, exponent))


def clamp_(input: TensorBase, min: Any = None, max: Any = None) -> TensorBase:  # noqa: A002
    """In place: limit to ``[min, max]``."""
    return inplace.apply(input, "clamp_", lambda s: clamp(s, min, max))


clip_ = clamp_


def relu_(input: TensorBase) -> TensorBase:
    """In place: ``max(input, 0)``."""
    return inplace.apply(input, "relu_", relu)


def neg_(input: TensorBase) -> TensorBase:
    """In place: ``-input``."""
    return inplace.apply(input, "neg_", neg)


def exp_(input: TensorBase) -> TensorBase:
    """In place: ``exp(input)``."""
    return inplace.apply(input, "exp_", exp)


def masked_fill_(input: TensorBase, mask: Any, value: Any) -> TensorBase:
    """In place: ``value`` where ``mask`` is true."""
    return inplace.apply(input, "masked_fill_", lambda s: masked_fill(s, mask, value))


def fill_(input: TensorBase, value: Any) -> TensorBase:
    """In place: every element set to ``value`` (a number or a 0-dim tensor)."""
    return inplace.fill(input, value, "fill_")


def zero_(input: TensorBase) -> TensorBase:
    """In place: every element set to 0."""
    return inplace.fill(input, 0, "zero_")


def copy_(input: TensorBase, src: Any) -> TensorBase:
    """In place: the values of ``src`` (broadcast, converted to this dtype)."""
    return inplace.copy(input, src)


def setitem(input: TensorBase, index: Any, value: Any) -> None:
    """``input[index] = value`` (``Tensor.__setitem__``)."""
    inplace.setitem(input, index, value)
