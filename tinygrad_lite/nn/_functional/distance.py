"""Distances of ``nn.functional``: ``cosine_similarity``, ``pairwise_distance`` and ``pdist``,
composed from existing ops (gradients for free)."""

from __future__ import annotations

import numpy as np

from ..._core.tensor_base import TensorBase
from ...functions.linalg.norms import vector_norm
from ...ops.elementwise import bfloat16_in_float32

__all__ = ["cosine_similarity", "pairwise_distance", "pdist"]


@bfloat16_in_float32
def cosine_similarity(x1: TensorBase, x2: TensorBase, dim: int = 1,
                      eps: float = 1e-8) -> TensorBase:
    """``(x1 / max(|x1|, eps)) . (x2 / max(|x2|, eps))`` along ``dim`` (broadcasting), as
    PyTorch computes it: each norm is raised to ``eps`` on its own, and its gradient flows as
    if it were not (PyTorch clamps the norms in place without recording it)."""
    n1 = vector_norm(x1, 2, dim, True)
    n2 = vector_norm(x2, 2, dim, True)
    n1 = n1 + (n1.clamp(min=eps) - n1).detach()
    n2 = n2 + (n2.clamp(min=eps) - n2).detach()
    return ((x1 / n1) * (x2 / n2)).sum(dim)


@bfloat16_in_float32
def pairwise_distance(x1: TensorBase, x2: TensorBase, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> TensorBase:
    """The p-norm of ``x1 - x2 + eps`` along the last dim."""
    return (x1 - x2 + eps).norm(p, -1, keepdim)


@bfloat16_in_float32
def pdist(input: TensorBase, p: float = 2.0) -> TensorBase:
    """The p-norm distances between all pairs of rows (i < j), in row-major order."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    rows, cols = np.triu_indices(input.shape[0], 1)
    if not rows.size:
        return input.new_zeros(0)
    diff = input[rows] - input[cols]
    return diff.norm(p, -1)
