"""PyTorch's random sampling names at the top level that ``tl.*``'s functions leave out:
``tl.default_generator`` and ``tl.binomial``."""

from __future__ import annotations

import numpy as np

from .dtypes import is_float_dtype
from .functions.generator import Generator, default_generator, rng_of
from .tensor import Tensor

__all__ = ["default_generator", "binomial"]


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Draws of Binomial(count, prob) per element (float tensors, in ``count``'s dtype)."""
    if not is_float_dtype(count._data.dtype):
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{count.dtype}")
    n, p = np.broadcast_arrays(count._data, prob._data)
    draws = rng_of(generator).binomial(n.astype(np.int64), np.clip(p, 0.0, 1.0))
    return Tensor(draws.astype(count._data.dtype), dtype=count.dtype)
