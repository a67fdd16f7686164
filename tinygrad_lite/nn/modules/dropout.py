"""PyTorch's ``torch.nn.modules.dropout``: Dropout, Dropout1d/2d/3d, AlphaDropout,
FeatureAlphaDropout."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


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


class _DropoutNd(Module):
    """Shared constructor and repr of the dropout family."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        """``p`` and ``inplace``."""
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zeroes whole channels of (N, C, L) or (C, L) input in training mode."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with channel dropout applied (identity in eval mode)."""
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zeroes whole channels of (N, C, H, W) or (C, H, W) input in training mode."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with channel dropout applied (identity in eval mode)."""
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """Zeroes whole channels of (N, C, D, H, W) or (C, D, H, W) input in training mode."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with channel dropout applied (identity in eval mode)."""
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU activations self-normalising."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with alpha dropout applied (identity in eval mode)."""
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels."""

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with channel alpha dropout applied (identity in eval mode)."""
        return F.feature_alpha_dropout(input, self.p, self.training)
