"""Max unpooling of ``nn.functional``: a scatter of the pooled values to their indices
(``max_unpool1d/2d/3d``, PyTorch's output-size rule)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ._utils import batched, ntuple

__all__ = ["max_unpool1d", "max_unpool2d", "max_unpool3d"]


def _unpool_output_size(input: TensorBase, kernel: tuple, stride: tuple, pads: tuple,
                        output_size: Any) -> tuple:
    """PyTorch's ``_unpool_output_size``: the default size, or a checked ``output_size``."""
    nd = len(kernel)
    default = tuple((input.shape[input.ndim - nd + d] - 1) * stride[d] + kernel[d] - 2 * pads[d]
                    for d in range(nd))
    if output_size is None:
        return default
    sizes = tuple(output_size)
    if len(sizes) == nd + 2:
        sizes = sizes[2:]
    if len(sizes) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(sizes)}'")
    for d in range(nd):
        low, high = default[d] - stride[d], default[d] + stride[d]
        if not low < sizes[d] < high:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f"{low} and {high})")
    return tuple(int(s) for s in sizes)


def _max_unpool(input: TensorBase, indices: TensorBase, kernel_size: Any, stride: Any,
                padding: Any, output_size: Any, nd: int, op: str) -> TensorBase:
    kernel = ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None else ntuple(stride, nd, "stride")
    pads = ntuple(padding, nd, "padding")
    x, added = batched(input, nd, op)
    index = indices._data if isinstance(indices, TensorBase) else np.asarray(indices)
    if index.shape != tuple(input.shape):
        raise RuntimeError(f"{op}: Expected shape of indices to be same as that of the input "
                           f"tensor ({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(index.shape)}")
    if index.dtype != np.int64:
        raise RuntimeError(f"{op}: elements in indices should be type int64 but got: "
                           f"{index.dtype}")
    sizes = _unpool_output_size(x, kernel, stride, pads, output_size)
    n, c, total = x.shape[0], x.shape[1], math.prod(sizes)
    flat = index.reshape(n, c, -1)
    bad = (flat < 0) | (flat >= total)
    if bad.any():
        raise RuntimeError(f"Found an invalid max index: {int(flat[bad][0])} (output volumes "
                           f"are of size {'x'.join(map(str, sizes))})")
    zeros = _fn.zeros(n, c, total, dtype=x.dtype)
    out = _fn.scatter(zeros, 2, wrap(flat), x.reshape(n, c, -1)).reshape(n, c, *sizes)
    return out.squeeze(0) if added else out


def max_unpool1d(input: TensorBase, indices: TensorBase, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> TensorBase:
    """The partial inverse of ``max_pool1d``: values written at their indices, zeros elsewhere."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 1,
                       "max_unpool1d")


def max_unpool2d(input: TensorBase, indices: TensorBase, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> TensorBase:
    """The partial inverse of ``max_pool2d``: values written at their flat H*W indices."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 2,
                       "max_unpool2d")


def max_unpool3d(input: TensorBase, indices: TensorBase, kernel_size: Any, stride: Any = None,
                 padding: Any = 0, output_size: Any = None) -> TensorBase:
    """The partial inverse of ``max_pool3d``: values written at their flat D*H*W indices."""
    return _max_unpool(input, indices, kernel_size, stride, padding, output_size, 3,
                       "max_unpool3d")
