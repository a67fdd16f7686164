"""``nn.DataParallel``: PyTorch's single-process wrapper splits a batch over GPUs; with no GPUs
(as PyTorch on a CPU machine) it calls the module directly. Kept so that programs written
for GPUs run unchanged: ``model = nn.DataParallel(model)``, ``model.module``, state dict keys
prefixed ``module.``."""

from __future__ import annotations

from typing import Any

from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """A transparent wrapper: ``forward`` is the wrapped module's."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []
        self.output_device, self.dim = output_device, dim

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """The wrapped module's output."""
        return self.module(*inputs, **kwargs)


def data_parallel(module: Module, inputs: Any, device_ids: Any = None, output_device: Any = None,
                  dim: int = 0, module_kwargs: Any = None) -> Any:
    """``module(*inputs)`` (there are no devices to spread the batch over)."""
    args = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*args, **(module_kwargs or {}))
