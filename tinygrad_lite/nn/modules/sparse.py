"""PyTorch's ``torch.nn.modules.sparse``: Embedding."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding"]


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors, initialised from N(0, 1); the row
    ``padding_idx`` starts at zero and receives no gradient."""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: TensorBase | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            raise NotImplementedError("Embedding: max_norm, scale_grad_by_freq and sparse are "
                                      "not supported")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            dt = dtypes.float32.np if dtype is None else dtypes.to_dtype(dtype).np
            self.weight = Parameter(np.empty((num_embeddings, embedding_dim), dt))
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings: TensorBase, freeze: bool = True,
                        padding_idx: int | None = None) -> Embedding:
        """An Embedding holding ``embeddings`` (frozen by default)."""
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings, _freeze=freeze)

    def forward(self, input: TensorBase) -> TensorBase:
        """The rows selected by the integer ``input``."""
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        """The table size and ``padding_idx``."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")
