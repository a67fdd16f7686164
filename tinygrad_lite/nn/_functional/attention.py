"""Attention for ``nn.functional``: ``scaled_dot_product_attention`` and
``multi_head_attention_forward`` (PyTorch's signature), the computation behind
``nn.MultiheadAttention``."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ... import dtypes
from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...ops.attention import attention, fused_attention_ok
from ...ops.elementwise import bfloat16_in_float32
from ..attention.bias import CausalBias, CausalVariant
from .dropout import dropout
from .flash_attention import flash_attention
from .linear import linear

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward",
           "push_attention_override", "pop_attention_override"]

# attention implementations that replace the local kernels while a context manager is active
# (tl.distributed.tensor.experimental.context_parallel runs ring attention), innermost last;
# each takes (query, key, value, attn_mask, dropout_p, is_causal, scale) after the argument
# checks, the CausalBias conversion and the GQA head repetition
_overrides: list[Callable[..., TensorBase]] = []


def push_attention_override(fn: Callable[..., TensorBase]) -> None:
    """Make ``fn`` compute ``scaled_dot_product_attention`` until ``pop_attention_override``."""
    _overrides.append(fn)


def pop_attention_override(fn: Callable[..., TensorBase]) -> None:
    """Remove ``fn`` (the innermost override, or wherever it is)."""
    for i in range(len(_overrides) - 1, -1, -1):
        if _overrides[i] is fn:
            del _overrides[i]
            return

# scores per (batch, head) from which scaled_dot_product_attention runs the blocked kernel
# (nn/_functional/flash_attention.py); below it the plain matmul-softmax-matmul is as fast and
# differentiable to any order
FLASH_MIN_SCORES = 1024 * 1024


def scaled_dot_product_attention(query: TensorBase, key: TensorBase, value: TensorBase,
                                 attn_mask: TensorBase | CausalBias | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False,
                                 scale: float | None = None,
                                 enable_gqa: bool = False) -> TensorBase:
    """``softmax(q k^T * scale + mask) v`` over the last two dims. A bool ``attn_mask`` says
    which positions take part (True = attend); a float mask is added to the scores; a
    ``CausalBias`` (``tl.nn.attention.bias``) is a causal mask."""
    # the dtypes are checked as given, before bfloat16 computes in float32
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError(f"scaled_dot_product_attention: Expected query, key, and value to have "
                           f"the same dtype, but got query.dtype: {query.dtype} key.dtype: "
                           f"{key.dtype} and value.dtype: {value.dtype} instead.")
    if not query.is_floating_point():
        raise RuntimeError(f"scaled_dot_product_attention: expected query, key and value of a "
                           f"floating point dtype, but got {query.dtype}")
    if isinstance(attn_mask, TensorBase) and \
            attn_mask.dtype not in (dtypes.bool, dtypes.float32, query.dtype):
        raise RuntimeError(f"scaled_dot_product_attention: Expected attn_mask dtype to be bool or "
                           f"float or to match query dtype, but got attn_mask.dtype: "
                           f"{attn_mask.dtype} and query.dtype: {query.dtype} instead.")
    return _attention(query, key, value, attn_mask, dropout_p, is_causal, scale, enable_gqa)


@bfloat16_in_float32
def _attention(query: TensorBase, key: TensorBase, value: TensorBase,
               attn_mask: TensorBase | CausalBias | None, dropout_p: float, is_causal: bool,
               scale: float | None, enable_gqa: bool) -> TensorBase:
    """``scaled_dot_product_attention`` after its dtype checks (bfloat16 runs in float32)."""
    if attn_mask is not None and isinstance(attn_mask, CausalBias):
        attn_mask, is_causal = _from_causal_bias(attn_mask, is_causal, query)
    if query.ndim < 2 or key.ndim < 2 or value.ndim < 2:
        raise RuntimeError(f"scaled_dot_product_attention: Expected query, key, and value to all "
                           f"be at least 2 dimensional, but got query.dim: {query.ndim} key.dim: "
                           f"{key.ndim} and value.dim: {value.ndim} instead.")
    if query.shape[-1] != key.shape[-1] or key.shape[-2] != value.shape[-2]:
        raise RuntimeError(
            f"scaled_dot_product_attention: query {tuple(query.shape)}, key {tuple(key.shape)} "
            f"and value {tuple(value.shape)} do not match (expected q (..., L, E), k (..., S, E),"
            " v (..., S, Ev))"
        )
    if not 0.0 <= dropout_p <= 1.0:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {dropout_p}")
    if enable_gqa and query.ndim >= 3:
        heads = query.shape[-3]
        if heads % key.shape[-3] or heads % value.shape[-3]:
            raise RuntimeError("scaled_dot_product_attention: Number of heads in key and value "
                               f"must divide the number of heads in query (query {heads}, key "
                               f"{key.shape[-3]}, value {value.shape[-3]})")
        key = _repeat_heads(key, heads // key.shape[-3])
        value = _repeat_heads(value, heads // value.shape[-3])
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    mask = None if attn_mask is None else _as_tensor(attn_mask)
    if mask is not None:
        if mask.dtype != dtypes.bool and not mask.is_floating_point():
            raise RuntimeError(f"scaled_dot_product_attention: Expected attn_mask dtype to be "
                               f"bool or float or to match query dtype, but got attn_mask.dtype: "
                               f"{mask.dtype} and query.dtype: {query.dtype} instead.")
        if mask.dtype != dtypes.bool and mask.dtype != query.dtype:
            mask = mask.to(query.dtype)  # a float32 mask of a float16 query
        if is_causal:  # PyTorch applies both: attn_mask on the causal (upper-left) pattern
            mask, is_causal = _and_causal(mask, query.shape[-2], key.shape[-2]), False
    out: TensorBase
    if _overrides:
        out = _overrides[-1](query, key, value, mask, dropout_p, is_causal, scale)
    elif query.shape[-2] * key.shape[-2] >= FLASH_MIN_SCORES:
        # long sequences: the blocked algorithm never holds the (..., L, S) scores; it is as
        # fast from L = S = 1024 on and faster beyond (benchmarks/bench_attention.py)
        out = flash_attention(query, key, value,  # type: ignore[arg-type]
                              mask, dropout_p, is_causal, scale)
    elif mask is None and dropout_p == 0.0 and fused_attention_ok(query, key, value):
        out = attention(query, key, value, scale, is_causal)  # one node (ops/attention.py)
    else:
        out = attention_math(query, key, value, mask, dropout_p, is_causal, scale)
    qd = query._data
    if not qd.flags.c_contiguous and out._data.shape[:-1] == qd.shape[:-1]:
        # PyTorch's CPU kernels lay the output out as the query: a query (B, H, L, E) cut from
        # a (B, L, H, E) projection gives a transposed (B, L, H, Ev) array, and programs rely
        # on it (out.transpose(1, 2).view(B, L, H * Ev) must work); a contiguous query gives a
        # contiguous output. The values are moved under the same node (no extra graph ops)
        order = np.argsort([-st for st in qd.strides], kind="stable")
        data = out._data
        relaid = np.empty(tuple(data.shape[i] for i in order), data.dtype) \
            .transpose(np.argsort(order))
        relaid[...] = data
        out._data = relaid
    return out


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
        m = _as_tensor(attn_mask)
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


def _from_causal_bias(bias: CausalBias, is_causal: bool, query: TensorBase
                      ) -> tuple[TensorBase | None, bool]:
    """The ``(attn_mask, is_causal)`` that run a ``CausalBias`` as PyTorch does: upper-left
    (or L == S in the bias) as ``is_causal=True``, whatever the inputs' lengths; lower-right
    with its materialized boolean mask."""
    if is_causal:
        raise ValueError("CausalBias should not be used with causal=True")
    if bias.seq_len_q == bias.seq_len_kv or bias.variant == CausalVariant.UPPER_LEFT:
        return None, True
    if bias.variant == CausalVariant.LOWER_RIGHT:
        return bias._materialize(getattr(query, "device", None)), False
    raise ValueError(
        f"CausalBias.variant must be a CausalVariant type, but found: {bias.variant}")


def _and_causal(mask: TensorBase, n_q: int, n_k: int) -> TensorBase:
    """``mask`` (bool: True = attend; float: added) with the positions above the (upper-left)
    diagonal masked out as well."""
    causal = np.tril(np.ones((n_q, n_k), np.bool_))
    if mask._data.dtype == np.bool_:
        return wrap(mask._data & causal)
    return _fn.where(wrap(causal), mask, -np.inf)


def _repeat_heads(x: TensorBase, rep: int) -> TensorBase:
    """(..., H, S, E) -> (..., H * rep, S, E), each head repeated ``rep`` times in a row."""
    shape = tuple(x.shape)
    x = x.unsqueeze(-3).expand(*shape[:-2], rep, *shape[-2:])
    return x.reshape(*shape[:-3], shape[-3] * rep, *shape[-2:])


def _apply_mask(scores: TensorBase, mask: Any, allowed: bool) -> TensorBase:
    """Add a float mask, or set the disallowed positions of a bool mask to -inf. ``allowed``:
    True means a True entry may be attended (SDPA); False means it is masked out (MHA)."""
    m = _as_tensor(mask)
    if m._data.dtype == np.bool_:
        keep = m._data if allowed else ~m._data
        return _fn.where(wrap(keep), scores, -np.inf)
    return scores + m


def multi_head_attention_forward(
    query: TensorBase, key: TensorBase, value: TensorBase, embed_dim_to_check: int,
    num_heads: int, in_proj_weight: TensorBase | None, in_proj_bias: TensorBase | None,
    bias_k: TensorBase | None, bias_v: TensorBase | None, add_zero_attn: bool,
    dropout_p: float, out_proj_weight: TensorBase, out_proj_bias: TensorBase | None,
    training: bool = True, key_padding_mask: TensorBase | None = None,
    need_weights: bool = True, attn_mask: TensorBase | None = None,
    use_separate_proj_weight: bool = False, q_proj_weight: TensorBase | None = None,
    k_proj_weight: TensorBase | None = None, v_proj_weight: TensorBase | None = None,
    static_k: TensorBase | None = None, static_v: TensorBase | None = None,
    average_attn_weights: bool = True, is_causal: bool = False,
) -> tuple[TensorBase, TensorBase | None]:
    """PyTorch's functional multi-head attention on sequence-first (L, N, E) inputs (or
    unbatched (L, E)): ``(output, weights)``. Bool masks mark positions NOT attended; float
    masks are added to the scores. ``bias_k``/``bias_v`` append one learned key and value,
    ``add_zero_attn`` one zero key and value; ``static_k``/``static_v`` (N * H, S, E / H)
    replace the projected keys and values. With ``need_weights`` the weights are computed and
    returned (a fully masked query row then gives NaN, as PyTorch's); without, the attention
    runs as ``scaled_dot_product_attention`` (a fully masked row gives 0)."""
    if isinstance(attn_mask, CausalBias):  # PyTorch's fails here too (shape or dtype errors)
        raise RuntimeError(
            "multi_head_attention_forward: a CausalBias attn_mask is for "
            "scaled_dot_product_attention only; pass is_causal=True with the bool mask "
            "~bias._materialize() (True: not attended), as PyTorch's MultiheadAttention needs")
    key_padding_mask = None if key_padding_mask is None else _as_tensor(key_padding_mask)
    attn_mask = None if attn_mask is None else _as_tensor(attn_mask)
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    n_q, n, e = query.shape
    kpm = _canonical_mask(key_padding_mask, "key_padding_mask", _none_or_dtype(attn_mask),
                          "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if e != embed_dim_to_check:
        raise AssertionError(f"multi_head_attention_forward: was expecting embedding dimension "
                             f"of {embed_dim_to_check}, but got {e}")
    h = num_heads
    hd = e // h
    if hd * h != e:
        raise AssertionError(f"embed_dim {e} not divisible by num_heads {h}")
    if use_separate_proj_weight and key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match "
                             f"value's {value.shape[:2]}")
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    biases = (None, None, None) if in_proj_bias is None else \
        (in_proj_bias[:e], in_proj_bias[e:2 * e], in_proj_bias[2 * e:])
    if use_separate_proj_weight:
        weights3 = (q_proj_weight, k_proj_weight, v_proj_weight)
    else:
        assert in_proj_weight is not None
        weights3 = (in_proj_weight[:e], in_proj_weight[e:2 * e], in_proj_weight[2 * e:])
    if any(w is None for w in weights3):
        raise RuntimeError("multi_head_attention_forward: use_separate_proj_weight is True but "
                           "q_proj_weight, k_proj_weight or v_proj_weight is None")
    q, k, v = (linear(x, w, b) for x, w, b in  # type: ignore[arg-type]
               zip((query, key, value), weights3, biases))
    # is_causal is a hint that attn_mask is the causal mask: as in PyTorch, without padding
    # mask and weights the attention runs causal itself (the mask then unused, also where
    # bias_k or add_zero_attn lengthen the keys)
    sdpa_causal = is_causal and key_padding_mask is None and not need_weights
    if sdpa_causal:
        attn_mask = None
    mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype, check_other=False)
    if mask is not None:
        expected = (n_q, key.shape[0]) if mask.ndim == 2 else (n * h, n_q, key.shape[0])
        if tuple(mask.shape) != expected:
            raise RuntimeError(f"The shape of the {mask.ndim}D attn_mask is {mask.shape}, but "
                               f"should be {expected}.")
        if mask.ndim == 2:
            mask = mask.unsqueeze(0)  # (1, L, S)
    if bias_k is not None and bias_v is not None:  # one more key and value, never masked
        k = _fn.cat([k, bias_k.expand(1, n, e)])
        v = _fn.cat([v, bias_v.expand(1, n, v.shape[-1])])
        mask = None if mask is None else _pad_last(mask)
        kpm = None if kpm is None else _pad_last(kpm)
    for name, what, static in (("static_k", "key", static_k), ("static_v", "value", static_v)):
        if static is None:
            continue
        if bias_k is not None:
            raise AssertionError(f"bias cannot be added to static {what}.")
        for dim, size in ((0, n * h), (2, hd)):
            if static.shape[dim] != size:
                raise AssertionError(f"expecting {name}.size({dim}) of {size}, but got "
                                     f"{static.shape[dim]}")
    q = q.reshape(n_q, n * h, hd).transpose(0, 1)  # (N * H, L, hd)
    k = static_k if static_k is not None else k.reshape(k.shape[0], n * h, hd).transpose(0, 1)
    v = static_v if static_v is not None else \
        v.reshape(v.shape[0], n * h, v.shape[-1] // h).transpose(0, 1)
    if add_zero_attn:  # one more key and value of zeros
        k = _fn.cat([k, _fn.zeros(k.shape[0], 1, k.shape[2], dtype=k.dtype)], 1)
        v = _fn.cat([v, _fn.zeros(v.shape[0], 1, v.shape[2], dtype=v.dtype)], 1)
        mask = None if mask is None else _pad_last(mask)
        kpm = None if kpm is None else _pad_last(kpm)
    s = k.shape[1]
    if kpm is not None:  # (N, S) -> (N * H, 1, S), added to the attention mask
        for dim, size in enumerate((n, s)):
            if kpm.shape[dim] != size:
                raise AssertionError(f"Expected key_padded_mask.shape[{dim}] to be {size}, but "
                                     f"got {kpm.shape[dim]}")
        kpm = kpm.reshape(n, 1, 1, s).expand(n, h, 1, s).reshape(n * h, 1, s)
        mask = kpm if mask is None else mask + kpm
    p = dropout_p if training else 0.0
    if need_weights:
        scores = (q * (1.0 / math.sqrt(hd))) @ k.mT  # (N * H, L, S)
        if mask is not None:
            scores = scores + mask
        weights = _fn.softmax(scores, -1)
        if p > 0.0:  # PyTorch returns the weights after dropout, as they were applied
            weights = dropout(weights, p, True)
        out = weights @ v
    else:
        weights = None
        sdpa_mask = None  # (N * H or 1, L or 1, S) -> (N or 1, H or 1, L or 1, S)
        if mask is not None:
            rows = mask.shape[1]
            sdpa_mask = mask.reshape(n, h, rows, s) if mask.shape[0] == n * h else \
                mask.reshape(1, 1, rows, s)
        out = scaled_dot_product_attention(q.reshape(n, h, n_q, hd), k.reshape(n, h, s, hd),
                                           v.reshape(n, h, s, v.shape[-1]), sdpa_mask, p,
                                           is_causal=sdpa_causal)
        out = out.reshape(n * h, n_q, v.shape[-1])
    out = out.transpose(0, 1).reshape(n_q, n, -1)
    out = linear(out, out_proj_weight, out_proj_bias)
    if weights is not None:
        weights = weights.reshape(n, h, n_q, s)
        if average_attn_weights:
            weights = weights.mean(1)
    if not batched:
        out = out.squeeze(1)
        weights = weights.squeeze(0) if weights is not None else None
    return out, weights


def _mha_shape_check(query: TensorBase, key: TensorBase, value: TensorBase,
                     key_padding_mask: TensorBase | None, attn_mask: TensorBase | None,
                     num_heads: int) -> bool:
    """PyTorch's checks of the inputs' dimensions; whether the input is batched (3-D query)."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received "
                             f"{query.ndim}-D query tensor")
    batched = query.ndim == 3
    kind = "batched (3-D)" if batched else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be "
                             f"{query.ndim}-D but found {key.ndim}-D and {value.ndim}-D tensors "
                             "respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or "
                             f"{query.ndim - 1}-D but found {key_padding_mask.ndim}-D tensor "
                             "instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or "
                                 f"3-D but found {attn_mask.ndim}-D tensor instead")
        expected = (num_heads, query.shape[0], key.shape[0])
        if not batched and attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got "
                                 f"{attn_mask.shape}")
    return batched


