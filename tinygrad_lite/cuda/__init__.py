"""``tl.cuda``: what a program asks about GPUs, answered truthfully: there are none. Programs
choose their device with ``"cuda" if tl.cuda.is_available() else "cpu"`` and go on; seeding calls
are accepted (they seed nothing); anything that needs a GPU raises the CPU-only error."""

from __future__ import annotations

from typing import Any

from .._core.device import DeviceUnavailableError
from . import amp

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "seed",
           "seed_all", "is_initialized", "synchronize", "empty_cache", "current_device",
           "get_device_name", "set_device", "amp", "is_bf16_supported", "FloatTensor",
           "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]

_NO_GPU = ("tl.cuda.{name}: no GPU here: tinygrad_lite was not compiled with CUDA enabled and "
           "its tensors live in CPU memory")


def is_available() -> bool:
    """False: tinygrad_lite runs on the CPU."""
    return False


def device_count() -> int:
    """0: no GPUs."""
    return 0


def is_initialized() -> bool:
    """False: there is no CUDA state."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False: there is no GPU."""
    return False


def manual_seed(seed: int) -> None:
    """Accepted (there is no GPU generator to seed)."""


def manual_seed_all(seed: int) -> None:
    """Accepted (there is no GPU generator to seed)."""


def seed() -> None:
    """Accepted (there is no GPU generator to seed)."""


def seed_all() -> None:
    """Accepted (there is no GPU generator to seed)."""


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: CPU operations are synchronous."""


def empty_cache() -> None:
    """Nothing to free: there is no GPU memory cache."""


def current_device() -> int:
    """Raises: there is no current GPU."""
    raise DeviceUnavailableError(_NO_GPU.format(name="current_device"))


def get_device_name(device: Any = None) -> str:
    """Raises: there is no GPU to name."""
    raise DeviceUnavailableError(_NO_GPU.format(name="get_device_name"))


def set_device(device: Any) -> None:
    """Raises: there is no GPU to select."""
    raise DeviceUnavailableError(_NO_GPU.format(name="set_device"))


class _CudaTensorType(type):
    """Metaclass of ``tl.cuda.FloatTensor`` and friends: no tensor is one (none lives on a
    GPU), and making one raises PyTorch's CPU-only TypeError."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return False

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"type torch.cuda.{cls.__name__} not available. Torch not compiled "
                        f"with CUDA enabled.")

    def __repr__(cls) -> str:
        return f"<class 'torch.cuda.{cls.__name__}'>"


def _cuda_type(name: str) -> Any:
    return _CudaTensorType(name, (), {"__doc__": f"The legacy GPU type {name}: unavailable."})


FloatTensor, DoubleTensor, HalfTensor = (_cuda_type(n) for n in ("FloatTensor", "DoubleTensor",
                                                                  "HalfTensor"))
BFloat16Tensor, LongTensor, IntTensor = (_cuda_type(n) for n in ("BFloat16Tensor", "LongTensor",
                                                                  "IntTensor"))
ShortTensor, CharTensor, ByteTensor, BoolTensor = (
    _cuda_type(n) for n in ("ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"))
