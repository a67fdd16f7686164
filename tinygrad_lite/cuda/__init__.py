"""``tl.cuda``: what a program asks about GPUs, answered truthfully: there are none. Programs
choose their device with ``"cuda" if tl.cuda.is_available() else "cpu"`` and go on; seeding calls
are accepted (they seed nothing); anything that needs a GPU raises the CPU-only error."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .._core.device import DeviceUnavailableError
from . import amp

__all__ = ["is_available", "device_count", "manual_seed", "manual_seed_all", "seed",
           "seed_all", "is_initialized", "synchronize", "empty_cache", "current_device",
           "get_device_name", "set_device", "amp", "is_bf16_supported", "FloatTensor",
           "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "memory_allocated",
           "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "reset_max_memory_allocated", "get_arch_list",
           "get_device_properties", "get_device_capability", "mem_get_info", "current_stream",
           "get_rng_state", "set_rng_state", "init", "ipc_collect", "Stream", "Event",
           "stream", "device"]

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


def memory_allocated(device: Any = None) -> int:
    """0 bytes: no GPU memory is in use."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0 bytes: no GPU memory was ever in use."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """0 bytes: there is no GPU memory cache."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0 bytes: there is no GPU memory cache."""
    return 0


def reset_peak_memory_stats(device: Any = None) -> None:
    """Accepted: there are no GPU memory statistics to reset."""


def reset_max_memory_allocated(device: Any = None) -> None:
    """Accepted: there are no GPU memory statistics to reset."""


def get_arch_list() -> list[str]:
    """No GPU architectures: tinygrad_lite has no GPU kernels."""
    return []


def _unavailable(name: str) -> Any:
    def raise_no_gpu(*args: Any, **kwargs: Any) -> Any:
        raise DeviceUnavailableError(_NO_GPU.format(name=name))

    raise_no_gpu.__name__ = raise_no_gpu.__qualname__ = name
    raise_no_gpu.__doc__ = f"Raises: ``{name}`` needs a GPU."
    return raise_no_gpu


get_device_properties = _unavailable("get_device_properties")
get_device_capability = _unavailable("get_device_capability")
mem_get_info = _unavailable("mem_get_info")
current_stream = _unavailable("current_stream")
get_rng_state = _unavailable("get_rng_state")
set_rng_state = _unavailable("set_rng_state")
init = _unavailable("init")
ipc_collect = _unavailable("ipc_collect")


class Stream:
    """A GPU stream: cannot be made without a GPU (PyTorch's CPU-only error)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise DeviceUnavailableError("torch.cuda.Stream requires CUDA support (tinygrad_lite "
                                     "runs on the CPU)")


class Event:
    """A GPU event (timing, synchronisation): cannot be made without a GPU; time CPU code
    with ``time.perf_counter`` instead."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise DeviceUnavailableError("torch.cuda.Event needs a GPU (tinygrad_lite runs on the "
                                     "CPU); time CPU code with time.perf_counter()")


@contextlib.contextmanager
def stream(stream: Any) -> Iterator[None]:
    """``with tl.cuda.stream(None):`` does nothing, as in PyTorch (a Stream cannot exist)."""
    if stream is not None:
        raise DeviceUnavailableError(_NO_GPU.format(name="stream"))
    yield


class device:  # noqa: N801 - PyTorch's name
    """``with tl.cuda.device(d):``: a no-op for ``None`` or a negative index (PyTorch's
    convention); any GPU index raises."""

    def __init__(self, device: Any) -> None:
        index = getattr(device, "index", device)
        if index is not None and not (isinstance(index, int) and index < 0):
            raise DeviceUnavailableError(_NO_GPU.format(name="device"))

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: Any) -> None:
        return None


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
