"""Tensor types as methods: the legacy type strings (``x.type()``), dtype conversions
(``.float()``, ``.double()``, ``.byte()``, ``type_as`` ...), the dtype questions
(``is_floating_point``, ``is_signed``, ``is_quantized``, ``.real``) and ``as_subclass`` (the
tensor as an instance of a Tensor subclass)."""

from __future__ import annotations

import builtins
from typing import Any

from .. import dtypes, ops
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from . import constant

__all__ = ["TYPE_NAMES", "type_name", "METHODS", "PROPERTIES"]

builtins_type = builtins.type  # (``type`` is the Tensor method below)


# PyTorch's legacy type strings, by dtype name (what ``x.type()`` returns)
TYPE_NAMES = {"float32": "torch.FloatTensor", "float64": "torch.DoubleTensor",
              "float16": "torch.HalfTensor", "bfloat16": "torch.BFloat16Tensor",
              "int64": "torch.LongTensor", "int32": "torch.IntTensor",
              "int16": "torch.ShortTensor", "int8": "torch.CharTensor",
              "uint8": "torch.ByteTensor", "bool": "torch.BoolTensor",
              "uint16": "torch.UInt16Tensor", "uint32": "torch.UInt32Tensor",
              "uint64": "torch.UInt64Tensor"}
_DTYPE_OF_TYPE = {v: k for k, v in TYPE_NAMES.items()}


def type_name(dtype: Any) -> str:
    """``torch.FloatTensor`` and friends, for a dtype."""
    return TYPE_NAMES[dtypes.to_dtype(dtype).name]


def type(self: TensorBase, dtype: Any = None, non_blocking: bool = False,  # noqa: A001
         **kwargs: Any) -> Any:
    """Without arguments, the type string (``'torch.FloatTensor'``); with a dtype, a type
    string or a legacy tensor class (``tl.FloatTensor``), the tensor converted to it."""
    if dtype is None:
        return type_name(self._data.dtype)
    if isinstance(dtype, str):  # a type string only (PyTorch's error for a dtype name too)
        if dtype not in _DTYPE_OF_TYPE:
            raise ValueError(f"invalid type: {dtype!r} (expected a type string such as "
                             "'torch.FloatTensor', or a dtype)")
        dtype = _DTYPE_OF_TYPE[dtype]
    elif hasattr(dtype, "_legacy_dtype"):
        dtype = dtype._legacy_dtype
    return ops.cast(self, dtypes.to_dtype(dtype).np)


def type_as(self: TensorBase, other: TensorBase) -> TensorBase:
    """This tensor converted to ``other``'s dtype."""
    return ops.cast(self, other._data.dtype)


def _converter(name: str, dtype: dtypes.DType) -> Any:
    """The method ``name`` (``float``, ``double``, ...): ``self.to(dtype)``. Made by name, since
    module-level functions called ``float``, ``int`` or ``bool`` would hide the builtins here."""

    def convert(self: TensorBase, memory_format: Any = None) -> TensorBase:
        return self.to(dtype, memory_format=memory_format)

    convert.__name__ = convert.__qualname__ = name
    convert.__doc__ = f"Convert to {dtype.name}."
    return convert


_CONVERTERS = {name: _converter(name, dtype) for name, dtype in (
    ("float", dtypes.float32), ("double", dtypes.float64), ("half", dtypes.float16),
    ("long", dtypes.int64), ("int", dtypes.int32), ("bool", dtypes.bool),
    ("byte", dtypes.uint8), ("char", dtypes.int8), ("short", dtypes.int16),
    ("bfloat16", dtypes.bfloat16))}  # (bfloat16: refused with the package's explanation
# where NumPy has none)


def is_floating_point(self: TensorBase) -> bool:
    """Whether the dtype is a floating-point one."""
    return is_float_dtype(self._data.dtype)


def is_signed(self: TensorBase) -> bool:
    """Whether the dtype can hold negative values."""
    return self._data.dtype.kind == "i" or is_float_dtype(self._data.dtype)


def as_subclass(self: TensorBase, cls: Any) -> TensorBase:
    """``self`` as an instance of ``cls``, a subclass of the tensor class: an alias sharing its
    memory and version counter, attached to the graph by an ``AliasBackward0`` node when it
    requires grad, as PyTorch's; ``cls.__init__`` does not run."""
    if not (isinstance(cls, builtins_type) and issubclass(cls, TensorBase)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    out = ops.getitem(self, (Ellipsis,))  # (a basic index selecting everything: the alias)
    out.__class__ = cls
    return out


METHODS: dict[str, Any] = {f.__name__: f for f in (
    type, type_as, is_floating_point, is_signed, as_subclass)} \
    | _CONVERTERS
PROPERTIES = {"is_quantized": constant(False),
              "real": property(lambda self: self)}  # a real tensor is its own real part
