"""Lookups of ``nn.functional``: ``embedding`` (with PyTorch's in-place ``max_norm``
renormalisation, ``padding_idx`` and ``scale_grad_by_freq``), ``embedding_bag`` (sums, means
and maxima of bags of rows, vectorised with segment reductions) and ``one_hot``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.grad_mode import grad_state
from ..._core.graph import Node
from ..._core.tensor_base import TensorBase, wrap
from ..._core.tracing import call_as_one_op

__all__ = ["embedding", "embedding_bag", "one_hot", "segment_sum"]


def _indices(input: Any, op: str) -> np.ndarray:
    idx = input._data if isinstance(input, TensorBase) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got {idx.dtype} instead")
    return idx


def _ranks(groups: np.ndarray) -> np.ndarray:
    """The position of each entry within its run of equal values in the sorted ``groups``."""
    k = groups.size
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    return np.arange(k) - np.repeat(starts, np.diff(np.r_[starts, k]))


def segment_sum(rows: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """``out[r] = sum of values[k] with rows[k] == r`` for r < n. The entries are sorted by row
    and added in passes, one per repeat (each pass a duplicate-free fancy-index add), 3-6x
    faster than ``np.add.at``; heavily repeated rows use one ``reduceat`` instead. (Its work
    depends on the data: tl.compile replays it as one op.)"""
    return call_as_one_op(_segment_sum, rows, values, n)


def _segment_sum(rows: np.ndarray, values: np.ndarray, n: int) -> np.ndarray:
    """``segment_sum`` on plain arrays."""
    out = np.zeros((n,) + values.shape[1:], values.dtype)
    if not rows.size:
        return out
    order = np.argsort(rows, kind="stable")
    srt, vals = rows[order], values[order]
    rank = _ranks(srt)
    if rank.max() >= 16:
        starts = np.flatnonzero(rank == 0)
        out[srt[starts]] = np.add.reduceat(vals, starts, axis=0)
        return out
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        out[srt[sel]] += vals[sel]
    return out


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
            g = grad.reshape(-1, dim)
            if self.scale is not None:
                g = g * wrap(self.scale[:, None].astype(g._data.dtype))
            zeros = _fn.zeros(self.num_weights, dim, dtype=grad.dtype)
            return (zeros.index_add(0, wrap(self.idx), g),)
        g = np.reshape(grad, (-1, dim))
        if self.scale is not None:
            g = g * self.scale[:, None].astype(g.dtype)
        return (segment_sum(self.idx, g, self.num_weights),)


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
    out = weight._data[flat].reshape(idx.shape + (weight.shape[1],))
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


class EmbeddingBagBackward0(Node):
    """Gradient of ``embedding_bag`` for the weight and the per-sample weights: the bag's
    gradient is spread over its rows (sum, mean) or given to each column's maximum (max)."""

    mode: str
    flat: np.ndarray  # the row looked up by each kept entry
    bag: np.ndarray  # the bag of each kept entry
    keep: np.ndarray  # the kept entries (not padding) among all of ``input``
    scale: np.ndarray  # per kept entry: 1 / bag size (mean) times 1 / frequency (if asked)
    psw: np.ndarray | None  # per kept entry, or None
    winner: np.ndarray  # max: (bags, D) kept-entry index of each maximum, -1 for empty bags
    num_weights: int

    def backward(self, grad: Any) -> tuple:
        """The input gradients for the output gradient ``grad``."""
        weight = self.saved_tensors[0]
        if isinstance(grad, TensorBase):
            return self._tensor_backward(grad, weight)
        dim = grad.shape[1]
        if self.mode == "max":
            has = self.winner >= 0
            rows = self.flat[np.where(has, self.winner, 0)] * dim + np.arange(dim)
            out = np.zeros(self.num_weights * dim, grad.dtype)
            np.add.at(out, rows[has], (grad * self.scale_max()).astype(grad.dtype)[has])
            return self._result(out.reshape(self.num_weights, dim), None)
        g_rows = grad[self.bag] * self.scale[:, None].astype(grad.dtype)
        g_psw = None
        if self.psw is not None:  # the weight's rows are scaled whether or not psw needs grad
            if self.next_edges[1] is not None:
                g_psw = np.zeros(self.keep.size, grad.dtype)
                g_psw[self.keep] = (g_rows * weight[self.flat]).sum(1)
            g_rows = g_rows * self.psw[:, None]
        return self._result(segment_sum(self.flat, g_rows, self.num_weights), g_psw)

    def _result(self, g_weight: Any, g_psw: Any) -> tuple:
        """One gradient per input (the per-sample weights are an input only when given)."""
        return (g_weight,) if len(self.next_edges) == 1 else (g_weight, g_psw)

    def scale_max(self) -> np.ndarray:
        """Per (bag, column): the frequency scale of the winning row (1 without it)."""
        return self.scale[np.maximum(self.winner, 0)]

    def _tensor_backward(self, grad: TensorBase, weight: TensorBase) -> tuple:
        """The same rules in tensor ops (create_graph)."""
        dim = grad.shape[1]
        zeros = _fn.zeros(self.num_weights, dim, dtype=grad.dtype)
        if self.mode == "max":
            has = self.winner >= 0
            rows = self.flat[np.where(has, self.winner, 0)] * dim + np.arange(dim)
            g = grad * wrap((has * self.scale_max()).astype(grad._data.dtype))
            flat = zeros.reshape(-1).index_add(0, wrap(rows.reshape(-1)), g.reshape(-1))
            return self._result(flat.reshape(self.num_weights, dim), None)
        g_rows = grad[wrap(self.bag)] * wrap(self.scale[:, None].astype(grad._data.dtype))
        g_psw = None
        if self.psw is not None:
            if self.next_edges[1] is not None:
                picked = (g_rows * weight[wrap(self.flat)]).sum(1)
                g_psw = _fn.zeros(self.keep.size, dtype=grad.dtype).index_add(
                    0, wrap(np.flatnonzero(self.keep)), picked)
            g_rows = g_rows * wrap(self.psw[:, None])
        return self._result(zeros.index_add(0, wrap(self.flat), g_rows), g_psw)


