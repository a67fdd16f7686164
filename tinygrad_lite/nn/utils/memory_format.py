"""PyTorch's ``torch.nn.utils.memory_format``: give the weights of the 2-D (or 3-D)
convolutions in a module tree a memory format (``channels_last`` / ``channels_last_3d``)."""

from __future__ import annotations

from typing import Any, TypeVar

from ..modules.conv import Conv2d, Conv3d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M", bound=Module)


def _convert(module: _M, memory_format: Any, kinds: tuple[type, ...]) -> _M:
    """Re-lay the weight of every module of ``kinds`` in the tree in ``memory_format``, in
    place (the same Parameter object, its data swapped); returns ``module``."""
    if isinstance(module, kinds):
        module.weight.data = module.weight.detach().clone(memory_format=memory_format)
    for child in module.children():
        _convert(child, memory_format, kinds)
    return module


def convert_conv2d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """Give the weight of each ``Conv2d`` / ``ConvTranspose2d`` in ``module`` the memory
    format ``memory_format`` (e.g. ``channels_last``)."""
    return _convert(module, memory_format, (Conv2d, ConvTranspose2d))


def convert_conv3d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """Give the weight of each ``Conv3d`` / ``ConvTranspose3d`` in ``module`` the memory
    format ``memory_format`` (e.g. ``channels_last_3d``)."""
    return _convert(module, memory_format, (Conv3d, ConvTranspose3d))
