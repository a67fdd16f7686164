"""PyTorch's ``torch.nn.modules.channelshuffle``: ChannelShuffle."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .module import Module

__all__ = ["ChannelShuffle"]


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
