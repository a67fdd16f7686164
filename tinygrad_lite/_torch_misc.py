"""``torch.*`` odds and ends PyTorch programs touch: the memory-format and layout objects
(``tl.channels_last``, ``tl.strided``), ``typename``, the anomaly, float32-matmul-precision,
denormal and warn-always switches, ``default_generator``, and the function forms of some
Tensor methods (``tl.is_signed(t)``, ``tl.get_device(t)``, ``tl.detach_(t)``, ``tl.real``...).

Memory formats lay tensors out as PyTorch does (``channels_last``: NHWC memory behind an NCHW
tensor, see ``_core/memory_format.py``) in ``to``, ``contiguous``, ``clone``, ``empty`` and
``Module.to``; elsewhere they are accepted and the result is row-major."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from ._core.warnings import warn
from ._tensor_api import TYPE_NAMES
from .amp import GradScaler
from .autograd.anomaly import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .dtypes import is_float_dtype
from .functions.generator import Generator, default_generator, rng_of
from .tensor import Tensor

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d",
           "preserve_format", "legacy_contiguous_format", "layout", "strided", "sparse_coo",
           "typename", "is_anomaly_enabled", "is_anomaly_check_nan_enabled", "set_anomaly_enabled",
           "set_float32_matmul_precision", "get_float32_matmul_precision", "set_flush_denormal",
           "set_warn_always", "is_warn_always_enabled", "default_generator", "get_device",
           "is_signed", "is_inference", "is_distributed", "detach_", "real", "imag",
           "set_default_tensor_type", "binomial", "GradScaler"]


class _NamedConstant:
    """A named singleton printed as ``torch.<name>``; equal to that string too (``t.layout``
    reports layouts as strings here)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == repr(self)
        return self is other

    def __hash__(self) -> int:
        return hash(repr(self))

    def __reduce__(self) -> str:
        return self.name  # pickles as the module-level constant of that name


class memory_format(_NamedConstant):  # noqa: N801 - PyTorch's name
    """How a tensor's dims are ordered in memory (accepted; tensors here are row-major)."""


class layout(_NamedConstant):  # noqa: N801 - PyTorch's name
    """How a tensor's elements are stored: ``strided`` (dense) or ``sparse_coo``."""


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")
legacy_contiguous_format = contiguous_format  # the same object in PyTorch
strided = layout("strided")
sparse_coo = layout("sparse_coo")


def typename(obj: Any) -> str:
    """A tensor's type string (``'torch.FloatTensor'``), else the object's qualified name
    (``'torch.nn.modules.linear.Linear'`` style, builtins unqualified)."""
    if isinstance(obj, Tensor):
        return str(obj.type())
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        name = obj.__qualname__
    elif hasattr(obj, "__name__"):
        name = obj.__name__
    else:
        module, name = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return name if module in ("", "builtins") else f"{module}.{name}"


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Turn anomaly mode on or off (``tl.autograd.set_detect_anomaly``, not as a context)."""
    set_detect_anomaly(enabled, check_nan)


_switches: dict[str, Any] = {"matmul_precision": "highest", "warn_always": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Remember "highest", "high" or "medium" (reported back; float32 matmuls here always use
    full float32 precision, which is "highest"). Other values warn and change nothing."""
    if precision not in ("highest", "high", "medium"):
        warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
             "setFloat32MatmulPrecision call has no effect.")
        return
    _switches["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The precision last set by ``set_float32_matmul_precision`` ("highest" by default)."""
    return str(_switches["matmul_precision"])


def set_flush_denormal(mode: bool) -> bool:
    """False: NumPy gives no control over flushing denormal floats to zero, so the mode is
    not supported (PyTorch's answer on such a CPU); nothing changes."""
    return False


def set_warn_always(b: bool) -> None:
    """Remember whether warnings PyTorch gives once should be given every time."""
    _switches["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """What ``set_warn_always`` was last given (False by default)."""
    return bool(_switches["warn_always"])


def get_device(input: Tensor) -> int:
    """-1: tensors are in CPU memory (``Tensor.get_device``)."""
    return int(input.get_device())


def is_signed(input: Tensor) -> bool:
    """Whether the dtype holds negative values (``Tensor.is_signed``)."""
    return bool(input.is_signed())


def is_inference(input: Tensor) -> bool:
    """``Tensor.is_inference``: False here (see there)."""
    return bool(input.is_inference())


def is_distributed(input: Tensor) -> bool:
    """False: a tensor is never split across processes."""
    return False


def detach_(input: Tensor) -> Tensor:
    """In place: ``input`` leaves the graph (``Tensor.detach_``)."""
    return input.detach_()


def real(input: Tensor) -> Tensor:
    """The real part: a real tensor itself."""
    return input


def imag(input: Tensor) -> Tensor:
    """The imaginary part, which real tensors lack: always refused, as PyTorch refuses it."""
    raise RuntimeError(f"imag is not implemented for tensors with non-complex dtypes (got "
                       f"{input.dtype}, shape {tuple(input.shape)})")


def set_default_tensor_type(t: Any) -> None:
    """Deprecated: the default float dtype from a legacy type (``tl.DoubleTensor``) or its
    name (``"torch.DoubleTensor"``)."""
    warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
         "torch.set_default_dtype() and torch.set_default_device() as alternatives.")
    names = {v: k for k, v in TYPE_NAMES.items()}
    if isinstance(t, str):
        if t not in names:
            raise TypeError(f"invalid type: '{t}'")
        dtype = dtypes.to_dtype(names[t])
    elif hasattr(t, "_legacy_dtype"):  # tl.FloatTensor and the other legacy types
        dtype = t._legacy_dtype
    else:
        raise TypeError(f"invalid type: {t!r}")
    if not dtype.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type (got "
                        f"{dtype.name})")
    dtypes.set_default_dtype(dtype)


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Draws of Binomial(count, prob) per element (float tensors, in ``count``'s dtype)."""
    if not is_float_dtype(count._data.dtype):
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{count.dtype}")
    n, p = np.broadcast_arrays(count._data, prob._data)
    draws = rng_of(generator).binomial(n.astype(np.int64), np.clip(p, 0.0, 1.0))
    return Tensor(draws.astype(count._data.dtype), dtype=count.dtype)

