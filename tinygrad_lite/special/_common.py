"""How ``torch.special``'s functions take their arguments: tensors or Python numbers, integer
(and bool) inputs in the default float dtype, and the promoted floating dtype of two operands."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import float_result_type, get_default_dtype, is_float_dtype
from ..functions.conventions import write_out

__all__ = ["as_tensor", "as_float", "result_dtype", "array_of", "float_dtype", "finish",
           "written"]


def as_tensor(x: Any) -> TensorBase:
    """``x`` itself when a tensor, else ``tl.tensor(x)``."""
    return x if isinstance(x, TensorBase) else _fn.tensor(x)


def as_float(x: Any) -> TensorBase:
    """``x`` as a floating tensor: integer and bool inputs in the default float dtype, as
    PyTorch's float-valued special functions take them (negating a uint8 would wrap around)."""
    t = as_tensor(x)
    return t if is_float_dtype(t._data.dtype) else t.to(get_default_dtype())


def result_dtype(*values: Any) -> np.dtype:
    """PyTorch's promoted floating dtype of the operands (Python numbers as wrapped numbers)."""
    return float_result_type(*(v._data if isinstance(v, TensorBase) else v for v in values))


def array_of(value: Any, op: str, name: str) -> Any:
    """A tensor's array, or a Python number as it is (for dtype promotion)."""
    if isinstance(value, TensorBase):
        return value._data
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return value.item() if isinstance(value, np.generic) else value
    raise TypeError(f"{op}(): argument '{name}' must be Tensor or Number, not "
                    f"{type(value).__name__}")


def float_dtype(dt: np.dtype) -> np.dtype:
    """``dt`` when floating point, else the default float dtype (PyTorch's int promotion)."""
    return dt if is_float_dtype(dt) else dtypes.get_default_dtype().np


def finish(values: np.ndarray, dt: np.dtype, out: Any, op: str) -> TensorBase:
    """``values`` as a tensor of dtype ``dt``, written into ``out`` when one is given."""
    return written(wrap(np.asarray(values, dtype=dt)), out, op)


def written(result: TensorBase, out: Any, op: str) -> TensorBase:
    """``result``, or ``out`` with ``result`` written into it when one is given."""
    return result if out is None else write_out(result, out, op)
