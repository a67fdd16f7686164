"""PyTorch's ``torch.nn.modules`` path, for ``tl.nn.modules.module.register_module_*_hook``."""

from . import module

__all__ = ["module"]
