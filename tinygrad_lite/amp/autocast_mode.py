"""``tl.autocast`` / ``tl.amp.autocast``: mixed precision regions (PyTorch's CPU autocast).

Inside ``with tl.autocast(device_type="cpu", dtype=tl.float16):`` the ops of PyTorch's CPU
lower-precision list (matmul, linear, convolutions and transposed convolutions, bmm, baddbmm,
addmm, attention through its matmuls) cast their floating-point inputs to float16, and the
losses (PyTorch's CPU float32 list) compute in float32; the other ops run in the dtype of their
inputs, as on PyTorch's CPU (softmax and layer norm of a float16 activation stay float16).
Parameters stay float32 (the casts are recorded ops, so gradients arrive in float32), and each
op's backward runs in the dtype its forward used. The state is thread-local and nests;
``enabled=False`` turns an inner region off. CUDA device types are accepted with PyTorch's
warning and disabled, as on a machine without a GPU. The default dtype is PyTorch's CPU one,
bfloat16 (through the ml_dtypes package; float16 where it is not installed).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .. import dtypes
from .._core.autocast_state import autocast_state, set_autocast_state
from .._core.device import device
from .._core.warnings import warn
from .state import configured_dtype

__all__ = ["autocast", "is_autocast_enabled", "get_autocast_dtype"]

F = TypeVar("F", bound=Callable[..., Any])
_LOW_PRECISION = ("float16", "bfloat16")


class autocast:  # noqa: N801 - PyTorch's name
    """Context manager and decorator running the ops inside in mixed precision (see module)."""

    def __init__(self, device_type: str = "cpu", dtype: Any = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"autocast: expected device_type to be a string, got "
                             f"{type(device_type).__name__}")
        device(device_type)  # an unknown device type is PyTorch's RuntimeError, as there
        self.device_type = device_type
        self.enabled = bool(enabled)
        if device_type != "cpu":
            if self.enabled:
                warn(f"User provided device_type of '{device_type}', but it is not "
                     "available here (tensors live on the CPU); disabling autocast.")
            self.enabled = False
        try:
            chosen = dtypes.to_dtype(dtype) if dtype is not None else configured_dtype(device_type)
        except TypeError:
            if self.enabled:
                raise
            chosen = configured_dtype(device_type)  # disabled: bfloat16 is never used, no error
        if self.enabled and chosen.name not in _LOW_PRECISION:
            supported = ", ".join(_LOW_PRECISION)
            warn(f"In CPU autocast, but the target dtype is not supported. Disabling "
                 f"autocast. CPU Autocast only supports dtype of {supported} "
                 f"currently (got {chosen.name}).")
            self.enabled = False
        self.fast_dtype = chosen
        self.cache_enabled = True if cache_enabled is None else bool(cache_enabled)

    def __enter__(self) -> autocast:
        self._prev = set_autocast_state(np.dtype(self.fast_dtype.np) if self.enabled else None,
                                        self.cache_enabled)
        return self

    def __exit__(self, *exc: object) -> None:
        set_autocast_state(*self._prev)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with autocast(self.device_type, self.fast_dtype, self.enabled, self.cache_enabled):
                return func(*args, **kwargs)
        return wrapper  # type: ignore[return-value]


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an enabled autocast region is active in this thread (for ``device_type`` 'cpu',
    or any; CUDA regions are never enabled here)."""
    if device_type not in (None, "cpu"):
        return False
    return autocast_state.dtype is not None


def get_autocast_dtype(device_type: str = "cpu") -> Any:
    """The dtype autocast regions of ``device_type`` use (PyTorch's bfloat16 on the CPU by
    default; see ``tl.set_autocast_dtype``)."""
    if autocast_state.dtype is not None and device_type == "cpu":
        return dtypes.to_dtype(autocast_state.dtype)
    return configured_dtype(device_type)
