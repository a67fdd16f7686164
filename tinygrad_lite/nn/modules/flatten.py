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


def _require_tuple_int(size: object) -> None:
    """PyTorch's check of ``Unflatten``'s ``unflattened_size``: a tuple or list of ints."""
    if not isinstance(size, (tuple, list)):
        raise TypeError("unflattened_size must be a tuple of ints, but found type "
                        f"{type(size).__name__}")
    for idx, elem in enumerate(size):
        if not isinstance(elem, int):
            raise TypeError("unflattened_size must be tuple of ints, but found element of type "
                            f"{type(elem).__name__} at pos {idx}")


class Unflatten(Module):
    """Splits dim ``dim`` into ``unflattened_size``."""

    def __init__(self, dim: int, unflattened_size: tuple | list) -> None:
        super().__init__()
        _require_tuple_int(unflattened_size)
        # kept as given (a list prints as a list in repr, as in PyTorch)
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with one dim split into several."""
        d = self.dim % input.ndim
        shape = tuple(input.shape)
        return input.reshape(*shape[:d], *self.unflattened_size, *shape[d + 1:])

    def extra_repr(self) -> str:
        """``dim`` and ``unflattened_size``."""
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"