def _canonical_mask(mask: Any, mask_name: str, other_type: Any, other_name: str,
                    target_type: Any, check_other: bool = True) -> TensorBase | None:
    """PyTorch's ``F._canonical_mask``: a bool mask (True: not attended) as a 0 / -inf mask of
    ``target_type``, a float mask as it is; other dtypes are refused, and a mask whose dtype
    differs from ``other_type`` (the other mask's) gets PyTorch's deprecation warning."""
    if mask is None:
        return None
    mask = _as_tensor(mask)
    is_float = mask.is_floating_point()
    if mask.dtype != dtypes.bool and not is_float:
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use same type "
             "for both instead.")
    if is_float:
        return mask
    return wrap(np.where(mask._data, -np.inf, 0.0).astype(target_type.np))


def _none_or_dtype(input: Any) -> Any:
    """The dtype of a tensor, or None (PyTorch's ``F._none_or_dtype``)."""
    if input is None:
        return None
    if isinstance(input, TensorBase):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _as_tensor(x: Any) -> TensorBase:
    """A mask given as a tensor, an array or nested lists, as a tensor."""
    return x if isinstance(x, TensorBase) else wrap(np.asarray(x))


def _pad_last(mask: TensorBase) -> TensorBase:
    """One more (zero: attended) column at the end of the last dim."""
    return _fn.cat([mask, _fn.zeros(*mask.shape[:-1], 1, dtype=mask.dtype)], -1)