def _bag_reduce(rows: np.ndarray, bag: np.ndarray, n_bags: int, mode: str
                ) -> tuple[np.ndarray, np.ndarray]:
    """Per-bag sum or max of ``rows`` (bags contiguous, in order); for max also the index of
    each column's maximum (the first), -1 for empty bags. Bags are laid out as a padded
    (bags, longest, D) block when that is not much larger than the rows themselves."""
    k, dim = rows.shape
    counts = np.bincount(bag, minlength=n_bags)
    longest = int(counts.max()) if k else 0
    winner = np.full((n_bags, dim), -1, np.int64)
    if not k:
        return np.zeros((n_bags, dim), rows.dtype), winner
    pos = _ranks(bag)
    if n_bags * longest <= 4 * k + 64:
        fill = -np.inf if mode == "max" else 0
        block = np.full((n_bags, longest, dim), fill, rows.dtype)
        block[bag, pos] = rows
        if mode != "max":
            return block.sum(1), winner
        arg = block.argmax(1)  # the first maximum, as PyTorch
        out = np.take_along_axis(block, arg[:, None, :], 1)[:, 0]
        starts = np.r_[0, np.cumsum(counts)[:-1]]
        full = counts > 0
        winner[full] = (starts[:, None] + arg)[full]
        out[~full] = 0
        return out, winner
    nonempty = np.flatnonzero(counts)
    starts = np.searchsorted(bag, nonempty)
    out = np.zeros((n_bags, dim), rows.dtype)
    if mode != "max":
        out[nonempty] = np.add.reduceat(rows, starts, axis=0)
        return out, winner
    seg_max = np.maximum.reduceat(rows, starts, axis=0)
    out[nonempty] = seg_max
    is_max = rows == seg_max[np.searchsorted(nonempty, bag)]
    first = np.minimum.reduceat(np.where(is_max, np.arange(k)[:, None], k), starts, axis=0)
    winner[nonempty] = first
    return out, winner


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
                                  f"(got mode='{mode}'). Please open a feature request on the "
                                  "Pytorch GitHub page.")
    idx = _indices(input, "embedding_bag")
    if per_sample_weights is not None and tuple(per_sample_weights.shape) != idx.shape:
        raise ValueError(f"embedding_bag: per_sample_weights has shape "
                         f"{tuple(per_sample_weights.shape)}, expected {idx.shape}")
    n = weight.shape[0]
    if padding_idx is not None:
        if not -n <= padding_idx < n:
            raise AssertionError("padding_idx must be within the number of embeddings")
        padding_idx %= n
    flat, bag_of, n_bags_arr, _ = _bags(idx, offsets, include_last_offset)
    n_bags = int(n_bags_arr)
    if flat.size and (flat.min() < 0 or flat.max() >= n):
        raise RuntimeError(f"embedding_bag: index out of range (indices in {flat.min()}.."
                           f"{flat.max()}, num_embeddings={n})")
    if max_norm is not None:
        _renorm_(weight, flat, max_norm, norm_type)
    keep = np.ones(flat.size, bool) if padding_idx is None else flat != padding_idx
    flat_k, bag_k = flat[keep].astype(np.intp), bag_of[keep]
    rows = weight._data[flat_k]
    psw = None
    if per_sample_weights is not None:
        psw = per_sample_weights._data.reshape(-1)[:flat.size][keep].astype(rows.dtype)
        rows = rows * psw[:, None]
    out, winner = _bag_reduce(rows, bag_k, n_bags, "max" if mode == "max" else "sum")
    counts = np.bincount(bag_k, minlength=n_bags)
    scale = np.ones(flat_k.size)
    if mode == "mean":
        out = out / np.maximum(counts, 1)[:, None].astype(out.dtype)
        scale = scale / np.maximum(counts, 1)[bag_k]
    if scale_grad_by_freq:
        scale = scale / np.bincount(flat_k, minlength=n)[flat_k]
    needs = weight._requires_grad or (per_sample_weights is not None
                                      and per_sample_weights._requires_grad)
    if not (grad_state.enabled and needs):
        return wrap(out)
    inputs = (weight,) if per_sample_weights is None else (weight, per_sample_weights)
    node = EmbeddingBagBackward0(*inputs)
    node.save_for_backward(weight)
    node.mode, node.flat, node.bag, node.keep = mode, flat_k, bag_k, keep
    node.scale, node.psw, node.winner, node.num_weights = scale, psw, winner, n
    return wrap(out, node)


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
