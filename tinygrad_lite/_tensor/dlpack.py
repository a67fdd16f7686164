"""DLPack, the zero-copy exchange of arrays between libraries: ``Tensor.__dlpack__`` and
``Tensor.__dlpack_device__`` (so ``np.from_dlpack(t)`` and ``torch.from_dlpack(t)`` share the
tensor's memory), ``from_dlpack`` (a tensor sharing the memory of a NumPy array, a torch tensor,
anything with ``__dlpack__``, or a capsule) and the legacy ``to_dlpack`` capsule. The tensor's
ndarray does the exporting and NumPy the importing; tensor.py binds the two methods,
``utils/dlpack.py`` and the package export the functions."""

# ruff: noqa: N815 - the DLPack specification's (and PyTorch's) names of the device codes

from __future__ import annotations

import ctypes
import enum
from typing import Any

import numpy as np

from .. import dtypes
from .._core.device import check_device
from .._core.tensor_base import TensorBase, wrap

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack", "METHODS", "PROPERTIES"]


class DLDeviceType(enum.IntEnum):
    """The device codes of the DLPack specification (tensors here are always ``kDLCPU``)."""

    kDLCPU = 1
    kDLCUDA = 2
    kDLCUDAHost = 3
    kDLOpenCL = 4
    kDLVulkan = 7
    kDLMetal = 8
    kDLVPI = 9
    kDLROCM = 10
    kDLROCMHost = 11
    kDLExtDev = 12
    kDLCUDAManaged = 13
    kDLOneAPI = 14
    kDLWebGPU = 15
    kDLHexagon = 16
    kDLMAIA = 17


def _dlpack(self: TensorBase, *, stream: Any = -1, max_version: tuple[int, int] | None = None,
            dl_device: tuple[Any, int] | None = None, copy: bool | None = None) -> Any:
    """A DLPack capsule sharing this tensor's memory (a copy only with ``copy=True``, or for a
    read-only array asked for in the pre-1.0 format, which cannot mark it read-only). As in
    PyTorch, a tensor that requires grad is refused (``BufferError``: export ``.detach()``)."""
    if self.requires_grad:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and type(stream) is not int:
        raise TypeError("stream must be ``int`` or ``none``")
    if stream is not None and stream != -1:
        raise AssertionError("stream should be None on cpu.")
    return _export(self._data, max_version, dl_device, copy)


def _export(array: np.ndarray, max_version: tuple[int, int] | None, dl_device: Any,
            copy: bool | None) -> Any:
    """The ndarray's capsule; a read-only array asked for in the old format is copied."""
    legacy = max_version is None or max_version[0] < 1
    if legacy and not array.flags.writeable and copy is not False:
        copy = True  # the old format has no read-only flag: hand out a writable copy
    return array.__dlpack__(max_version=max_version, dl_device=dl_device, copy=copy)


def _dlpack_device(self: TensorBase) -> tuple[DLDeviceType, int]:
    """``(DLDeviceType.kDLCPU, 0)``: where the tensor's memory lives, for DLPack consumers."""
    return (DLDeviceType.kDLCPU, 0)


class _Capsule:
    """A bare DLPack capsule dressed as a producer, so that NumPy can consume it."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **options: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (int(DLDeviceType.kDLCPU), 0)


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> TensorBase:
    """A tensor sharing memory with ``ext_tensor``, an object with ``__dlpack__`` (NumPy array,
    torch tensor, ...) or a DLPack capsule (from ``to_dlpack``); ``copy=True`` copies it."""
    check_device(device, "from_dlpack")
    if hasattr(ext_tensor, "__dlpack__"):
        producer = ext_tensor
    else:
        if device is not None or copy is not None:
            raise AssertionError("device and copy kwargs not supported when ext_tensor is "
                                 "already a DLPack capsule.")
        producer = _Capsule(ext_tensor)
    try:
        device_type = int(producer.__dlpack_device__()[0])
    except AttributeError:
        device_type = int(DLDeviceType.kDLCPU)
    if device_type not in (DLDeviceType.kDLCPU, DLDeviceType.kDLCUDAHost):
        name = next((d.name for d in DLDeviceType if d == device_type), str(device_type))
        raise BufferError(f"from_dlpack: the tensor lives on a {name} device; tinygrad_lite "
                          "reads CPU memory only (move it to the CPU first, e.g. .cpu())")
    try:
        array = np.from_dlpack(producer, copy=copy)
    except ValueError:
        if not isinstance(producer, _Capsule):
            raise
        raise RuntimeError("from_dlpack received an invalid capsule. Note that DLTensor "
                           "capsules can be consumed only once, so you might have already "
                           "constructed a tensor from it once.") from None
    dtypes.from_numpy_dtype(array.dtype)  # refuses dtypes tensors cannot hold (complex, ...)
    if isinstance(producer, _Capsule) and not array.flags.writeable:
        array = _writable_view(array)
    return wrap(array)


def _writable_view(array: np.ndarray) -> np.ndarray:
    """A writable view of the memory of ``array`` (which it keeps alive). NumPy marks what it
    imports from a pre-1.0 capsule read-only, since that format cannot say; PyTorch, and so
    ``from_dlpack`` here, treats such memory as writable, as ``to_dlpack``'s capsules are."""
    if array.size == 0:
        return np.empty(array.shape, array.dtype)
    extents = [s * (n - 1) for s, n in zip(array.strides, array.shape)]
    low = sum(min(0, e) for e in extents)
    high = sum(max(0, e) for e in extents) + array.itemsize
    memory = (ctypes.c_char * (high - low)).from_address(array.ctypes.data + low)
    memory.owner = array  # keeps the capsule's array (and its memory) alive
    return np.ndarray(array.shape, array.dtype, buffer=memory, offset=-low,
                      strides=array.strides)


def to_dlpack(tensor: TensorBase) -> Any:
    """The legacy capsule interface: a DLPack capsule ("dltensor") sharing ``tensor``'s memory,
    to hand to one ``from_dlpack`` call exactly once (unlike ``__dlpack__``, PyTorch's legacy
    function exports a tensor that requires grad too)."""
    if not isinstance(tensor, TensorBase):
        raise TypeError(f"to_dlpack(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    return _export(tensor._data, None, None, None)


_dlpack.__name__, _dlpack_device.__name__ = "__dlpack__", "__dlpack_device__"
METHODS = {"__dlpack__": _dlpack, "__dlpack_device__": _dlpack_device}  # tensor.py binds them
PROPERTIES: dict[str, property] = {}
