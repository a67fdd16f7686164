"""``tinygrad_lite.utils``: data loading, activation checkpointing, DLPack exchange, hook
handles, TensorBoard logging (``utils.tensorboard``: its writer needs the optional tensorboard
package when created), timing statements (``utils.benchmark``) and nested-container helpers
(``utils._pytree``, the private module libraries import).

Each submodule loads on first access (``tl.utils.data``), not with the package: a program that
loads data need not load the TensorBoard writer or the benchmark timer (PEP 562, as the
package's own lazy submodules in ``tinygrad_lite/__init__.py``)."""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what loads lazily, for type checkers and editors
    from . import (
        _pytree,  # noqa: F401 - an attribute only, as torch.utils._pytree
        benchmark,
        checkpoint,
        data,
        dlpack,
        hooks,
        tensorboard,
    )

__all__ = ["benchmark", "checkpoint", "data", "dlpack", "hooks", "tensorboard"]

# _pytree: an attribute too, as torch.utils._pytree (not in __all__, as PyTorch's)
_LAZY_SUBMODULES = ("_pytree", *__all__)


def __getattr__(name: str) -> Any:
    """A submodule, imported on first access (PEP 562)."""
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_SUBMODULES})
