"""Lookups of ``nn.functional``: ``embedding`` (with PyTorch's in-place ``max_norm``
renormalisation, ``padding_idx`` and ``scale_grad_by_freq``), ``embedding_bag`` (sums, means
and maxima of bags of rows) and ``one_hot``: the arguments are checked here, the lookups and
their gradients are the primitives of ``ops.embedding`` and ``ops.embedding_bag``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase, wrap
from ...ops import embedding as ops_embedding
from ...ops import embedding_bag as ops_embedding_bag

__all__ = ["embedding", "embedding_bag", "one_hot"]


_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


def _indices(input: Any, op: str) -> np.ndarray:
    idx = input._data if isinstance(input, TensorBase) else np.asarray(input)
    if idx.dtype not in _INDEX_DTYPES:  # PyTorch takes int64 and int32 indices only
        raise RuntimeError(f"{op}: Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {idx.dtype} instead")
    return idx


def _renorm_(weight: TensorBase, idx: np.ndarray, max_norm: float, norm_type: float) -> None:
    """PyTorch's ``embedding_renorm_``: the rows used whose ``norm_type``-norm exceeds
    ``max_norm`` are scaled down to it, in place and outside the graph."""
    rows = np.unique(idx)
    if not rows.size:
        return
    w = weight._data
    norms = np.linalg.norm(w[rows].astype(np.float64), ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        scale = max_norm / (norms[big] + 1e-7)
        w[rows[big]] = (w[rows[big]] * scale[:, None]).astype(w.dtype)
        weight._version_counter[0] += 1


def embedding(input: TensorBase, weight: TensorBase, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> TensorBase:
    """Rows of ``weight`` selected by the integer ``input``; the row ``padding_idx`` gets no
    gradient; ``max_norm`` renormalises the rows used in place; ``scale_grad_by_freq`` divides
    each row's gradient by its frequency in ``input``. (``sparse`` gradients are dense here.)"""
    idx = _indices(input, "embedding")
    if weight.ndim != 2:
        raise RuntimeError(f"embedding: 'weight' must be 2-D, got shape {tuple(weight.shape)}")
    n = weight.shape[0]
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise IndexError(f"embedding: index out of range in self (indices in {idx.min()}.."
                         f"{idx.max()}, num_embeddings={n})")
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx %= n
    if max_norm is not None:
        _renorm_(weight, idx, max_norm, norm_type)
    flat = idx.reshape(-1).astype(np.intp)
    return ops_embedding.embedding(weight, flat, idx.shape, padding_idx, scale_grad_by_freq)


def _bags(idx: np.ndarray, offsets: Any, include_last_offset: bool) -> tuple[np.ndarray, ...]:
    """(flat indices, bag id of each, number of bags, bag starts) from the 2-D (fixed-length
    bags) or the 1-D + offsets form."""
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        b, length = idx.shape
        return (idx.reshape(-1), np.repeat(np.arange(b), length), np.asarray(b),
                np.arange(b) * length)
    if idx.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{idx.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    off = np.asarray(offsets._data if isinstance(offsets, TensorBase) else offsets)
    if off.ndim != 1 or off.dtype.kind not in "iu":
        raise ValueError(f"offsets has to be a 1D integer Tensor, got shape {off.shape} and "
                         f"dtype {off.dtype}")
    off = off.astype(np.int64)
    if not off.size and idx.size:  # (PyTorch's kernel reads past the end here)
        raise RuntimeError(f"embedding_bag: offsets is empty, but input has {idx.size} indices; "
                           "offsets needs at least one entry, offsets[0] = 0")
    if off.size and off[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {off[0]}")
    if off.size and off[-1] > idx.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.size} but "
                           f"got offsets[-1] of {off[-1]}")
    if (np.diff(off) < 0).any():
        raise RuntimeError("embedding_bag: offsets must be non-decreasing")
    if include_last_offset:
        if not off.size:
            raise RuntimeError("embedding_bag: include_last_offset needs at least one offset")
        off = off[:-1]  # PyTorch's last bag runs to the end of the input whatever offsets[-1]
    bag_of = np.searchsorted(off, np.arange(idx.size), side="right") - 1
    return idx, bag_of, np.asarray(off.size), off


def embedding_bag(input: TensorBase, weight: TensorBase, offsets: Any = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: TensorBase | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> TensorBase:
    """Sum, mean or max of each bag of embedding rows: ``input`` is (B, L) bags or a flat
    index list cut at ``offsets``; ``padding_idx`` entries are left out; empty bags give 0."""
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    idx = _indices(input, "embedding_bag")
    if per_sample_weights is not None and per_sample_weights.dtype != weight.dtype:
        raise RuntimeError(f"embedding_bag: Expected per_sample_weights to have the same dtype as "
                           f"weight, but got {per_sample_weights.dtype} and {weight.dtype}")
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != idx.shape:
        raise ValueError(f"embedding_bag: per_sample_weights has shape "
                         f"{tuple(per_sample_weights.shape)}, expected {idx.shape}")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, {-n} "
                               f"through {n - 1}, but got {padding_idx}")
        padding_idx %= n
    flat, bag_of, n_bags_arr, _ = _bags(idx, offsets, include_last_offset)
    n_bags = int(n_bags_arr)
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        raise RuntimeError(f"embedding_bag: index out of range (indices in {flat.min()}.."
                           f"{flat.max()}, num_embeddings={n})")
    if max_norm is not None:
        _renorm_(weight, flat, max_norm, norm_type)
    if per_sample_weights is not None and per_sample_weights.ndim != 1:
        # flat as the indices; through the graph, so its gradient comes back (B, L)
        per_sample_weights = per_sample_weights.reshape(-1)
    return ops_embedding_bag.embedding_bag(weight, per_sample_weights, flat, bag_of, n_bags,
                                           padding_idx, mode, scale_grad_by_freq)


def one_hot(tensor: TensorBase, num_classes: int = -1) -> TensorBase:
    """Integer class indices as an int64 one-hot tensor with a new last dimension."""
    idx = tensor._data
    if idx.dtype != np.int64:  # PyTorch takes int64 indices only
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1 and not idx.size:
        raise RuntimeError("Can not infer total number of classes from empty tensor.")
    n = int(idx.max()) + 1 if num_classes == -1 else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"one_hot: class values must be in [0, {n}), got {idx.min()}.."
                           f"{idx.max()}")
    return wrap((idx[..., None] == np.arange(n)).astype(np.int64))
