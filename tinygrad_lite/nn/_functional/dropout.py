"""Dropout of ``nn.functional``."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase, wrap
from ...functions import creation

__all__ = ["dropout"]


def dropout(input: TensorBase, p: float = 0.5, training: bool = True, inplace: bool = False
            ) -> TensorBase:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; with
    ``inplace=True`` the input itself is multiplied (and returned)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    keep = creation.default_rng().random(input.shape) >= p
    scale = wrap((keep / (1.0 - p)).astype(input._data.dtype))
    return input.mul_(scale) if inplace else input * scale
