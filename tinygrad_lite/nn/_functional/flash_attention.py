"""Memory-efficient attention of ``nn.functional``: ``flash_attention``, exact attention in
tiles without the T x T matrices, which ``scaled_dot_product_attention`` uses for long sequences.
The arguments (mask, scale, dropout seed) are prepared here; the algorithm and its backward are
the primitive ``ops.flash_attention`` (see its docstring)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase
from ...functions.creation import default_rng
from ...ops import flash_attention as ops_flash_attention
from ...tensor import Tensor

__all__ = ["flash_attention", "BLOCK"]

BLOCK = 128  # rows of a query or key block: a (128 x 64) float32 block is 32 KB, L1/L2-sized


def flash_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Any = None,
                    dropout_p: float = 0.0, is_causal: bool = False,
                    scale: float | None = None, block: int = BLOCK,
                    generator: Any = None) -> TensorBase:
    """Exact attention in tiles (see the module docstring); same arguments and results as
    ``scaled_dot_product_attention``, without the T x T matrices."""
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    mask = None
    if attn_mask is not None:
        mask = attn_mask.detach().numpy() if isinstance(attn_mask, Tensor) else np.asarray(
            attn_mask)
        if mask.dtype != np.bool_:
            mask = mask.astype(query.detach().numpy().dtype)
    seed = 0
    if dropout_p > 0.0:  # drawn from the library's generator: tl.manual_seed reproduces it
        seed = int((generator or default_rng()).integers(0, 2**62))
    return ops_flash_attention.flash_attention(query, key, value, mask, bool(is_causal), scale,
                                               float(dropout_p), seed, int(block))
