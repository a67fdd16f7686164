"""PyTorch's ``torch.nn.modules.sparse``: Embedding and EmbeddingBag."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import dtypes
from ..._core.grad_mode import no_grad
from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding", "EmbeddingBag"]


def _table(module: Module, num_embeddings: int, embedding_dim: int, weight: Any, freeze: bool,
           dtype: Any) -> None:
    """Create (N(0, 1)) or adopt the weight table of an embedding module."""
    if weight is None:
        dt = dtypes.default_float_np(dtype)
        module.weight = Parameter(np.empty((num_embeddings, embedding_dim), dt))
        module.reset_parameters()
    else:
        if tuple(weight.shape) != (num_embeddings, embedding_dim):
            raise AssertionError("Shape of weight does not match num_embeddings and "
                                 "embedding_dim")
        module.weight = Parameter(weight, requires_grad=not freeze)


def _padding(padding_idx: int | None, num_embeddings: int) -> int | None:
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError("Padding_idx must be within num_embeddings")
    return padding_idx % num_embeddings


class Embedding(Module):
    """A lookup table of ``num_embeddings`` vectors, initialised from N(0, 1); the row
    ``padding_idx`` starts at zero and receives no gradient. (``sparse=True`` is accepted and
    gives a dense gradient.)"""

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: TensorBase | None = None, _freeze: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.padding_idx = _padding(padding_idx, num_embeddings)
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        _table(self, num_embeddings, embedding_dim, _weight, _freeze, dtype)

    def reset_parameters(self) -> None:
        """N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings: TensorBase, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An Embedding holding ``embeddings`` (shared, frozen by default)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def forward(self, input: TensorBase) -> TensorBase:
        """The rows selected by the integer ``input``."""
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self) -> str:
        """The table size and the non-default options."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        return s + (", sparse=True" if self.sparse is not False else "")


class EmbeddingBag(Module):
    """Sums, means or maxima of bags of embeddings, without building the per-index rows as a
    separate layer's output; ``forward(input, offsets, per_sample_weights)``."""

    def __init__(self, num_embeddings: int, embedding_dim: int, max_norm: float | None = None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, mode: str = "mean",
                 sparse: bool = False, _weight: TensorBase | None = None,
                 include_last_offset: bool = False, padding_idx: int | None = None,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.mode, self.sparse = scale_grad_by_freq, mode, sparse
        self.include_last_offset = include_last_offset
        self.padding_idx = _padding(padding_idx, num_embeddings)
        _table(self, num_embeddings, embedding_dim, _weight, False, dtype)

    def reset_parameters(self) -> None:
        """N(0, 1), with the padding row zeroed."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight._data[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings: TensorBase, freeze: bool = True,
                        max_norm: float | None = None, norm_type: float = 2.0,
                        scale_grad_by_freq: bool = False, mode: str = "mean",
                        sparse: bool = False, include_last_offset: bool = False,
                        padding_idx: int | None = None) -> EmbeddingBag:
        """An EmbeddingBag holding ``embeddings`` (shared, frozen by default)."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                  include_last_offset, padding_idx)
        bag.weight.requires_grad_(not freeze)
        return bag

    def forward(self, input: TensorBase, offsets: TensorBase | None = None,
                per_sample_weights: TensorBase | None = None) -> TensorBase:
        """One reduced vector per bag: (B, embedding_dim)."""
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self) -> str:
        """The table size, the mode and the non-default options."""
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        return s + (f", padding_idx={self.padding_idx}" if self.padding_idx is not None else "")
