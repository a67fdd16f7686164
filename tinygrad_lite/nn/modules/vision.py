"""PyTorch's ``torch.nn.modules.upsampling``, ``pixelshuffle``, ``fold`` and
``channelshuffle``: Upsample, UpsamplingNearest2d, UpsamplingBilinear2d, PixelShuffle,
PixelUnshuffle, Unfold, Fold, ChannelShuffle."""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d", "PixelShuffle",
           "PixelUnshuffle", "Unfold", "Fold", "ChannelShuffle"]


class Upsample(Module):
    """Resizes (N, C, *spatial) input with ``F.interpolate``."""

    def __init__(self, size: Any = None, scale_factor: Any = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) \
            else scale_factor
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: TensorBase) -> TensorBase:
        """The resized input."""
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        """``size`` or ``scale_factor``, and the mode."""
        what = f"scale_factor={self.scale_factor}" if self.scale_factor is not None \
            else f"size={self.size}"
        return f"{what}, mode='{self.mode}'"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour upsampling of (N, C, H, W) input."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear upsampling with ``align_corners=True`` (this layer's historical behaviour)."""

    def __init__(self, size: Any = None, scale_factor: Any = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


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


class Unfold(Module):
    """Extracts sliding local blocks: (N, C, H, W) -> (N, C k_h k_w, L)."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: TensorBase) -> TensorBase:
        """The columns of the sliding blocks."""
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        """The window arguments."""
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


class Fold(Module):
    """Sums sliding local blocks into an image: (N, C k_h k_w, L) -> (N, C, *output_size)."""

    def __init__(self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
                 stride: Any = 1) -> None:
        super().__init__()
        self.output_size, self.kernel_size, self.dilation = output_size, kernel_size, dilation
        self.padding, self.stride = padding, stride

    def forward(self, input: TensorBase) -> TensorBase:
        """The image the blocks add up to."""
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        """The output size and window arguments."""
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class ChannelShuffle(Module):
    """Interleaves the channels of ``groups`` groups (ShuffleNet)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: TensorBase) -> TensorBase:
        """The input with its channels shuffled."""
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self) -> str:
        """The number of groups."""
        return f"groups={self.groups}"
