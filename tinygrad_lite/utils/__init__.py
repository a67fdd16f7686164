"""``tinygrad_lite.utils``: data loading, activation checkpointing, DLPack exchange, hook
handles, TensorBoard logging (``utils.tensorboard``: its writer needs the optional tensorboard
package when created), timing statements (``utils.benchmark``) and nested-container helpers
(``utils._pytree``, the private module libraries import)."""

from . import (  # noqa: F401 - _pytree: imported for the attribute, as torch.utils._pytree
    _pytree,
    benchmark,
    checkpoint,
    data,
    dlpack,
    hooks,
    tensorboard,
)

__all__ = ["benchmark", "checkpoint", "data", "dlpack", "hooks", "tensorboard"]
