"""``tinygrad_lite.utils.tensorboard``: log training to TensorBoard with PyTorch's
``SummaryWriter`` API, written through the real ``tensorboard`` package's event-file writer
(an optional dependency: ``pip install tensorboard``)."""

from .writer import SummaryWriter

__all__ = ["SummaryWriter"]
