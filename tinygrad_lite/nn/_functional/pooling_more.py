"""The rest of ``nn.functional``'s pooling: adaptive max pooling (gathered windows, or the
block path of ``max_pool`` when the sizes divide), power-average (Lp) pooling as PyTorch composes
it, and max unpooling (a scatter of the values to their indices)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ._utils import batched, ntuple
from .pooling import (
    _adaptive_bounds,
    _adaptive_sizes,
    _max_pool,
    avg_pool1d,
    avg_pool2d,
    avg_pool3d,
)

__all__ = ["adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "lp_pool1d", "lp_pool2d", "lp_pool3d",
           "max_unpool1d", "max_unpool2d", "max_unpool3d"]


# -- adaptive max pooling -----------------------------------------------------------------------


def _adaptive_max(input: TensorBase, output_size: Any, return_indices: bool, nd: int,
                  op: str) -> Any:
    sizes = _adaptive_sizes(input, output_size, nd, op)
    spatial = tuple(input.shape[-nd:])
    if 0 in sizes:  # an empty output, as PyTorch gives
        shape = tuple(input.shape[:-nd]) + sizes
        empty = _fn.zeros(*shape, dtype=input.dtype)
        return (empty, wrap(np.zeros(shape, np.int64))) if return_indices else empty
    if all(s % o == 0 for s, o in zip(spatial, sizes)):  # equal windows: plain max_pool
        kernel = tuple(s // o for s, o in zip(spatial, sizes))
        return _max_pool(input, kernel, kernel, 0, 1, False, return_indices, nd, op)
    x, added = batched(input, nd, op)
    lead = tuple(x.shape[:2])
    window_index = []
    for axis, (n_in, n_out) in enumerate(zip(spatial, sizes)):
        starts, ends = _adaptive_bounds(n_in, n_out)
        width = int((ends - starts).max())
        # shorter windows repeat their last element: a later copy is never the first maximum
        index = np.minimum(starts[:, None] + np.arange(width), ends[:, None] - 1)
        window_index.append(index)
        dim = 2 + 2 * axis
        x = _fn.index_select(x, dim, wrap(index.reshape(-1))).reshape(
            *x.shape[:dim], n_out, width, *x.shape[dim + 1:])
    order = (0, 1) + tuple(2 + 2 * a for a in range(nd)) + tuple(3 + 2 * a for a in range(nd))
    flat = x.permute(*order).reshape(*lead, *sizes, -1)
    values, arg = _fn.max(flat, -1)  # the first maximum (NaN counts as one), as in PyTorch
    if added:
        values = values.squeeze(0)
    if not return_indices:
        return values
    offs = np.unravel_index(arg._data, tuple(w.shape[1] for w in window_index))
    coords = []
    for axis, index in enumerate(window_index):
        grid = np.arange(sizes[axis]).reshape([1] * (2 + axis) + [-1] + [1] * (nd - 1 - axis))
        coords.append(index[grid, offs[axis]])
    flat_index = np.ravel_multi_index(tuple(coords), spatial) if nd > 1 else coords[0]
    result = wrap(np.asarray(flat_index, np.int64))
    return values, (result.squeeze(0) if added else result)


def adaptive_max_pool1d(input: TensorBase, output_size: Any, return_indices: bool = False
                        ) -> Any:
    """Max over adaptive windows giving ``output_size`` positions (and their indices)."""
    return _adaptive_max(input, output_size, return_indices, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d(input: TensorBase, output_size: Any, return_indices: bool = False
                        ) -> Any:
    """Max over adaptive windows giving an (oh, ow) grid (and the flat H*W indices)."""
    return _adaptive_max(input, output_size, return_indices, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d(input: TensorBase, output_size: Any, return_indices: bool = False
                        ) -> Any:
    """Max over adaptive windows giving an (od, oh, ow) grid (and the flat D*H*W indices)."""
    return _adaptive_max(input, output_size, return_indices, 3, "adaptive_max_pool3d")


def adaptive_max_pool1d_with_indices(input: TensorBase, output_size: Any,
                                     return_indices: bool = False) -> Any:
    """``adaptive_max_pool1d`` returning (values, indices) whatever ``return_indices`` says."""
    return _adaptive_max(input, output_size, True, 1, "adaptive_max_pool1d")


def adaptive_max_pool2d_with_indices(input: TensorBase, output_size: Any,
                                     return_indices: bool = False) -> Any:
    """``adaptive_max_pool2d`` returning (values, indices) whatever ``return_indices`` says."""
    return _adaptive_max(input, output_size, True, 2, "adaptive_max_pool2d")


def adaptive_max_pool3d_with_indices(input: TensorBase, output_size: Any,
                                     return_indices: bool = False) -> Any:
    """``adaptive_max_pool3d`` returning (values, indices) whatever ``return_indices`` says."""
    return _adaptive_max(input, output_size, True, 3, "adaptive_max_pool3d")


# -- power-average pooling --------------------------------------------------------------------


def _lp_pool(input: TensorBase, norm_type: float, kernel_size: Any, stride: Any,
             ceil_mode: bool, nd: int, avg: Any) -> TensorBase:
    # PyTorch's composition, kept exactly (the sign/relu guard against tiny negative sums,
    # the kernel-size factor that undoes the average even on ceil_mode's partial windows)
    kernel = ntuple(kernel_size, nd, "kernel_size")
    out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return (_fn.sign(out) * _fn.relu(_fn.abs(out))).mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input: TensorBase, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> TensorBase:
    """1-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1, avg_pool1d)


def lp_pool2d(input: TensorBase, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> TensorBase:
    """2-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2, avg_pool2d)


def lp_pool3d(input: TensorBase, norm_type: float, kernel_size: Any, stride: Any = None,
              ceil_mode: bool = False) -> TensorBase:
    """3-D power-average pooling: ``(sum over the window of x ** p) ** (1 / p)``."""
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3, avg_pool3d)


# -- max unpooling ----------------------------------------------------------------------------


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
