"""PyTorch's ``torch.nn.utils.rnn``: batching sequences of different lengths, padded
(``pad_sequence``) or packed (``PackedSequence``); implemented in ``nn._packed_sequence``."""

from .._packed_sequence import (
    PackedSequence,
    pack_padded_sequence,
    pack_sequence,
    pad_packed_sequence,
    pad_sequence,
    unpack_sequence,
    unpad_sequence,
)

__all__ = ["pad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence",
           "pack_sequence", "unpack_sequence", "unpad_sequence"]
