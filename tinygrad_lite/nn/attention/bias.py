"""``tl.nn.attention.bias``: causal masks that ``F.scaled_dot_product_attention`` takes as its
``attn_mask`` without being handed the (L, S) matrix (PyTorch's ``torch.nn.attention.bias``).

``causal_upper_left(L, S)`` is the usual causal mask, ``tril(ones(L, S))``: query ``i`` sees keys
``0..i`` (what ``is_causal=True`` means). ``causal_lower_right(L, S)`` aligns the diagonal with
the bottom-right corner, ``tril(ones(L, S), diagonal=S - L)``: the last query sees every key, as
when ``L`` new queries follow ``S - L`` cached ones. With ``L > S`` its first ``L - S`` rows allow
no key; SDPA gives those queries a zero output and zero gradients, as PyTorch's CPU kernels do.

The attention runs as ``is_causal=True`` where the two agree (upper-left, or ``L == S``), and
otherwise with the materialized boolean mask.
"""

from __future__ import annotations

import enum
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(enum.IntEnum):
    """Which corner a causal mask's diagonal starts from (the two agree when ``L == S``).

    ``UPPER_LEFT``: ``tril(ones(L, S))``; for (3, 4)::

        [[1, 0, 0, 0],
         [1, 1, 0, 0],
         [1, 1, 1, 0]]

    ``LOWER_RIGHT``: ``tril(ones(L, S), diagonal=S - L)``; for (3, 4)::

        [[1, 1, 0, 0],
         [1, 1, 1, 0],
         [1, 1, 1, 1]]
    """

    UPPER_LEFT = 1
    LOWER_RIGHT = 2


class CausalBias:
    """A causal (triangular) attention mask of ``seq_len_q`` queries by ``seq_len_kv`` keys,
    given to ``F.scaled_dot_product_attention`` as ``attn_mask``. Build it with
    ``causal_upper_left`` or ``causal_lower_right``; ``_materialize()`` gives the boolean
    (L, S) mask (True: may attend).

    Unlike PyTorch's (a ``torch.Tensor`` subclass holding an uninitialised (1, L, S) float
    tensor), this is a plain object: only SDPA takes it as a mask."""

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        if not isinstance(variant, CausalVariant):
            raise AssertionError(
                f"variant must be a CausalVariant, got {type(variant).__name__}")
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            # PyTorch's wording; here (as in PyTorch's CPU kernels) those rows give zeros
            warn("Lower right causal bias will produce NaNs in the output when "
                 "seq_len_q > seq_len_kv!")

    def _upper_left(self, device: Any) -> TensorBase:
        """``tril(ones(L, S))``, boolean."""
        return self._tril(0, device)

    def _lower_right(self, device: Any) -> TensorBase:
        """``tril(ones(L, S), diagonal=S - L)``, boolean."""
        return self._tril(self.seq_len_kv - self.seq_len_q, device)

    def _tril(self, diagonal: int, device: Any) -> TensorBase:
        ones = np.ones((self.seq_len_q, self.seq_len_kv), np.bool_)
        return _fn.tensor(np.tril(ones, diagonal), device=device)

    def _materialize(self, device: Any = None) -> TensorBase:
        """The mask as a boolean (L, S) tensor (True: the query may attend the key)."""
        if self.variant == CausalVariant.UPPER_LEFT:
            return self._upper_left(device)
        if self.variant == CausalVariant.LOWER_RIGHT:
            return self._lower_right(device)
        raise ValueError(
            f"CausalBias.variant must be a CausalVariant type, but found: {self.variant}")

    def __repr__(self) -> str:
        return repr(self._materialize())


def causal_upper_left(*size: int) -> CausalBias:
    """The upper-left causal mask of ``size = (seq_len_q, seq_len_kv)``: ``tril(ones(size))``,
    the same as ``is_causal=True``."""
    if len(size) != 2:
        raise AssertionError("causal_upper_left only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.UPPER_LEFT, seq_len_q, seq_len_kv)


def causal_lower_right(*size: int) -> CausalBias:
    """The lower-right causal mask of ``size = (seq_len_q, seq_len_kv)``:
    ``tril(ones(size), diagonal=seq_len_kv - seq_len_q)``."""
    if len(size) != 2:
        raise AssertionError("causal_lower_right only supports 2D tensors")
    seq_len_q, seq_len_kv = size
    return CausalBias(CausalVariant.LOWER_RIGHT, seq_len_q, seq_len_kv)
