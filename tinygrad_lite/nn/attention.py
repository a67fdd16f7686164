"""``MultiheadAttention`` with PyTorch's parameter names (in_proj_weight, out_proj.*)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import init
from .functional_attention import multi_head_attention_forward
from .linear import Linear
from .module import Module
from .parameter import Parameter

__all__ = ["MultiheadAttention"]


class NonDynamicallyQuantizableLinear(Linear):
    """PyTorch's name for the output projection of MultiheadAttention (a plain Linear)."""


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of size ``embed_dim // num_heads``. Inputs are
    (L, N, E), or (N, L, E) with ``batch_first``; bool masks mark positions NOT attended."""

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False,
                 kdim: int | None = None, vdim: int | None = None, batch_first: bool = False,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        if embed_dim % num_heads:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention: add_bias_kv and add_zero_attn are not "
                                      "supported")
        dt = dtypes.float32.np if dtype is None else dtypes.to_dtype(dtype).np
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.batch_first, self.head_dim = batch_first, embed_dim // num_heads
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(np.empty((3 * embed_dim, embed_dim), dt))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(np.empty((embed_dim, embed_dim), dt))
            self.k_proj_weight = Parameter(np.empty((embed_dim, self.kdim), dt))
            self.v_proj_weight = Parameter(np.empty((embed_dim, self.vdim), dt))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(np.empty(3 * embed_dim, dt))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """``(attn_output, attn_weights)``; weights averaged over heads unless
        ``average_attn_weights=False``, None unless ``need_weights``."""
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                kpm = key_padding_mask
                key_padding_mask = kpm.unsqueeze(0) if isinstance(kpm, Tensor) else \
                    np.asarray(kpm)[None]
        elif self.batch_first:
            pass
        if not self.batch_first or unbatched:
            query, key, value = (t.transpose(0, 1) for t in (query, key, value))
        e = self.embed_dim
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            qw, kw, vw = w[:e], w[e:2 * e], w[2 * e:]
        else:
            qw, kw, vw = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        b = self.in_proj_bias
        qb, kb, vb = (None, None, None) if b is None else (b[:e], b[e:2 * e], b[2 * e:])
        out, weights = multi_head_attention_forward(
            query, key, value, self.num_heads, qw, kw, vw, qb, kb, vb, self.out_proj.weight,
            self.out_proj.bias, self.dropout, self.training, key_padding_mask, need_weights,
            attn_mask, average_attn_weights, is_causal)
        if not self.batch_first or unbatched:
            out = out.transpose(0, 1)
        if unbatched:
            out = out.squeeze(1)
            weights = weights.squeeze(0) if weights is not None else None
        return out, weights

    def extra_repr(self) -> str:
        return ""
