"""PyTorch's ``torch.nn.modules.distance``: CosineSimilarity and PairwiseDistance."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["CosineSimilarity", "PairwiseDistance"]


class CosineSimilarity(Module):
    """Cosine similarity of two inputs along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1: TensorBase, x2: TensorBase) -> TensorBase:
        """The similarity."""
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """The p-norm distance between the rows of two inputs."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1: TensorBase, x2: TensorBase) -> TensorBase:
        """The distances."""
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
