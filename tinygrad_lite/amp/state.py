"""PyTorch's process-level autocast switches (``torch.set_autocast_enabled``,
``torch.get_autocast_dtype``, the deprecated ``*_cpu_*`` forms, the cast cache flag).

The CPU state is the thread-local one that ops read (``_core/autocast_state.py``): turning CPU
autocast on here makes the ops inside behave as in a ``with tl.autocast("cpu")`` block, in the
configured dtype (PyTorch's bfloat16 by default; float16 without the ml_dtypes package). Other
device types are remembered and reported, but never take effect (there is no GPU).
``tl.autocast`` regions start in the dtype configured here unless given one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._core.autocast_state import autocast_state, set_autocast_state
from .._core.warnings import warn

__all__ = ["configured_dtype", "bfloat16_available", "set_autocast_dtype",
           "set_autocast_enabled",
           "is_autocast_enabled", "set_autocast_cpu_enabled", "is_autocast_cpu_enabled",
           "set_autocast_cpu_dtype", "get_autocast_cpu_dtype", "set_autocast_cache_enabled",
           "is_autocast_cache_enabled"]

# PyTorch's device types (what its device-string parser accepts)
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
_dtype_of: dict[str, dtypes.DType] = {}  # set_autocast_dtype's choices, per device type
_enabled_elsewhere: dict[str, bool] = {}  # the flags of device types other than the CPU


def _device(device_type: str) -> str:
    if device_type not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES)} device type at start of "
                           f"device string: {device_type}")
    return device_type


def configured_dtype(device_type: str = "cpu") -> dtypes.DType:
    """The dtype autocast regions of ``device_type`` use when given none: PyTorch's bfloat16
    (float16 without the ml_dtypes package) unless ``set_autocast_dtype`` chose another."""
    chosen = _dtype_of.get(device_type)
    if chosen is None:
        chosen = dtypes.bfloat16 if bfloat16_available() else dtypes.float16
    return chosen


def bfloat16_available() -> bool:
    """Whether bfloat16 works here (the ml_dtypes package is installed)."""
    try:
        dtypes.to_dtype(dtypes.bfloat16)
    except TypeError:
        return False
    return True


def _numpy_dtype(dtype: dtypes.DType) -> np.dtype:
    return np.dtype(dtypes.to_dtype(dtype).np)  # bfloat16 without ml_dtypes: to_dtype explains


def set_autocast_dtype(device_type: str, dtype: Any) -> None:
    """Choose the dtype of ``device_type``'s autocast (also of an active CPU region)."""
    chosen = dtypes.to_dtype(dtype)
    if _device(device_type) == "cpu" and autocast_state.dtype is not None:
        set_autocast_state(_numpy_dtype(chosen), autocast_state.cache_enabled)
    _dtype_of[device_type] = chosen


def set_autocast_enabled(*args: Any) -> None:
    """``set_autocast_enabled(device_type, enabled)``: turn autocast on or off for the rest of
    this thread's work (no region needed); ``set_autocast_enabled(enabled)`` is PyTorch's older
    CUDA form."""
    if len(args) == 1:
        device_type, enabled = "cuda", args[0]
    elif len(args) == 2:
        device_type, enabled = args
    else:
        raise TypeError(f"set_autocast_enabled() takes (device_type, enabled) or (enabled), got "
                        f"{len(args)} arguments")
    if _device(device_type) != "cpu":
        _enabled_elsewhere[device_type] = bool(enabled)
        return
    dtype = _numpy_dtype(configured_dtype("cpu")) if enabled else None
    set_autocast_state(dtype, autocast_state.cache_enabled)


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether autocast is on for ``device_type`` (no argument: PyTorch's older CUDA form)."""
    device_type = "cuda" if device_type is None else _device(device_type)
    if device_type == "cpu":
        return autocast_state.dtype is not None
    return _enabled_elsewhere.get(device_type, False)


def _deprecated(old: str, new: str) -> None:
    warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning)


def set_autocast_cpu_enabled(enabled: bool) -> None:
    """Deprecated: ``set_autocast_enabled("cpu", enabled)``."""
    _deprecated("set_autocast_cpu_enabled(enabled)", "set_autocast_enabled('cpu', enabled)")
    set_autocast_enabled("cpu", enabled)


def is_autocast_cpu_enabled() -> bool:
    """Deprecated: ``is_autocast_enabled("cpu")``."""
    _deprecated("is_autocast_cpu_enabled()", "is_autocast_enabled('cpu')")
    return is_autocast_enabled("cpu")


def set_autocast_cpu_dtype(dtype: Any) -> None:
    """Deprecated: ``set_autocast_dtype("cpu", dtype)``."""
    _deprecated("set_autocast_cpu_dtype(dtype)", "set_autocast_dtype('cpu', dtype)")
    set_autocast_dtype("cpu", dtype)


def get_autocast_cpu_dtype() -> dtypes.DType:
    """Deprecated: ``get_autocast_dtype("cpu")``."""
    _deprecated("get_autocast_cpu_dtype()", "get_autocast_dtype('cpu')")
    if autocast_state.dtype is not None:
        return dtypes.to_dtype(autocast_state.dtype)
    return configured_dtype("cpu")


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Whether autocast regions keep the low-precision casts of parameters for reuse."""
    set_autocast_state(autocast_state.dtype, bool(enabled))


def is_autocast_cache_enabled() -> bool:
    """Whether autocast caches its casts (``set_autocast_cache_enabled``)."""
    return bool(autocast_state.cache_enabled)
