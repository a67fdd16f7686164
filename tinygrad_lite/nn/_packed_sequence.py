"""The implementation of ``nn.utils.rnn`` (PyTorch's ``torch.nn.utils.rnn``), kept outside the
``nn.utils`` package so that the recurrent layers can use it without importing ``nn.utils``
(whose parametrizations import the layers): batching sequences of different lengths, padded
(``pad_sequence``) or packed (``PackedSequence``: the time steps one after another, each holding
only the sequences still running, longest first). Packing and unpacking are indexing ops, so
gradients flow through them; the recurrent layers accept packed input."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase
from ..ops.shape import pad_constant

__all__ = ["pad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence"]


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
        raise RuntimeError("received an empty list of sequences")
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


class PackedSequence(NamedTuple):
    """Sequences packed time step by time step: ``data`` (sum of lengths, *), ``batch_sizes``
    (how many sequences run at each step), and the permutation between the caller's order and
    the longest-first order (``sorted_indices``/``unsorted_indices``, None if already sorted)."""

    data: TensorBase
    batch_sizes: TensorBase
    sorted_indices: TensorBase | None = None
    unsorted_indices: TensorBase | None = None

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same packing with ``data`` converted (dtype; the CPU is the only device)."""
        return self._replace(data=self.data.to(*args, **kwargs))

    def double(self) -> PackedSequence:
        """``data`` in float64."""
        return self._replace(data=self.data.double())

    def float(self) -> PackedSequence:
        """``data`` in float32."""
        return self._replace(data=self.data.float())

    @property
    def is_cuda(self) -> bool:
        """False: CPU only."""
        return False


def _lengths(lengths: Any) -> np.ndarray:
    """The lengths as a 1-d int64 array (PyTorch refuses any other shape)."""
    arr = np.asarray(lengths._data if isinstance(lengths, TensorBase) else lengths)
    if arr.ndim != 1:
        raise RuntimeError(f"'lengths' argument should be a 1D CPU int64 tensor, but got "
                           f"{arr.ndim}D cpu tensor")
    return arr.astype(np.int64, copy=False)


def pack_padded_sequence(input: TensorBase, lengths: Any, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch ``(T, B, *)`` (or ``(B, T, *)``) of sequences of ``lengths``."""
    lens = _lengths(lengths)
    if input.ndim < 2:
        raise IndexError(f"pack_padded_sequence: expected a padded batch (T, B, *), got shape "
                         f"{tuple(input.shape)}")
    batch = input.shape[1 if not batch_first else 0]
    if len(lens) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={batch})")
    if (lens <= 0).any():
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if enforce_sorted:
        if (np.diff(lens) > 0).any():
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        order = np.arange(len(lens))
        sorted_idx = unsorted_idx = None
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_idx = _fn.tensor(order)
        unsorted_idx = _fn.tensor(np.argsort(order))
    x = input if not batch_first else input.transpose(0, 1)
    if lens.max() > x.shape[0]:
        raise RuntimeError(f"pack_padded_sequence: a length ({lens.max()}) exceeds the padded "
                           f"length ({x.shape[0]})")
    sorted_lens = lens[order]
    batch_sizes = np.array([(sorted_lens > t).sum() for t in range(int(sorted_lens[0]))],
                           np.int64)
    steps = np.concatenate([np.full(n, t) for t, n in enumerate(batch_sizes)])
    cols = np.concatenate([order[:n] for n in batch_sizes])
    data = x[_fn.tensor(steps), _fn.tensor(cols)]
    return PackedSequence(data, _fn.tensor(batch_sizes), sorted_idx, unsorted_idx)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0, total_length: int | None = None) -> tuple:
    """Unpack to ``(padded, lengths)``: the batch in the caller's original order."""
    data, batch_sizes = sequence.data, sequence.batch_sizes._data
    steps = len(batch_sizes)
    n = int(batch_sizes[0])
    length = steps if total_length is None else int(total_length)
    if length < steps:
        raise ValueError(f"Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {steps}")
    rows = np.concatenate([np.full(b, t) for t, b in enumerate(batch_sizes)])
    cols = np.concatenate([np.arange(b) for b in batch_sizes])
    positions = rows * n + cols  # where each packed row lands in the (T * B) padded rows
    source = np.full(length * n, data.shape[0], np.int64)  # the extra row: padding
    source[positions] = np.arange(data.shape[0])
    filler = _fn.full((1, *data.shape[1:]), padding_value, dtype=data.dtype)
    padded = _fn.cat([data, filler], 0)[_fn.tensor(source)].reshape(length, n,
                                                                     *data.shape[1:])
    lengths = (batch_sizes[None, :] > np.arange(n)[:, None]).sum(1)
    if sequence.unsorted_indices is not None:
        back = sequence.unsorted_indices._data
        padded = padded[:, _fn.tensor(back)]
        lengths = lengths[back]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, _fn.tensor(lengths.astype(np.int64))


def pack_sequence(sequences: list[TensorBase], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences ``(L_i, *)``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences: TensorBase, lengths: Any,
                   batch_first: bool = False) -> list[TensorBase]:
    """The sequences of a padded batch, each cut to its length."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, :int(n)] for i, n in enumerate(_lengths(lengths))]


def unpack_sequence(packed_sequences: PackedSequence) -> list[TensorBase]:
    """The sequences of a packed batch, in the caller's order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
