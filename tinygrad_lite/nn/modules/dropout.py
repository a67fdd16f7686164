"""PyTorch's ``torch.nn.modules.dropout``: Dropout."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["Dropout"]


class Dropout(Module):
    """Zeroes elements with probability ``p`` in training mode (scaling the rest by 1/(1-p));
    with ``inplace=True`` the input itself is overwritten."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with dropout applied (identity in eval mode)."""
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        """``p`` and ``inplace``."""
        return f"p={self.p}, inplace={self.inplace}"
