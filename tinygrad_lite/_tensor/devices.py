"""Where a tensor lives: always CPU memory here (``get_device``, ``is_cuda``, ``is_mps``,
``is_distributed``), ``cuda()`` refused, pinned memory accepted (``pin_memory``,
``is_pinned``)."""

from __future__ import annotations

from typing import Any

from .._core.device import DeviceUnavailableError
from .._core.tensor_base import TensorBase
from . import constant

__all__ = ["METHODS", "PROPERTIES"]


def get_device(self: TensorBase) -> int:
    """-1: the tensor is in CPU memory, as PyTorch says for CPU tensors."""
    return -1


def cuda(self: TensorBase, device: Any = None, non_blocking: bool = False,
         **kwargs: Any) -> TensorBase:
    """Refused: there is no GPU here (the same error as ``.to("cuda")``)."""
    raise DeviceUnavailableError(
        "cuda: tinygrad_lite was not compiled with CUDA enabled; its tensors live in CPU memory "
        "(NumPy arrays). Use .cpu() or .to('cpu'), or choose the device with "
        "tl.cuda.is_available().")


def pin_memory(self: TensorBase, device: Any = None) -> TensorBase:
    """The tensor itself: there is no device to pin memory for (DataLoader's pin_memory=True
    is accepted the same way)."""
    return self


def is_pinned(self: TensorBase, device: Any = None) -> bool:
    """False: memory is never pinned here."""
    return False


def is_distributed(self: TensorBase) -> bool:
    """False: a tensor is never split across processes."""
    return False


METHODS: dict[str, Any] = {f.__name__: f for f in (
    get_device, cuda, pin_memory, is_pinned, is_distributed)}
# every accelerator PyTorch 2.13 asks about: tensors are never on one here
PROPERTIES = {f"is_{name}": constant(False) for name in (
    "cuda", "mps", "xpu", "ipu", "xla", "mtia", "maia", "vulkan", "hpu")}
