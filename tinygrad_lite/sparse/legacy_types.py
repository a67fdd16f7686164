"""PyTorch's legacy sparse tensor types: ``tl.sparse.FloatTensor(indices, values, size)`` and
its siblings, deprecated constructors of COO tensors that older programs still call.

As in PyTorch 2.13: ``(indices, values[, size])`` builds the COO tensor of
``sparse_coo_tensor``, keeping the values' dtype whatever the type's name says (a
``DoubleTensor`` of float32 values is float32); ``(*sizes)`` or ``(size)`` builds an empty one of
the type's dtype, ``()`` an empty one of shape (0,). Each call warns that it is deprecated, with
PyTorch's message; ``isinstance(t, tl.sparse.FloatTensor)`` asks whether ``t`` is a float32 COO
tensor.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from .._core.size import Size
from .._core.warnings import warn
from ..tensor import Tensor
from .coo import SparseTensor, sparse_coo_tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor"]


def _sizes(args: tuple) -> tuple[int, ...] | None:
    """The shape ``args`` give (ints, or one size sequence), None if they are not sizes."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = tuple(args[0])
    if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
        return tuple(int(a) for a in args)
    return None


class _LegacySparseType(type):
    """Metaclass: calling the type builds a COO tensor; an instance check asks for the dtype."""

    _legacy_dtype: dtypes.DType

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, SparseTensor) and obj.dtype is cls._legacy_dtype

    def __call__(cls, *args: Any, device: Any = None) -> SparseTensor:
        if len(args) in (2, 3) and all(isinstance(a, Tensor) for a in args[:2]):
            shape = ", shape" if len(args) == 3 else ""
            warn(f"torch.sparse.SparseTensor(indices, values{shape}, *, device=) is deprecated.  "
                 f"Please use torch.sparse_coo_tensor(indices, values{shape}, dtype=, device=).")
            return sparse_coo_tensor(*args)
        sizes = _sizes(args)
        if sizes is None:
            kinds = ", ".join(type(a).__name__ for a in args)
            raise TypeError(f"{cls.__name__}(): expected (Tensor indices, Tensor values[, tuple "
                            f"of ints size]) or sizes, got ({kinds})")
        if args:
            warn("torch.sparse.SparseTensor(shape, *, device=) is deprecated.  Please use "
                 "torch.sparse_coo_tensor(shape, dtype=, device=).")
        else:
            warn("torch.sparse.SparseTensor() is deprecated.  Please use "
                 "torch.sparse_coo_tensor((0,), dtype=).")
            sizes = (0,)
        values = np.zeros(0, dtypes.to_dtype(cls._legacy_dtype).np)
        return sparse_coo_tensor(np.zeros((len(sizes), 0), np.int64), Tensor._wrap(values), sizes,
                                 is_coalesced=True)  # nothing to merge, as PyTorch reports

    def __repr__(cls) -> str:
        return f"<class 'torch.sparse.{cls.__name__}'>"


def _legacy_sparse(name: str, dtype: dtypes.DType) -> Any:
    return _LegacySparseType(name, (), {
        "_legacy_dtype": dtype, "__module__": __name__,
        "__doc__": f"COO sparse tensors of dtype {dtype.name} (PyTorch's legacy sparse type)."})


FloatTensor = _legacy_sparse("FloatTensor", dtypes.float32)
DoubleTensor = _legacy_sparse("DoubleTensor", dtypes.float64)
HalfTensor = _legacy_sparse("HalfTensor", dtypes.float16)
BFloat16Tensor = _legacy_sparse("BFloat16Tensor", dtypes.bfloat16)
LongTensor = _legacy_sparse("LongTensor", dtypes.int64)
IntTensor = _legacy_sparse("IntTensor", dtypes.int32)
ShortTensor = _legacy_sparse("ShortTensor", dtypes.int16)
CharTensor = _legacy_sparse("CharTensor", dtypes.int8)
ByteTensor = _legacy_sparse("ByteTensor", dtypes.uint8)
