"""Python callables applied element by element, in place: ``apply_``, ``map_`` and ``map2_``
(CPU-only and slow in PyTorch too)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions
from .._core.grad_mode import no_grad
from .._core.tensor_base import TensorBase, wrap

__all__ = ["METHODS", "PROPERTIES"]


def apply_(self: TensorBase, callable_: Any) -> TensorBase:
    """In place: ``callable_`` applied to each element (CPU only in PyTorch too; slow)."""
    if self.requires_grad:
        raise RuntimeError("apply_ is only implemented on CPU tensors that don't require grad")
    with no_grad():
        values = np.vectorize(callable_, otypes=[self._data.dtype])(self._data)
        return functions.copy_(self, wrap(values))


def map_(self: TensorBase, other: TensorBase, callable_: Any) -> TensorBase:
    """In place: ``callable_(a, b)`` over ``self`` and ``other`` (broadcast to ``self``)."""
    if self.requires_grad:
        raise RuntimeError("map_ is only implemented on CPU tensors that don't require grad")
    b = np.broadcast_to(other._data if isinstance(other, TensorBase) else other, self.shape)
    with no_grad():
        values = np.vectorize(callable_, otypes=[self._data.dtype])(self._data, b)
        return functions.copy_(self, wrap(values))


def map2_(self: TensorBase, x: TensorBase, y: TensorBase, callable: Any) -> TensorBase:  # noqa: A002
    """In place: ``callable(a, b, c)`` over ``self``, ``x`` and ``y`` (broadcast to ``self``,
    of ``self``'s dtype), element by element, as PyTorch's CPU ``map2_``."""
    if self.requires_grad:
        raise RuntimeError("Can't call map2_() on Variable that requires grad. Use "
                           "var.detach().map2_() instead.")
    args = []
    for name, other in (("x", x), ("y", y)):
        if isinstance(other, TensorBase) and other.dtype != self.dtype:
            raise TypeError(f"map2_: expected {self.type()} for argument '{name}' (got "
                            f"{other.type()})")
        data = other._data if isinstance(other, TensorBase) else np.asarray(other)
        try:
            args.append(np.broadcast_to(data, self.shape))
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor must match the existing size:"
                               f" target sizes {list(self.shape)}, tensor sizes "
                               f"{list(np.shape(data))}") from None
    with no_grad():
        values = np.vectorize(callable, otypes=[self._data.dtype])(self._data, *args)
        return functions.copy_(self, functions.tensor(values, dtype=self.dtype))


METHODS: dict[str, Any] = {f.__name__: f for f in (apply_, map_, map2_)}
PROPERTIES: dict[str, property] = {}
