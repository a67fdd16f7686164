"""``tinygrad_lite.utils``: data loading, activation checkpointing, DLPack exchange, hook
handles, TensorBoard logging (``utils.tensorboard``: its writer needs the optional tensorboard
package when created)."""

from . import checkpoint, data, dlpack, hooks, tensorboard

__all__ = ["checkpoint", "data", "dlpack", "hooks", "tensorboard"]
