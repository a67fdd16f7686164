"""Argument handling shared by convolution and pooling: int-or-tuple arguments, unbatched input,
and constant padding of the spatial dims."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase
from ...ops.shape import pad_constant

__all__ = ["ntuple", "batched", "pad_spatial"]


def ntuple(value: Any, n: int, name: str) -> tuple:
    """``value`` as a tuple of ``n`` ints (an int is repeated); ValueError on a wrong length."""
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value}")
    return value


def batched(input: TensorBase, nd: int, op: str) -> tuple[TensorBase, bool]:
    """Add the batch dim to unbatched input (C, *spatial); says whether it was added."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim == nd + 1:
        return input.unsqueeze(0), True
    if input.ndim != nd + 2:
        raise RuntimeError(f"{op}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, "
                           f"got input of shape {tuple(input.shape)}")
    return input, False


def pad_spatial(x: TensorBase, pads: tuple, value: float = 0.0) -> TensorBase:
    """Pad the trailing spatial dims by ``pads`` = ((before, after), ...) with ``value``."""
    if not any(b or a for b, a in pads):
        return x
    return pad_constant(x, ((0, 0),) * (x.ndim - len(pads)) + tuple(pads), value)
