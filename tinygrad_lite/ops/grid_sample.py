"""The corner gather of ``grid_sample`` as a primitive: the values of an (N, C, pixels) input at
integer taps, with ``GridSampleGatherBackward0``, which adds the output gradient back into the
pixels the taps came from (one sorted segment sum for all corners and batches). The sampling
weights stay in the graph (``nn.functional.grid_sample``), so the grid gets its gradient there."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .segment import segment_sum

__all__ = ["GridSampleGatherBackward0", "gather"]


class GridSampleGatherBackward0(Node):
    """Backward of the corner gather: the output gradient is added back into the pixels the
    corners came from (one sorted segment sum for all corners and batches)."""

    rows: np.ndarray  # (K * N * P,) flat pixel index n * HW + lin of every gathered value
    shape: tuple  # (N, C, HW) of the gathered-from input

    def backward(self, grad: Any) -> tuple:
        """The input gradients for the output gradient ``grad``."""
        n, c, hw = self.shape
        if isinstance(grad, TensorBase):  # create_graph: the same scatter in tensor ops
            vals = grad.permute(0, 1, 3, 2).reshape(-1, c)
            out = wrap(np.zeros((n * hw, c), grad._data.dtype)).index_add(0, wrap(self.rows),
                                                                        vals)
            return (out.reshape(n, hw, c).permute(0, 2, 1),)
        vals = np.ascontiguousarray(np.swapaxes(grad, 2, 3)).reshape(-1, c)  # (K*N*P, C)
        out = segment_sum(self.rows, vals, n * hw)
        return (np.ascontiguousarray(out.reshape(n, hw, c).transpose(0, 2, 1)),)


def gather(flat: TensorBase, corners: list[list[np.ndarray]], sizes: tuple
            ) -> tuple[TensorBase, np.ndarray]:
    """Values of the (N, C, prod(sizes)) input at several sets of integer taps (per set one
    (N, P) array per dim, x first) as (K, N, C, P), zero outside; with the in-bounds masks
    (K, N, P)."""
    lins, insides = [], []
    for taps in corners:
        inside = np.ones(taps[0].shape, bool)
        lin = np.zeros(taps[0].shape, np.int64)
        stride = 1
        for t, s in zip(taps, reversed(sizes)):
            inside &= (t >= 0) & (t < s)
            lin += np.clip(t, 0, s - 1).astype(np.int64) * stride
            stride *= s
        lins.append(lin)
        insides.append(inside)
    lin_all = np.stack(lins)  # (K, N, P)
    n, c, hw = flat.shape
    data = flat._data
    out = data[np.arange(n)[None, :, None, None], np.arange(c)[None, None, :, None],
               lin_all[:, :, None, :]]
    node = None
    if grad_state.enabled and flat._requires_grad:
        node = GridSampleGatherBackward0(flat)
        node.rows = (lin_all + (np.arange(n) * hw)[None, :, None]).reshape(-1)
        node.shape = (n, c, hw)
    return wrap(out, node), np.stack(insides)
