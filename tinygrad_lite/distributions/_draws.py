"""Random draws for samples: NumPy arrays from the package's generator, in a parameter's dtype,
wrapped as tensors (standard noise that ``rsample`` then shifts and scales)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from .utils import clamp_probs

__all__ = ["noise", "open_uniform"]


def noise(shape: tuple, like: TensorBase, draw: Any) -> TensorBase:
    """``draw(generator, shape)`` in ``like``'s dtype, as a tensor."""
    return wrap(np.asarray(draw(default_rng(), shape), dtype=like._data.dtype))


def open_uniform(shape: tuple, like: TensorBase) -> TensorBase:
    """Uniform draws in ``like``'s dtype, clamped into the open interval (0, 1)."""
    return clamp_probs(wrap(np.asarray(default_rng().random(shape), like._data.dtype)))
