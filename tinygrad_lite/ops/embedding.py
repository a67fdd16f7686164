"""Embedding lookup as a primitive: the rows of a weight selected by integer indices, with
``EmbeddingBackward0`` (PyTorch's name), which scatter-adds the output gradient back into those
rows (optionally zeroing the padding row and dividing by each index's frequency)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .segment import segment_sum

__all__ = ["EmbeddingBackward0", "embedding"]


class EmbeddingBackward0(Node):
    """Scatter-add of the output gradient into the rows of the weight; ``scale`` (one factor per
    lookup, or None) zeroes the padding row and divides by the index frequency."""

    idx: np.ndarray  # flat indices
    scale: np.ndarray | None
    num_weights: int

    def backward(self, grad: Any) -> tuple:
        """The input gradients for the output gradient ``grad``."""
        dim = grad.shape[-1]
        if isinstance(grad, TensorBase):  # create_graph: the same scatter in tensor ops
            g = grad.reshape(len(self.idx), dim)  # (rows spelled out: -1 fails at size 0)
            if self.scale is not None:
                g = g * wrap(self.scale[:, None].astype(g._data.dtype))
            zeros = wrap(np.zeros((self.num_weights, dim), grad._data.dtype))
            return (zeros.index_add(0, wrap(self.idx), g),)
        g = np.reshape(grad, (-1, dim))
        if self.scale is not None:
            g = g * self.scale[:, None].astype(g.dtype)
        return (segment_sum(self.idx, g, self.num_weights),)


def embedding(weight: TensorBase, flat: np.ndarray, shape: tuple, padding_idx: int | None,
              scale_grad_by_freq: bool) -> TensorBase:
    """The rows ``flat`` (checked, non-negative indices) of the 2-D ``weight``, shaped
    ``shape + (embedding_dim,)``; the row ``padding_idx`` gets no gradient, and with
    ``scale_grad_by_freq`` each row's gradient is divided by its frequency in ``flat``."""
    n = weight.shape[0]
    out = weight._data[flat].reshape(shape + (weight.shape[1],))
    if not (grad_state.enabled and weight._requires_grad):
        return wrap(out)
    scale = None
    if scale_grad_by_freq or padding_idx is not None:
        scale = np.ones(flat.size)
        if scale_grad_by_freq:
            scale /= np.bincount(flat, minlength=n)[flat]
        if padding_idx is not None:
            scale[flat == padding_idx] = 0.0
    node = EmbeddingBackward0(weight)
    node.idx, node.scale, node.num_weights = flat, scale, n
    return wrap(out, node)
