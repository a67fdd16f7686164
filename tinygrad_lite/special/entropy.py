"""The information-theory functions of ``torch.special``: ``entr`` (``-x log x``, its rule in
``ops``) and ``xlog1py``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from ..ops import binary_math
from ..ops import special as special_ops
from ._common import as_tensor, result_dtype, written

__all__ = ["entr", "xlog1py"]


def xlog1py(input: Any, other: Any, *, out: Any = None) -> TensorBase:
    """``x * log1p(y)``, 0 where x is 0 (and y is not NaN); PyTorch's gradients (``log1p(y)``
    in x, also at x = 0, except where y <= -1)."""
    target = result_dtype(input, other)
    x, y = (as_tensor(v) for v in (input, other))
    x, y = (v if v._data.dtype == target else v.to(target) for v in (x, y))
    return written(binary_math.xlog1py(x, y), out, "xlog1py")


def entr(input: TensorBase, *, out: Any = None) -> TensorBase:
    """Elementwise entropy ``-x log x``: 0 at 0, -inf below 0."""
    x = as_tensor(input)
    return written(special_ops.entr(x if is_float_dtype(x._data.dtype) else x.float()), out,
                   "entr")
