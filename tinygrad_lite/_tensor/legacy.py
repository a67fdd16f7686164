"""PyTorch's legacy tensor types and type strings: ``tl.FloatTensor([1, 2])``,
``tl.LongTensor(3, 4)`` (sizes), ``isinstance(t, tl.FloatTensor)``, ``t.type(tl.DoubleTensor)``,
``tl.typename(t)`` (``'torch.FloatTensor'``) and the deprecated ``tl.set_default_tensor_type``;
still common in tutorials."""

from __future__ import annotations

from typing import Any

from .. import dtypes
from .._core.warnings import warn
from ..tensor import Tensor
from .types import TYPE_NAMES, type_name

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor", "typename",
           "set_default_tensor_type"]


class _LegacyType(type):
    """Metaclass: an instance check asks for the dtype, as PyTorch's legacy types do."""

    _legacy_dtype: dtypes.DType

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls._legacy_dtype

    def __call__(cls, *data: Any, **kwargs: Any) -> Any:
        return Tensor(*data, dtype=cls._legacy_dtype, **kwargs)

    def __repr__(cls) -> str:
        return f"<class '{type_name(cls._legacy_dtype)}'>"


def _legacy(name: str, dtype: dtypes.DType) -> Any:
    return _LegacyType(name, (), {"_legacy_dtype": dtype,
                                  "__doc__": f"Tensors of dtype {dtype.name} (legacy type)."})


FloatTensor = _legacy("FloatTensor", dtypes.float32)
DoubleTensor = _legacy("DoubleTensor", dtypes.float64)
HalfTensor = _legacy("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", dtypes.bfloat16)
LongTensor = _legacy("LongTensor", dtypes.int64)
IntTensor = _legacy("IntTensor", dtypes.int32)
ShortTensor = _legacy("ShortTensor", dtypes.int16)
CharTensor = _legacy("CharTensor", dtypes.int8)
ByteTensor = _legacy("ByteTensor", dtypes.uint8)
BoolTensor = _legacy("BoolTensor", dtypes.bool)


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
