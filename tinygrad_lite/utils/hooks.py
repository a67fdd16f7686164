"""PyTorch's ``torch.utils.hooks``: the handle every ``register_*hook`` returns (for code that
keeps its own hook dicts the same way), and the marks PyTorch puts on hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._core.graph import RemovableHandle
from .._core.warnings import warn

__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks"]


def unserializable_hook(f: Callable) -> Callable:
    """Mark a tensor hook as one that saving the tensor should not warn about."""
    f.__torch_unserializable__ = True  # type: ignore[attr-defined]
    return f


def warn_if_has_hooks(tensor: Any) -> None:
    """Warn that ``tensor``'s backward hooks are not saved with it (each one not marked by
    ``unserializable_hook``)."""
    hooks = getattr(tensor, "_backward_hooks", None) or {}
    for hook in hooks.values():
        if not hasattr(hook, "__torch_unserializable__"):
            warn(f"backward hook {hook!r} on tensor will not be serialized. If this "
                 "is expected, you can decorate the function with "
                 "@torch.utils.hooks.unserializable_hook to suppress this warning")
