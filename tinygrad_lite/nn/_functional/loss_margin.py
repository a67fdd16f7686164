"""Margin and ranking losses of ``nn.functional``: margin ranking, hinge embedding, soft margin,
cosine embedding, triplet, and the multi-class and multi-label margin losses. Each is composed
from existing ops (gradients for free) and takes PyTorch's ``reduction``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ...ops.elementwise import bfloat16_in_float32
from .activation import softplus
from .distance import pairwise_distance
from .loss import _reduce, legacy_reduction

__all__ = ["margin_ranking_loss", "hinge_embedding_loss", "soft_margin_loss",
           "cosine_embedding_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss",
           "multilabel_soft_margin_loss", "multi_margin_loss", "multilabel_margin_loss"]


@bfloat16_in_float32
def margin_ranking_loss(input1: TensorBase, input2: TensorBase, target: TensorBase,
                        margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> TensorBase:
    """``max(0, -target * (input1 - input2) + margin)``."""
    loss = (-target * (input1 - input2) + margin).clamp(min=0.0)
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss, reduction, "margin_ranking_loss")


@bfloat16_in_float32
def hinge_embedding_loss(input: TensorBase, target: TensorBase, margin: float = 1.0,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> TensorBase:
    """``x`` where the target is 1, ``max(0, margin - x)`` where it is -1 (PyTorch's formula:
    other target values get both terms)."""
    loss = _fn.where(target != -1, input, 0.0) + _fn.where(
        target != 1, (margin - input).clamp(min=0.0), 0.0)
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss, reduction, "hinge_embedding_loss")


@bfloat16_in_float32
def soft_margin_loss(input: TensorBase, target: TensorBase, size_average: Any = None,
                     reduce: Any = None, reduction: str = "mean") -> TensorBase:
    """``log(1 + exp(-target * input))``."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(softplus(-target * input), reduction, "soft_margin_loss")


@bfloat16_in_float32
def cosine_embedding_loss(input1: TensorBase, input2: TensorBase, target: TensorBase,
                          margin: float = 0.0, size_average: Any = None, reduce: Any = None,
                          reduction: str = "mean") -> TensorBase:
    """``1 - cos(x1, x2)`` for target 1, ``max(0, cos(x1, x2) - margin)`` for -1."""
    if target.ndim > 1:  # PyTorch: one target per pair of rows, no (N, 1) or batched forms
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    # PyTorch's own formula here (not cosine_similarity's): 1e-12 added to each squared norm
    dot = (input1 * input2).sum(-1)
    squared1 = (input1 * input1).sum(-1) + 1e-12
    squared2 = (input2 * input2).sum(-1) + 1e-12
    cos = dot / (squared1 * squared2).sqrt()
    loss = _fn.where(target == 1, 1.0 - cos, (cos - margin).clamp(min=0.0))
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss, reduction, "cosine_embedding_loss")


@bfloat16_in_float32
def triplet_margin_loss(anchor: TensorBase, positive: TensorBase, negative: TensorBase,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, size_average: Any = None, reduce: Any = None,
                        reduction: str = "mean") -> TensorBase:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the p-norm distance."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")

    def distance(a: TensorBase, b: TensorBase) -> TensorBase:
        return pairwise_distance(a, b, p, eps)

    return triplet_margin_with_distance_loss(
        anchor, positive, negative, distance_function=distance, margin=margin, swap=swap,
        reduction=legacy_reduction(size_average, reduce, reduction))


@bfloat16_in_float32
def triplet_margin_with_distance_loss(anchor: TensorBase, positive: TensorBase,
                                      negative: TensorBase, *, distance_function: Any = None,
                                      margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> TensorBase:
    """The triplet loss with any distance (default: pairwise_distance)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError(
            f"The anchor, positive, and negative tensors are expected to have the same number "
            f"of dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and "
            f"negative {negative.ndim}D inputs")
    dist = distance_function or pairwise_distance
    d_pos, d_neg = dist(anchor, positive), dist(anchor, negative)
    if swap:
        d_neg = _fn.minimum(d_neg, dist(positive, negative))
    loss = (d_pos - d_neg + margin).clamp(min=0.0)
    return _reduce(loss, reduction, "triplet_margin_loss")


@bfloat16_in_float32
def multilabel_soft_margin_loss(input: TensorBase, target: TensorBase,
                                weight: TensorBase | None = None, size_average: Any = None,
                                reduce: Any = None, reduction: str = "mean") -> TensorBase:
    """Binary cross-entropy with logits per class, averaged over classes."""
    loss = target * softplus(-input) + (1 - target) * softplus(input)
    if weight is not None:
        loss = loss * weight
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss.mean(-1), reduction, "multilabel_soft_margin_loss")


def _check_vector_or_matrix(input: TensorBase) -> None:
    """The multi-class margin losses take a scalar, a non-empty (C,) vector or an (N, C)
    matrix with C > 0 (N may be 0), as PyTorch's kernels do."""
    if not (input.ndim == 0 or (input.ndim == 1 and input.numel())
            or (input.ndim == 2 and input.shape[1])):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch "
                           f"size, but got: {list(input.shape)}")


