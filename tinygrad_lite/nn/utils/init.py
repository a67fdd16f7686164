"""PyTorch's ``torch.nn.utils.init``: ``skip_init``."""

from __future__ import annotations

import inspect
from typing import Any

from ..modules.module import Module

__all__ = ["skip_init"]


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """Construct ``module_cls(*args, **kwargs)`` without initialising its parameters: built on
    the meta device (no initialisation work), then given uninitialised memory on ``device``
    (the CPU by default), as PyTorch does. The class must take a ``device`` argument."""
    if not (isinstance(module_cls, type) and issubclass(module_cls, Module)):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    final = kwargs.pop("device", None)
    cls: Any = module_cls  # (any Module subclass taking ``device``)
    return cls(*args, device="meta", **kwargs).to_empty(device=final or "cpu")
