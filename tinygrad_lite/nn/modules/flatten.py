"""PyTorch's ``torch.nn.modules.flatten``: Flatten, Unflatten."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from .module import Module

__all__ = ["Flatten", "Unflatten"]


class Flatten(Module):
    """Flattens dims ``start_dim..end_dim`` (1..-1 by default, keeping the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: TensorBase) -> TensorBase:
        """The flattened input."""
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        """``start_dim`` and ``end_dim``."""
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size``."""

    def __init__(self, dim: int, unflattened_size: tuple) -> None:
        super().__init__()
        self.dim, self.unflattened_size = dim, tuple(unflattened_size)

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with one dim split into several."""
        d = self.dim % input.ndim
        shape = tuple(input.shape)
        return input.reshape(*shape[:d], *self.unflattened_size, *shape[d + 1:])

    def extra_repr(self) -> str:
        """``dim`` and ``unflattened_size``."""
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
