"""PyTorch's ``torch.nn.utils.init``: ``skip_init``."""

from __future__ import annotations

from typing import Any

__all__ = ["skip_init"]


def skip_init(module_cls: Any, *args: Any, **kwargs: Any) -> Any:
    """Construct ``module_cls(*args, **kwargs)``. PyTorch leaves the parameters uninitialised;
    here they hold the layer's usual initialisation (there is no uninitialised memory)."""
    if "device" not in module_cls.__init__.__code__.co_varnames:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    return module_cls(*args, **kwargs)
