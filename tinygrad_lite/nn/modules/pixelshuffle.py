"""PyTorch's ``torch.nn.modules.pixelshuffle``: PixelShuffle, PixelUnshuffle."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """(*, C r^2, H, W) -> (*, C, H r, W r)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: TensorBase) -> TensorBase:
        """The rearranged input."""
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        """The upscale factor."""
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """(*, C, H r, W r) -> (*, C r^2, H, W)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: TensorBase) -> TensorBase:
        """The rearranged input."""
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        """The downscale factor."""
        return f"downscale_factor={self.downscale_factor}"
