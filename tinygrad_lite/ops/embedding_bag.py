"""Embedding bags as a primitive: sums, means and maxima of bags of embedding rows (vectorised
with segment reductions), with ``EmbeddingBagBackward0``, which spreads each bag's gradient over
its rows (sum, mean) or gives it to each column's maximum (max), and gives the per-sample weights
theirs."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .segment import ranks, segment_sum

__all__ = ["EmbeddingBagBackward0", "embedding_bag"]


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
        if self.mode == "max" and not self.flat.size:  # every bag empty: no row won anything
            zeros = np.zeros((self.num_weights, grad.shape[1]), grad.dtype if isinstance(
                grad, np.ndarray) else grad._data.dtype)
            return self._result(wrap(zeros) if isinstance(grad, TensorBase) else zeros, None)
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
        zeros = wrap(np.zeros((self.num_weights, dim), grad._data.dtype))
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
                g_psw = wrap(np.zeros(self.keep.size, grad._data.dtype)).index_add(
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
    pos = ranks(bag)
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


def embedding_bag(weight: TensorBase, per_sample_weights: TensorBase | None, flat: np.ndarray,
                  bag_of: np.ndarray, n_bags: int, padding_idx: int | None, mode: str,
                  scale_grad_by_freq: bool) -> TensorBase:
    """Per bag, the sum, mean or max of the rows ``flat`` (checked indices; ``bag_of`` the bag of
    each, bags contiguous and in order) of ``weight``, the ``padding_idx`` entries left out and
    each row scaled by its ``per_sample_weights`` entry if given; empty bags give 0."""
    n = weight.shape[0]
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
