"""Lookups of ``nn.functional``: ``embedding`` and ``one_hot``."""

from __future__ import annotations

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap

__all__ = ["embedding", "one_hot"]


def embedding(input: TensorBase, weight: TensorBase, padding_idx: int | None = None,
              max_norm: float | None = None) -> TensorBase:
    """Rows of ``weight`` selected by the integer ``input``; the row ``padding_idx`` gets no
    gradient."""
    idx = input._data if isinstance(input, TensorBase) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"embedding: indices must be integers, got {idx.dtype}")
    n = weight.shape[0]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"embedding: index out of range (indices in {idx.min()}..{idx.max()}, "
                         f"num_embeddings={n})")
    if max_norm is not None:
        raise NotImplementedError("embedding: max_norm is not supported")
    out = weight[idx]
    if padding_idx is None:
        return out
    pad_idx = padding_idx % n
    mask = wrap((idx != pad_idx)[..., None])
    return _fn.where(mask, out, weight.detach()[idx])


def one_hot(tensor: TensorBase, num_classes: int = -1) -> TensorBase:
    """Integer class indices as an int64 one-hot tensor with a new last dimension."""
    idx = tensor._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of integer dtype")
    n = int(idx.max()) + 1 if num_classes == -1 else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"one_hot: class values must be in [0, {n}), got {idx.min()}.."
                           f"{idx.max()}")
    return wrap((idx[..., None] == np.arange(n)).astype(np.int64))
