"""``tinygrad_lite.utils``: data loading, activation checkpointing, TensorBoard logging
(``utils.tensorboard``: its writer needs the optional tensorboard package when created)."""

from . import checkpoint, data, tensorboard

__all__ = ["checkpoint", "data", "tensorboard"]