@bfloat16_in_float32
def multi_margin_loss(input: TensorBase, target: TensorBase, p: int = 1, margin: float = 1.0,
                      weight: TensorBase | None = None, size_average: Any = None,
                      reduce: Any = None, reduction: str = "mean") -> TensorBase:
    """Multi-class hinge loss: ``sum_{i != y} max(0, margin - x[y] + x[i])^p / C``."""
    if p not in (1, 2):
        raise ValueError("multi_margin_loss: only p == 1 and p == 2 supported")
    if weight is not None:
        if weight.ndim != 1:
            raise ValueError("weight must be one-dimensional")
        classes = input.shape[-1] if input.ndim else 1
        if weight.shape[0] != classes:
            raise RuntimeError(f"inconsistent weight size, expected {classes} but got "
                               f"{list(weight.shape)}")
    _check_vector_or_matrix(input)
    x = input if input.ndim == 2 else input.reshape(1, -1)  # a scalar is one sample, one class
    y = target.reshape(-1, 1)
    t = target._data
    if t.size != x.shape[0] or (t.size and (t.min() < 0 or t.max() >= x.shape[1])):
        raise RuntimeError(f"multi_margin_loss: target out of range or of the wrong size "
                           f"(target {tuple(target.shape)}, input {tuple(input.shape)})")
    correct = x.gather(1, y)
    # a hinge exactly at 0 passes no gradient (PyTorch's kernel tests z > 0)
    margins = _fn.relu(margin - correct + x)
    if p == 2:
        margins = margins * margins
    if weight is not None:
        margins = margins * weight[target.reshape(-1)].reshape(-1, 1)
    not_target = _fn.arange(x.shape[1]).reshape(1, -1) != y
    loss = _fn.where(not_target, margins, 0.0).sum(1) / x.shape[1]
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss if input.ndim == 2 else loss.reshape(()), reduction, "multi_margin_loss")


@bfloat16_in_float32
def multilabel_margin_loss(input: TensorBase, target: TensorBase, size_average: Any = None,
                           reduce: Any = None, reduction: str = "mean") -> TensorBase:
    """For each sample, ``sum_{j in targets, i not in targets} max(0, 1 - (x[j] - x[i])) / C``;
    the target lists class indices, ended by the first -1."""
    _check_vector_or_matrix(input)
    x = input if input.ndim == 2 else input.reshape(1, -1)  # a scalar is one sample, one class
    t = np.asarray(target._data if isinstance(target, TensorBase) else target)
    if t.shape != tuple(input.shape):
        raise RuntimeError(f"multilabel_margin_loss: inconsistent target size: {list(t.shape)} "
                           f"for input of size: {list(input.shape)}")
    t = t.reshape(x.shape)
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"multilabel_margin_loss: expected an integer target, got {t.dtype}")
    n, c = x.shape
    if t.size and t.max() >= c:
        raise RuntimeError(f"multilabel_margin_loss: target index {t.max()} out of range for "
                           f"{c} classes")
    # the labels of a row are its entries before the first -1 (duplicates count twice)
    valid = np.cumprod(t >= 0, axis=1).astype(bool)
    counts = np.zeros((n, c))
    rows = np.broadcast_to(np.arange(n)[:, None], t.shape)
    np.add.at(counts, (rows[valid], t[valid]), 1.0)
    # pairs (label j, non-label i): counts[n, j] * [i is not a label]
    pair_w = counts[:, :, None] * (counts == 0)[:, None, :]
    hinge = _fn.relu(1.0 - x.unsqueeze(2) + x.unsqueeze(1))  # no gradient at 0, as PyTorch
    loss = (hinge * wrap(pair_w.astype(x._data.dtype))).sum((1, 2)) / c
    reduction = legacy_reduction(size_average, reduce, reduction)
    return _reduce(loss if input.ndim == 2 else loss.reshape(()), reduction,
                   "multilabel_margin_loss")
