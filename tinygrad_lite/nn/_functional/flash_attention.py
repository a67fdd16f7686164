"""Memory-efficient attention: the FlashAttention algorithm on NumPy, as a reference
implementation that ``scaled_dot_product_attention`` uses for long sequences.

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

import math
from typing import Any

import numpy as np

from ...autograd.function import Function, once_differentiable
from ...functions.creation import default_rng
from ...tensor import Tensor

__all__ = ["flash_attention", "BLOCK"]

BLOCK = 128  # rows of a query or key block: a (128 x 64) float32 block is 32 KB, L1/L2-sized


def _block_bias(mask: np.ndarray | None, is_causal: bool, q0: int, q1: int, k0: int, k1: int,
                dtype: np.dtype) -> np.ndarray | None:
    """The additive bias of one (query block, key block) tile: 0 or -inf from a bool or causal
    mask, or the float mask's values; None when nothing is masked."""
    bias = None
    if mask is not None:
        tile = mask[..., q0:q1, k0:k1]
        bias = np.where(tile, 0.0, -np.inf).astype(dtype) if tile.dtype == np.bool_ else tile
    if is_causal and k1 - 1 > q0:  # the tile reaches above the diagonal
        above = np.arange(k0, k1)[None, :] > np.arange(q0, q1)[:, None]
        causal = np.where(above, -np.inf, 0.0).astype(dtype)
        bias = causal if bias is None else bias + causal
    return bias


def _dropout_keep(seed: int, i: int, j: int, shape: tuple, p: float) -> np.ndarray:
    """The keep mask (scaled by 1/(1-p)) of tile (i, j): the same numbers in forward and
    backward, whatever order the tiles are visited in."""
    rng = np.random.default_rng([seed, i, j])
    return (rng.random(shape, dtype=np.float32) >= p) / np.float32(1.0 - p)


class FlashAttention(Function):
    """``softmax(q k^T * scale + mask) v`` in tiles; inputs (..., T, E) NumPy-backed tensors."""

    @staticmethod
    def forward(ctx: Any, q: Tensor, k: Tensor, v: Tensor, mask: Any, is_causal: bool,
                scale: float, dropout_p: float, seed: int, block: int) -> Tensor:
        qa, ka, va = q.detach().numpy(), k.detach().numpy(), v.detach().numpy()
        ctx.result_dtype = np.result_type(qa, ka, va)
        # float16 (autocast) tiles are computed in float32: NumPy has no half-precision GEMM,
        # and PyTorch's CPU kernels accumulate half inputs in float32 too
        dtype = np.dtype(np.float32) if ctx.result_dtype == np.float16 else ctx.result_dtype
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
                s = qi @ np.swapaxes(ka[..., k0:k1, :], -1, -2)
                bias = _block_bias(mask, is_causal, q0, q1, k0, k1, dtype)
                if bias is not None:
                    s = s + bias
                m_new = np.maximum(m, s.max(-1, keepdims=True))
                safe = np.where(np.isneginf(m_new), 0.0, m_new)  # rows with nothing yet
                p = np.exp(s - safe)
                rescale = np.exp(m - safe)
                l_sum = l_sum * rescale + p.sum(-1, keepdims=True)
                if dropout_p > 0.0:
                    p = p * _dropout_keep(seed, i, j, p.shape, dropout_p)
                acc = acc * rescale + p @ va[..., k0:k1, :]
                m = m_new
            alive = l_sum > 0
            out[..., q0:q1, :] = np.where(alive, acc / np.where(alive, l_sum, 1.0), 0.0)
            # a row that may attend nothing: lse = +inf makes its recomputed P zero in backward
            lse[..., q0:q1, :] = np.where(alive, m + np.log(np.where(alive, l_sum, 1.0)),
                                          np.inf)
        ctx.arrays = (qa, ka, va, out, lse, mask)
        ctx.options = (is_causal, scale, dropout_p, seed, block)
        return Tensor._wrap(out.astype(ctx.result_dtype, copy=False))

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad_out: Tensor) -> tuple:
        qa, ka, va, out, lse, mask = ctx.arrays
        is_causal, scale, dropout_p, seed, block = ctx.options
        dtype = out.dtype
        do = grad_out.numpy().astype(dtype, copy=False)
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
                s = qi @ np.swapaxes(kj, -1, -2)
                bias = _block_bias(mask, is_causal, q0, q1, k0, k1, dtype)
                if bias is not None:
                    s = s + bias
                p = np.exp(s - lsei)  # the normalised probabilities of this tile
                dp = doi @ np.swapaxes(vj, -1, -2)
                if dropout_p > 0.0:
                    keep = _dropout_keep(seed, i, j, p.shape, dropout_p)
                    dv[..., k0:k1, :] += np.swapaxes(p * keep, -1, -2) @ doi
                    dp = dp * keep
                else:
                    dv[..., k0:k1, :] += np.swapaxes(p, -1, -2) @ doi
                ds = p * (dp - di)
                dq[..., q0:q1, :] += ds @ kj
                dk[..., k0:k1, :] += np.swapaxes(ds, -1, -2) @ qi
        dq *= dtype.type(scale)

        def to_input(grad: np.ndarray, shape: tuple) -> Tensor:
            extra = grad.ndim - len(shape)  # broadcast leading dims: sum them back
            axes = tuple(range(extra)) + tuple(extra + a for a, n in enumerate(shape)
                                               if n == 1 and grad.shape[extra + a] != 1)
            summed = grad.sum(axis=axes).reshape(shape) if axes else grad
            return Tensor._wrap(summed.astype(ctx.result_dtype, copy=False))

        return (to_input(dq, qa.shape), to_input(dk, ka.shape), to_input(dv, va.shape),
                None, None, None, None, None, None)


def flash_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Any = None,
                    dropout_p: float = 0.0, is_causal: bool = False,
                    scale: float | None = None, block: int = BLOCK,
                    generator: Any = None) -> Tensor:
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
    return FlashAttention.apply(query, key, value, mask, bool(is_causal), scale,
                                float(dropout_p), seed, int(block))
