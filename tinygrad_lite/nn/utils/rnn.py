"""PyTorch's ``torch.nn.utils.rnn``: ``pad_sequence``, which batches sequences of different
lengths (differentiable: each sequence is padded by one recorded op, then they are stacked)."""

from __future__ import annotations

from collections.abc import Iterable

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ...ops.shape import pad_constant

__all__ = ["pad_sequence"]


def pad_sequence(sequences: TensorBase | Iterable[TensorBase], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> TensorBase:
    """Pad sequences of shape ``(L_i, *)`` with ``padding_value`` to the longest length ``T``
    (on the right, or the left with ``padding_side='left'``) and stack them: ``(T, B, *)``,
    or ``(B, T, *)`` with ``batch_first``. The result has the first sequence's dtype."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    seqs = list(sequences)
    if not seqs:
        raise RuntimeError("pad_sequence: received an empty list of sequences")
    first = seqs[0]
    for i, s in enumerate(seqs):
        if not isinstance(s, TensorBase) or s.ndim == 0:
            what = type(s).__name__ if not isinstance(s, TensorBase) else "a 0-d tensor"
            raise RuntimeError(f"pad_sequence: expected tensors of shape (L, *), got {what} at "
                               f"index {i}")
        if tuple(s.shape[1:]) != tuple(first.shape[1:]):
            raise RuntimeError(f"pad_sequence: the sequences' trailing dims must match, got "
                               f"{tuple(first.shape)} at index 0 and {tuple(s.shape)} at index "
                               f"{i}")
    length = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        if s._data.dtype != first._data.dtype:
            s = s.to(first.dtype)
        extra = length - s.shape[0]
        if extra:
            along = (extra, 0) if padding_side == "left" else (0, extra)
            s = pad_constant(s, (along,) + ((0, 0),) * (s.ndim - 1), padding_value)
        padded.append(s)
    return _fn.stack(padded, 0 if batch_first else 1)
