"""PyTorch's legacy tensor types: ``tl.FloatTensor([1, 2])``, ``tl.LongTensor(3, 4)`` (sizes),
``isinstance(t, tl.FloatTensor)``, ``t.type(tl.DoubleTensor)``; still common in tutorials."""

from __future__ import annotations

from typing import Any

from .. import dtypes
from ..tensor import Tensor
from .types import type_name

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor", "IntTensor",
           "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor"]


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
