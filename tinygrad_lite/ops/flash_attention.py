"""Memory-efficient attention as a primitive: the FlashAttention algorithm on NumPy, as a
reference implementation that ``scaled_dot_product_attention`` uses for long sequences (through
``nn.functional``'s ``flash_attention``), with ``FlashAttentionBackward``.

Naive attention materialises the T x T score matrix (and autograd keeps it for backward). Here
queries and keys go in blocks: for each query block the scores against one key block at a time
update a running row maximum ``m``, a running normaliser ``l`` and the unnormalised output, so
the softmax is exact without ever holding more than one block of scores (the "online softmax").
Forward saves only the output and the per-row log-sum-exp ``lse = m + log(l)``; backward
recomputes each block's probabilities from ``lse`` (``P = exp(S - lse)``) and accumulates the
gradients block by block, with ``D = rowsum(dO * O)`` standing in for the softmax Jacobian's
row sums. Causal masks skip the blocks above the diagonal; dropout masks are drawn per block
from a generator seeded by (seed, query block, key block), so backward regenerates them exactly.
A query row with nothing to attend gives 0 output and 0 gradient, as PyTorch 2.x does.
Second derivatives are not available (the backward is NumPy): use the naive path for those.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap
from .common import first_order_grads

__all__ = ["FlashAttentionBackward", "flash_attention", "causal_bias", "online_softmax_step",
           "online_softmax_result", "tile_gradients", "sum_to_shape"]


def causal_bias(q0: int, q1: int, k0: int, k1: int, dtype: np.dtype) -> np.ndarray | None:
    """The causal mask (0 or -inf) of the tile of query positions ``[q0, q1)`` against key
    positions ``[k0, k1)``: -inf where the key comes after the query. None when no key of the
    tile does (positions are global: ring attention passes each shard's place in the sequence)."""
    if k1 - 1 <= q0:
        return None
    above = np.arange(k0, k1)[None, :] > np.arange(q0, q1)[:, None]
    return np.where(above, -np.inf, 0.0).astype(dtype)


def _block_bias(mask: np.ndarray | None, is_causal: bool, q0: int, q1: int, k0: int, k1: int,
                dtype: np.dtype) -> np.ndarray | None:
    """The additive bias of one (query block, key block) tile: 0 or -inf from a bool or causal
    mask, or the float mask's values; None when nothing is masked."""
    bias = None
    if mask is not None:
        tile = mask[..., q0:q1, k0:k1]
        bias = np.where(tile, 0.0, -np.inf).astype(dtype) if tile.dtype == np.bool_ else tile
    causal = causal_bias(q0, q1, k0, k1, dtype) if is_causal else None
    if causal is not None:
        bias = causal if bias is None else bias + causal
    return bias


def online_softmax_step(qs: np.ndarray, kj: np.ndarray, vj: np.ndarray,
                        bias: np.ndarray | None, m: np.ndarray, l_sum: np.ndarray,
                        acc: np.ndarray, keep: np.ndarray | None = None
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One key tile folded into the running state of some query rows: ``qs`` the scaled
    queries (..., Lq, E), ``kj``/``vj`` the tile's keys and values, ``bias`` its mask; ``m`` the
    row maxima so far, ``l_sum`` the normalisers, ``acc`` the unnormalised outputs. Returns the
    new ``(m, l_sum, acc)``; the order in which tiles arrive does not change the result (beyond
    rounding), which is what lets ring attention fold in key blocks as they come round."""
    s = qs @ np.swapaxes(kj, -1, -2)
    if bias is not None:
        s = s + bias
    m_new = np.maximum(m, s.max(-1, keepdims=True))
    safe = np.where(np.isneginf(m_new), 0.0, m_new)  # rows with nothing yet
    p = np.exp(s - safe)
    rescale = np.exp(m - safe)
    l_sum = l_sum * rescale + p.sum(-1, keepdims=True)
    if keep is not None:
        p = p * keep
    acc = acc * rescale + p @ vj
    return m_new, l_sum, acc


def online_softmax_result(m: np.ndarray, l_sum: np.ndarray, acc: np.ndarray
                          ) -> tuple[np.ndarray, np.ndarray]:
    """The output and log-sum-exp (..., L, 1) of finished rows. A row that may attend nothing
    gives output 0 and lse = +inf, which makes its recomputed probabilities zero in backward."""
    alive = l_sum > 0
    out = np.where(alive, acc / np.where(alive, l_sum, 1.0), 0.0)
    lse = np.where(alive, m + np.log(np.where(alive, l_sum, 1.0)), np.inf)
    return out, lse


def tile_gradients(qs: np.ndarray, kj: np.ndarray, vj: np.ndarray, bias: np.ndarray | None,
                   lse: np.ndarray, do: np.ndarray, d_rows: np.ndarray,
                   keep: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One tile's share of the gradients, its probabilities recomputed from the rows' ``lse``:
    ``(dS K, dS^T qs, P^T dO)``, the first still to be multiplied by the scale. ``d_rows`` is
    ``rowsum(dO * O)``, the softmax Jacobian's row term."""
    s = qs @ np.swapaxes(kj, -1, -2)
    if bias is not None:
        s = s + bias
    p = np.exp(s - lse)  # the normalised probabilities of this tile
    dp = do @ np.swapaxes(vj, -1, -2)
    if keep is not None:
        dv = np.swapaxes(p * keep, -1, -2) @ do
        dp = dp * keep
    else:
        dv = np.swapaxes(p, -1, -2) @ do
    ds = p * (dp - d_rows)
    return ds @ kj, np.swapaxes(ds, -1, -2) @ qs, dv


def sum_to_shape(grad: np.ndarray, shape: tuple) -> np.ndarray:
    """``grad`` summed over the leading dims that broadcasting added or stretched, to
    ``shape``."""
    extra = grad.ndim - len(shape)
    axes = tuple(range(extra)) + tuple(extra + a for a, n in enumerate(shape)
                                       if n == 1 and grad.shape[extra + a] != 1)
    return grad.sum(axis=axes).reshape(shape) if axes else grad


def _dropout_keep(seed: int, i: int, j: int, shape: tuple, p: float) -> np.ndarray:
    """The keep mask (scaled by 1/(1-p)) of tile (i, j): the same numbers in forward and
    backward, whatever order the tiles are visited in."""
    rng = np.random.default_rng([seed, i, j])
    return (rng.random(shape, dtype=np.float32) >= p) / np.float32(1.0 - p)


class FlashAttentionBackward(Node):
    """The gradients for query, key and value, recomputed tile by tile from the saved output and
    log-sum-exp (see the module docstring); NumPy only, so not differentiable again."""

    arrays: tuple  # (q, k, v, out, lse, mask) as computed by the forward
    options: tuple  # (is_causal, scale, dropout_p, seed, block)
    dtypes: tuple  # of query, key and value
    result_dtype: np.dtype

    def backward(self, grad_out: Any) -> tuple:
        """The input gradients for the output gradient ``grad_out``."""
        qa, ka, va, out, lse, mask = self.arrays
        is_causal, scale, dropout_p, seed, block = self.options
        dtype = out.dtype
        do = np.asarray(grad_out._data if isinstance(grad_out, TensorBase) else grad_out
                        ).astype(dtype, copy=False)
        n_q, n_k = qa.shape[-2], ka.shape[-2]
        lead = out.shape[:-2]
        dq = np.zeros((*lead, *qa.shape[-2:]), dtype)
        dk = np.zeros((*lead, *ka.shape[-2:]), dtype)
        dv = np.zeros((*lead, *va.shape[-2:]), dtype)
        d_rows = (do * out).sum(-1, keepdims=True)
        for i, q0 in enumerate(range(0, n_q, block)):
            q1 = min(q0 + block, n_q)
            qi = qa[..., q0:q1, :] * dtype.type(scale)
            doi, lsei, di = do[..., q0:q1, :], lse[..., q0:q1, :], d_rows[..., q0:q1, :]
            for j, k0 in enumerate(range(0, n_k, block)):
                if is_causal and k0 > q1 - 1:
                    break
                k1 = min(k0 + block, n_k)
                kj, vj = ka[..., k0:k1, :], va[..., k0:k1, :]
                bias = _block_bias(mask, is_causal, q0, q1, k0, k1, dtype)
                keep = _dropout_keep(seed, i, j, (*lead, q1 - q0, k1 - k0), dropout_p) \
                    if dropout_p > 0.0 else None
                dq_t, dk_t, dv_t = tile_gradients(qi, kj, vj, bias, lsei, doi, di, keep)
                dq[..., q0:q1, :] += dq_t
                dk[..., k0:k1, :] += dk_t
                dv[..., k0:k1, :] += dv_t
        dq *= dtype.type(scale)

        def to_input(grad: np.ndarray, shape: tuple, input_dtype: np.dtype) -> np.ndarray:
            # the result's dtype, then the input's (what PyTorch's Function machinery casts to)
            return sum_to_shape(grad, shape).astype(self.result_dtype, copy=False).astype(
                input_dtype, copy=False)

        grads = tuple(to_input(g, a.shape, dt) for g, a, dt in
                      zip((dq, dk, dv), (qa, ka, va), self.dtypes))
        if isinstance(grad_out, TensorBase):  # create_graph: the NumPy backward records nothing
            return first_order_grads("FlashAttention.backward", (grad_out,), grads)
        return grads


def flash_attention(q: TensorBase, k: TensorBase, v: TensorBase, mask: np.ndarray | None,
                    is_causal: bool, scale: float, dropout_p: float, seed: int,
                    block: int) -> TensorBase:
    """``softmax(q k^T * scale + mask) v`` in tiles of ``block`` rows; inputs (..., T, E); the
    dropout masks drawn from ``seed`` per tile."""
    qa, ka, va = q._data, k._data, v._data
    result_dtype = np.result_type(qa, ka, va)
    # float16 (autocast) tiles are computed in float32: NumPy has no half-precision GEMM,
    # and PyTorch's CPU kernels accumulate half inputs in float32 too
    dtype = np.dtype(np.float32) if result_dtype == np.float16 else result_dtype
    qa, ka, va = (a.astype(dtype, copy=False) for a in (qa, ka, va))
    n_q, n_k = qa.shape[-2], ka.shape[-2]
    lead = np.broadcast_shapes(qa.shape[:-2], ka.shape[:-2], va.shape[:-2])
    out = np.zeros((*lead, n_q, va.shape[-1]), dtype)
    lse = np.full((*lead, n_q, 1), -np.inf, dtype)
    for i, q0 in enumerate(range(0, n_q, block)):
        q1 = min(q0 + block, n_q)
        qi = qa[..., q0:q1, :] * dtype.type(scale)
        m = np.full((*lead, q1 - q0, 1), -np.inf, dtype)
        l_sum = np.zeros((*lead, q1 - q0, 1), dtype)
        acc = np.zeros((*lead, q1 - q0, va.shape[-1]), dtype)
        for j, k0 in enumerate(range(0, n_k, block)):
            if is_causal and k0 > q1 - 1:
                break  # this key block and the rest lie above the diagonal
            k1 = min(k0 + block, n_k)
            bias = _block_bias(mask, is_causal, q0, q1, k0, k1, dtype)
            keep = _dropout_keep(seed, i, j, (*lead, q1 - q0, k1 - k0), dropout_p) \
                if dropout_p > 0.0 else None
            m, l_sum, acc = online_softmax_step(qi, ka[..., k0:k1, :], va[..., k0:k1, :], bias,
                                                m, l_sum, acc, keep)
        out[..., q0:q1, :], lse[..., q0:q1, :] = online_softmax_result(m, l_sum, acc)
    result = out.astype(result_dtype, copy=False)
    if not (grad_state.enabled and (q._requires_grad or k._requires_grad or v._requires_grad)):
        return wrap(result)
    node = FlashAttentionBackward(q, k, v)
    node.arrays = (qa, ka, va, out, lse, mask)
    node.options = (is_causal, scale, dropout_p, seed, block)
    node.dtypes = (q._data.dtype, k._data.dtype, v._data.dtype)
    node.result_dtype = result_dtype
    return wrap(result, node)
