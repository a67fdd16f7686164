"""``hash_tensor``: PyTorch's xor hash of a tensor's elements (``torch.hash_tensor``).

Each element is widened to its 64-bit kind (floats to float64, signed integers to int64, bool
and uint8 to their value) and reinterpreted as a uint64; the words are reduced with xor over
``dim`` (all dimensions by default). The result is a uint64 tensor outside the graph. The hash
sees bits, not values: ``-0.0`` and ``0.0`` hash differently, every NaN as NumPy's float64 NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase, wrap
from ..ops.common import normalize_dims
from .registry import public

__all__ = ["hash_tensor"]

# PyTorch's xor_sum kernel covers bool, the signed integers, uint8 and the floats
_UNSUPPORTED = {np.dtype(np.uint16): "UInt16", np.dtype(np.uint32): "UInt32",
                np.dtype(np.uint64): "UInt64"}


def _words(data: np.ndarray) -> np.ndarray:
    """The elements widened to 64 bits and reinterpreted as uint64."""
    if data.dtype.kind == "b" or data.dtype.kind == "u":
        return data.astype(np.uint64)
    if data.dtype.kind == "i":
        return data.astype(np.int64).view(np.uint64)
    return data.astype(np.float64).view(np.uint64)


@public(out=True)
def hash_tensor(input: TensorBase, dim: Any = (), *, keepdim: bool = False,
                mode: int = 0) -> TensorBase:
    """The xor of the elements' 64-bit patterns over ``dim`` (all by default), as uint64."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"hash_tensor(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    data = input._data
    if data.dtype in _UNSUPPORTED:
        raise NotImplementedError(f'"xor_sum_cpu" not implemented for '
                                  f"'{_UNSUPPORTED[data.dtype]}'")
    if dim is None or (not isinstance(dim, (int, np.integer)) and len(dim) == 0):
        if data.size == 0:
            raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                               "input.numel() == 0. Specify the reduction dim with the 'dim' "
                               "argument.")
        axes = tuple(range(data.ndim))
    else:
        axes = normalize_dims(dim, data.ndim, "hash_tensor")
        for d in axes:
            if data.shape[d] == 0:
                raise IndexError(f"hash_tensor: Expected reduction dim {d} to have non-zero "
                                 "size.")
    words = _words(data)
    out = np.bitwise_xor.reduce(words, axis=axes) if axes else words
    if keepdim and axes:
        out = np.expand_dims(out, axes)
    return wrap(np.asarray(out, dtype=np.uint64))
