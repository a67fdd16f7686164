"""Attention for ``nn.functional``: ``scaled_dot_product_attention`` and the computation behind
``nn.MultiheadAttention``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ...ops.attention import attention, fused_attention_ok
from ...ops.elementwise import bfloat16_in_float32
from .dropout import dropout
from .flash_attention import flash_attention
from .linear import linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]

# scores per (batch, head) from which scaled_dot_product_attention runs the blocked kernel
# (nn/_functional/flash_attention.py); below it the plain matmul-softmax-matmul is as fast and
# differentiable to any order
FLASH_MIN_SCORES = 1024 * 1024


@bfloat16_in_float32
def scaled_dot_product_attention(query: TensorBase, key: TensorBase, value: TensorBase,
                                 attn_mask: TensorBase | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> TensorBase:
    """``softmax(q k^T * scale + mask) v`` over the last two dims. A bool ``attn_mask`` says
    which positions take part (True = attend); a float mask is added to the scores."""
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query {tuple(query.shape)}, key {tuple(key.shape)} "
            f"and value {tuple(value.shape)} do not match (expected q (..., L, E), k (..., S, E),"
            " v (..., S, Ev))"
        )
    if enable_gqa and query.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, rep)
        value = _repeat_heads(value, rep)
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if is_causal and attn_mask is not None:
        raise RuntimeError("scaled_dot_product_attention: pass either attn_mask or "
                           "is_causal=True, not both")
    if query.shape[-2] * key.shape[-2] >= FLASH_MIN_SCORES:
        # long sequences: the blocked algorithm never holds the (..., L, S) scores; it is as
        # fast from L = S = 1024 on and faster beyond (benchmarks/bench_attention.py)
        return flash_attention(query, key, value, attn_mask, dropout_p,  # type: ignore[arg-type]
                               is_causal, scale)
    if attn_mask is None and dropout_p == 0.0 and fused_attention_ok(query, key, value):
        return attention(query, key, value, scale, is_causal)  # one node (ops/attention.py)
    return attention_math(query, key, value, attn_mask, dropout_p, is_causal, scale)


def attention_math(query: TensorBase, key: TensorBase, value: TensorBase,
                   attn_mask: TensorBase | None, dropout_p: float, is_causal: bool,
                   scale: float) -> TensorBase:
    """The plain path: scores, mask, softmax, dropout, product (differentiable to any
    order; keeps the (..., L, S) weights for backward)."""
    scores = (query @ key.mT) * scale
    n_q, n_k = query.shape[-2], key.shape[-2]
    if is_causal:
        attn_mask = wrap(np.tril(np.ones((n_q, n_k), np.bool_)))
    dead = None
    if attn_mask is not None:
        m = attn_mask if isinstance(attn_mask, TensorBase) else wrap(np.asarray(attn_mask))
        # a query that may attend nothing gets 0 output and 0 gradient, as in PyTorch 2.x,
        # instead of softmax(-inf, ..., -inf) = NaN: its row is left unmasked, then zeroed
        md = m._data
        if is_causal:  # every row of tril(ones) allows its first key
            pass
        elif md.dtype == np.bool_:
            some_allowed = md.any(-1, keepdims=True)
            if not some_allowed.all():
                dead = ~some_allowed
                m = wrap(md | dead)
        elif md.ndim and md.size and np.isneginf(md[..., 0]).any():  # cheap pre-check
            none_allowed = np.asarray(np.isneginf(md).all(-1, keepdims=True))
            if none_allowed.any():
                dead = none_allowed
                m = _fn.where(wrap(none_allowed), 0.0, m)
        scores = _apply_mask(scores, m, allowed=True)
    weights = _fn.softmax(scores, -1)
    if dead is not None:
        weights = weights * wrap((~dead).astype(weights._data.dtype))
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights @ value


def _repeat_heads(x: TensorBase, rep: int) -> TensorBase:
    """(..., H, S, E) -> (..., H * rep, S, E), each head repeated ``rep`` times in a row."""
    shape = tuple(x.shape)
    x = x.unsqueeze(-3).expand(*shape[:-2], rep, *shape[-2:])
    return x.reshape(*shape[:-3], shape[-3] * rep, *shape[-2:])


def _apply_mask(scores: TensorBase, mask: Any, allowed: bool) -> TensorBase:
    """Add a float mask, or set the disallowed positions of a bool mask to -inf. ``allowed``:
    True means a True entry may be attended (SDPA); False means it is masked out (MHA)."""
    m = mask if isinstance(mask, TensorBase) else wrap(np.asarray(mask))
    if m._data.dtype == np.bool_:
        keep = m._data if allowed else ~m._data
        return _fn.where(wrap(keep), scores, -np.inf)
    return scores + m


def multi_head_attention_forward(
    query: TensorBase, key: TensorBase, value: TensorBase, num_heads: int,
    q_weight: TensorBase, k_weight: TensorBase, v_weight: TensorBase,
    q_bias: TensorBase | None, k_bias: TensorBase | None, v_bias: TensorBase | None,
    out_proj_weight: TensorBase, out_proj_bias: TensorBase | None, dropout_p: float = 0.0,
    training: bool = True, key_padding_mask: TensorBase | None = None, need_weights: bool = True,
    attn_mask: TensorBase | None = None, average_attn_weights: bool = True,
    is_causal: bool = False,
) -> tuple[TensorBase, TensorBase | None]:
    """Multi-head attention on batch-first (N, L, E) inputs (``MultiheadAttention`` transposes
    sequence-first ones). Bool masks: True marks a position that may NOT be attended."""
    n, n_q, e = query.shape
    s = key.shape[1]
    h = num_heads
    hd = e // h
    q = linear(query, q_weight, q_bias).reshape(n, n_q, h, hd).permute(0, 2, 1, 3)
    k = linear(key, k_weight, k_bias).reshape(n, s, h, hd).permute(0, 2, 1, 3)
    v = linear(value, v_weight, v_bias).reshape(n, s, h, v_weight.shape[0] // h)
    v = v.permute(0, 2, 1, 3)
    scores = (q @ k.mT) * (1.0 / math.sqrt(hd))  # (N, H, L, S)
    if is_causal and attn_mask is None:
        attn_mask = wrap(~np.tril(np.ones((n_q, s), np.bool_)))
    if attn_mask is not None:
        m = attn_mask if isinstance(attn_mask, TensorBase) else wrap(np.asarray(attn_mask))
        if m.ndim == 3:  # (N * H, L, S)
            m = wrap(m._data.reshape(n, h, n_q, s)) if not m.requires_grad else \
                m.reshape(n, h, n_q, s)
        scores = _apply_mask(scores, m, allowed=False)
    if key_padding_mask is not None:
        kpm = key_padding_mask._data if isinstance(key_padding_mask, TensorBase) else \
            np.asarray(key_padding_mask)
        kpm = kpm.reshape(n, 1, 1, s)
        scores = _apply_mask(scores, wrap(kpm), allowed=False)
    weights = _fn.softmax(scores, -1)
    attn = dropout(weights, dropout_p, True) if training and dropout_p > 0.0 else weights
    out = (attn @ v).permute(0, 2, 1, 3).reshape(n, n_q, -1)
    out = linear(out, out_proj_weight, out_proj_bias)
    if not need_weights:
        return out, None
    return out, (weights.mean(1) if average_attn_weights else weights)
