"""Pooling of ``nn.functional``: max and average pooling over im2col windows (``ops.nn.unfold``),
and adaptive average pooling as matmuls with averaging matrices."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ...ops.nn import max_pool_blocks, unfold
from ._utils import batched, ntuple, pad_spatial

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
           "adaptive_avg_pool2d"]


def _pool_windows(input: TensorBase, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                  ceil_mode: bool, nd: int, fill: float, op: str) -> tuple[TensorBase, bool, tuple]:
    if ceil_mode:
        raise NotImplementedError(f"{op}: ceil_mode=True is not supported")
    x, added = batched(input, nd, op)
    kernel = ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or stride == () else ntuple(stride, nd, "stride")
    pads = ntuple(padding, nd, "padding")
    if any(2 * pp > kk for pp, kk in zip(pads, kernel)):
        raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but got "
                           f"pad={pads} and kernel_size={kernel}")
    dilation = ntuple(dilation, nd, "dilation")
    cols = unfold(pad_spatial(x, tuple((pp, pp) for pp in pads), fill), kernel, stride, dilation)
    return cols, added, (kernel, stride, pads, dilation)


def _max_pool_by_blocks(input: TensorBase, kernel_size: Any, stride: Any, padding: Any,
                        dilation: Any, ceil_mode: bool, nd: int, op: str) -> Any:
    """(values, argmax array, added) when the windows tile the input (stride == kernel, no
    padding or dilation, the common case), pooled by reshapes; None otherwise."""
    kernel = ntuple(kernel_size, nd, "kernel_size")
    if ceil_mode or (stride is not None and stride != () and
                     ntuple(stride, nd, "stride") != kernel):
        return None
    if any(ntuple(padding, nd, "padding")) or ntuple(dilation, nd, "dilation") != (1,) * nd:
        return None
    x, added = batched(input, nd, op)
    spatial = tuple(x.shape[2:])
    if any(s < k for s, k in zip(spatial, kernel)):
        return None  # the general path reports the error
    if any(s % k for s, k in zip(spatial, kernel)):  # floor mode drops the ragged edge
        x = x[(slice(None), slice(None)) + tuple(slice(0, s - s % k)
                                                 for s, k in zip(spatial, kernel))]
    values, argmax = max_pool_blocks(x, kernel)
    return values, argmax, added


def _max_pool(input: TensorBase, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, return_indices: bool, nd: int, op: str) -> Any:
    by_blocks = _max_pool_by_blocks(input, kernel_size, stride, padding, dilation, ceil_mode,
                                    nd, op)
    if by_blocks is not None:
        values, arg_offsets, added = by_blocks
        kernel = ntuple(kernel_size, nd, "kernel_size")
        stride, pads, dilation = kernel, (0,) * nd, (1,) * nd
        out_sizes = tuple(values.shape[-nd:])
    else:
        cols, added, (kernel, stride, pads, dilation) = _pool_windows(
            input, kernel_size, stride, padding, dilation, ceil_mode, nd, -np.inf, op)
        out_sizes = tuple(cols.shape[2:2 + nd])
        flat = cols.reshape(*cols.shape[:2 + nd], -1)
        # max over the window: the gradient goes to one (the first) maximum, as in PyTorch
        values, arg = _fn.max(flat, -1)
        arg_offsets = arg._data
    if added:
        values = values.squeeze(0)
    if not return_indices:
        return values
    offs = np.unravel_index(arg_offsets, kernel)  # window offsets of the maxima
    spatial = tuple(input.shape[-nd:])
    coords = []
    for i in range(nd):
        grid_shape = [1] * (2 + nd)
        grid_shape[2 + i] = out_sizes[i]
        start = (np.arange(out_sizes[i]) * stride[i] - pads[i]).reshape(grid_shape)
        coords.append(start + offs[i] * dilation[i])
    index = np.ravel_multi_index(tuple(coords), spatial) if nd > 1 else coords[0]
    index = wrap(np.asarray(index, np.int64))
    return values, (index.squeeze(0) if added else index)


def max_pool1d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over (N, C, L)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     1, "max_pool1d")


def max_pool2d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling over (N, C, H, W); padding counts as -inf."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     2, "max_pool2d")


def _avg_pool(input: TensorBase, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None, nd: int, op: str
              ) -> TensorBase:
    cols, added, (kernel, stride, pads, _) = _pool_windows(
        input, kernel_size, stride, padding, 1, ceil_mode, nd, 0.0, op)
    dims = tuple(range(2 + nd, 2 + 2 * nd))
    total = cols.sum(dims)
    if divisor_override is not None:
        out = total / divisor_override
    elif count_include_pad or not any(pads):
        out = total / math.prod(kernel)
    else:  # divide each window by the number of real (unpadded) elements in it
        ones = np.pad(np.ones(input.shape[-nd:], input._data.dtype), [(pp, pp) for pp in pads])
        counts = unfold(wrap(ones), kernel, stride, (1,) * nd)._data.sum(
            axis=tuple(range(nd, 2 * nd)))
        out = total / wrap(counts)
    return out.squeeze(0) if added else out


def avg_pool1d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> TensorBase:
    """1-D average pooling over (N, C, L)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


def avg_pool2d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> TensorBase:
    """2-D average pooling over (N, C, H, W)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


def _adaptive_matrix(n_in: int, n_out: int, dtype: np.dtype) -> np.ndarray:
    """(n_out, n_in) averaging matrix of PyTorch's adaptive windows [floor(i*n/o), ceil(...))."""
    m = np.zeros((n_out, n_in), dtype)
    for i in range(n_out):  # a loop over output positions along one axis, not over pixels
        start, end = (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)
        m[i, start:end] = 1.0 / (end - start)
    return m


def adaptive_avg_pool1d(input: TensorBase, output_size: Any) -> TensorBase:
    """Average over adaptive windows giving ``output_size`` positions."""
    (o,) = ntuple(output_size, 1, "output_size")
    a = wrap(_adaptive_matrix(input.shape[-1], o, input._data.dtype))
    return input @ a.mT


def adaptive_avg_pool2d(input: TensorBase, output_size: Any) -> TensorBase:
    """Average over adaptive windows giving an ``output_size`` (oh, ow) grid; as two matmuls
    with averaging matrices (None keeps a size)."""
    if isinstance(output_size, (int, np.integer)):
        output_size = (output_size, output_size)
    h, w = input.shape[-2:]
    oh = h if output_size[0] is None else int(output_size[0])
    ow = w if output_size[1] is None else int(output_size[1])
    dt = input._data.dtype
    ah = wrap(_adaptive_matrix(h, oh, dt))
    aw = wrap(_adaptive_matrix(w, ow, dt))
    return ah @ input @ aw.mT
