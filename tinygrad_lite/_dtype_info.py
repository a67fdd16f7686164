"""Questions about dtypes: ``tl.finfo``/``tl.iinfo`` (the limits of a dtype) and PyTorch's
promotion questions (``promote_types``, ``can_cast``, ``result_type``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes
from ._core.tensor_base import TensorBase
from .dtypes import finfo_of

__all__ = ["finfo", "iinfo", "promote_types", "can_cast", "result_type"]


class finfo:  # noqa: N801 - PyTorch's name
    """The limits of a floating dtype: ``bits``, ``eps``, ``max``, ``min``, ``tiny`` (=
    ``smallest_normal``), ``resolution``, ``dtype`` (its name)."""

    __module__ = "tinygrad_lite"  # prints as PyTorch's <class 'torch.finfo'>

    def __init__(self, type: Any = None) -> None:  # noqa: A002 - PyTorch's argument name
        dtype = dtypes.get_default_dtype() if type is None else dtypes.to_dtype(type)
        if not dtype.is_floating_point:
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = finfo_of(dtype.np)
        self.bits, self.dtype = int(info.bits), dtype.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)  # exact decimal, as PyTorch reports it

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")

    def __eq__(self, other: object) -> bool:
        # PyTorch's finfo objects are equal when they describe the same dtype
        # (finfo() == finfo(float32) under the default dtype) and are unhashable
        return isinstance(other, finfo) and self.dtype == other.dtype

    __hash__ = None  # type: ignore[assignment]


class iinfo:  # noqa: N801 - PyTorch's name
    """The limits of an integer dtype (not bool, as PyTorch): ``bits``, ``max``, ``min``,
    ``dtype``."""

    __module__ = "tinygrad_lite"  # prints as PyTorch's <class 'torch.iinfo'>

    def __init__(self, type: Any) -> None:  # noqa: A002 - PyTorch's argument name
        dtype = dtypes.to_dtype(type)
        if dtype.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        if dtype.np.kind == "b":  # PyTorch's iinfo has no limits for bool
            raise TypeError(f"torch.{dtype.name} is not supported by torch.iinfo")
        info = np.iinfo(dtype.np)
        self.bits, self.min, self.max = int(info.bits), int(info.min), int(info.max)
        self.dtype = dtype.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"

    def __eq__(self, other: object) -> bool:
        # as finfo: equal for the same dtype, unhashable
        return isinstance(other, iinfo) and self.dtype == other.dtype

    __hash__ = None  # type: ignore[assignment]


def promote_types(type1: Any, type2: Any) -> dtypes.DType:
    """The dtype PyTorch's promotion gives two tensors of these dtypes."""
    a, b = dtypes.to_dtype(type1), dtypes.to_dtype(type2)
    return dtypes.from_numpy_dtype(dtypes.result_type(np.empty(1, a.np), np.empty(1, b.np)))


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` to ``to`` in an in-place or ``out=`` op:
    anything but a lower category (bool < integer < floating)."""
    return dtypes.can_cast(dtypes.to_dtype(from_).np, dtypes.to_dtype(to).np)


def result_type(tensor1: Any, tensor2: Any) -> dtypes.DType:
    """The dtype of an arithmetic op on these operands (tensors or Python numbers)."""
    operands = [t._data if isinstance(t, TensorBase) else t for t in (tensor1, tensor2)]
    return dtypes.from_numpy_dtype(dtypes.result_type(*operands))
