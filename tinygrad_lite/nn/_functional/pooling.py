"""Pooling of ``nn.functional`` over sliding windows: max and average pooling in 1, 2 and 3
dims over im2col windows (``ops.nn.unfold``), or by reshapes when the windows tile the input;
``ceil_mode`` follows PyTorch's output-size rule; power-average (Lp) pooling as PyTorch composes
it from average pooling. Adaptive pooling lives in ``pooling_adaptive``, max unpooling in
``unpool``, fractional max pooling in ``pooling_fractional``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.memory_format import keeps_channels_last
from ..._core.tensor_base import TensorBase, wrap
from ...ops import pooling as _pooling
from ...ops.nn import max_pool_blocks, unfold
from ._utils import batched, ntuple, pad_spatial

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "avg_pool1d", "avg_pool2d",
           "avg_pool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _output_sizes(spatial: tuple, kernel: tuple, stride: tuple, pads: tuple, dilation: tuple,
                  ceil_mode: bool) -> tuple[tuple, tuple]:
    """PyTorch's pooling output sizes, and the extra right padding ``ceil_mode`` needs so that
    the last (partial) window fits: ceil((L + 2p - d(k-1) - 1) / s) + 1, less one when that
    window would start at or beyond L + p (in the padded input)."""
    outs, extras = [], []
    for size, k, s, p, d in zip(spatial, kernel, stride, pads, dilation):
        span = d * (k - 1) + 1
        o = (size + 2 * p - span + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (o - 1) * s >= size + p:
            o -= 1
        outs.append(o)
        extras.append(max(0, (o - 1) * s + span - (size + 2 * p)))
    return tuple(outs), tuple(extras)


def _pool_geometry(x: TensorBase, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                   ceil_mode: bool, nd: int, max_pool: bool) -> tuple:
    """(kernel, stride, pads, dilation, out sizes, ceil extras) with PyTorch's checks."""
    kernel = ntuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or stride == () else ntuple(stride, nd, "stride")
    pads, dilation = ntuple(padding, nd, "padding"), ntuple(dilation, nd, "dilation")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(k <= 0 for k in kernel) or any(s < 0 for s in stride) or any(d <= 0 for d in dilation):
        raise RuntimeError(f"kernel_size, stride and dilation should be greater than zero, but "
                           f"got kernel_size={kernel}, stride={stride}, dilation={dilation}")
    if any(2 * p > k or p < 0 for p, k in zip(pads, kernel)):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={pads}, "
            f"kernel_size={kernel}" + (f" and dilation={dilation}" if max_pool else ""))
    spatial = tuple(x.shape[2:])
    outs, extras = _output_sizes(spatial, kernel, stride, pads, dilation, ceil_mode)
    if any(o <= 0 for o in outs):
        c = x.shape[1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + spatial))}). "
                           f"Calculated output size: ({'x'.join(map(str, (c,) + outs))}). "
                           "Output size is too small")
    return kernel, stride, pads, dilation, outs, extras


def _max_pool_by_blocks(x: TensorBase, kernel: tuple, stride: tuple, pads: tuple,
                        dilation: tuple) -> Any:
    """(values, flat window offset of each maximum) when the windows tile the input (stride ==
    kernel, no padding or dilation, the common case), pooled by reshapes; None otherwise.
    ``ceil_mode`` needs no extra positions here (the geometry says so), so it is allowed."""
    nd = len(kernel)
    if stride != kernel or any(pads) or dilation != (1,) * nd:
        return None
    spatial = tuple(x.shape[2:])
    if any(s % k for s, k in zip(spatial, kernel)):  # floor mode drops the ragged edge
        x = x[(slice(None), slice(None)) + tuple(slice(0, s - s % k)
                                                 for s, k in zip(spatial, kernel))]
    return max_pool_blocks(x, kernel)


def _max_pool(input: TensorBase, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, return_indices: bool, nd: int, op: str) -> Any:
    x, added = batched(input, nd, op)
    kernel, stride, pads, dilation, out_sizes, extras = _pool_geometry(
        x, kernel_size, stride, padding, dilation, ceil_mode, nd, True)
    by_blocks = None if any(extras) else _max_pool_by_blocks(x, kernel, stride, pads, dilation)
    # windows that overlap or pad: one compiled pass (ops/pooling.py) where the kernels are
    # there, 3x faster than the windows' views; tiling windows keep the blocks path, which is
    # as fast as the kernel (measured at LeNet's shapes)
    kernels = _pooling.pooling_kernels(x) if nd == 2 and by_blocks is None else None
    if kernels is not None:
        values, index = _pooling.max_pool2d(x, kernel, stride, pads, dilation, out_sizes,
                                            kernels)
        if added:
            values = values.squeeze(0)
        if not return_indices:
            return values
        return values, wrap(index.squeeze(0) if added else index)
    if by_blocks is not None:
        values, arg_offsets = by_blocks
        if added:
            values = values.squeeze(0)
        if not return_indices:
            return values
        block_index = wrap(_window_positions(arg_offsets, kernel, stride, pads, dilation,
                                             out_sizes, tuple(x.shape[2:])))
        return values, (block_index.squeeze(0) if added else block_index)
    # padding and the ceil overhang count as -inf: never a window's first maximum. The windows
    # are searched without a graph; the values are then gathered from the input at the
    # maxima's positions, so each gradient goes to PyTorch's element (an all -inf window's
    # first real one, not its padded corner, which dropped the gradient)
    dt = x._data.dtype  # (integer tensors pad with their smallest value)
    lowest = -np.inf if dt.kind in "fc" else (False if dt.kind == "b" else np.iinfo(dt).min)
    plain = x.detach()
    padded = pad_spatial(plain, tuple((p, p + e) for p, e in zip(pads, extras)), lowest)
    cols = unfold(padded, kernel, stride, dilation)
    flat = cols.reshape(*cols.shape[:2 + nd], -1)
    _, arg = _fn.max(flat, -1)  # the first maximum; NaN counts as the maximum, as in PyTorch
    index = _window_positions(arg._data, kernel, stride, pads, dilation, out_sizes,
                              tuple(x.shape[2:]))
    n, c = x.shape[:2]
    values = x.reshape(n, c, -1).gather(2, wrap(index.reshape(n, c, -1))).reshape(
        (n, c) + tuple(out_sizes))
    if added:
        values = values.squeeze(0)
    if not return_indices:
        return values
    index_t = wrap(index)
    return values, (index_t.squeeze(0) if added else index_t)


def _window_positions(arg_offsets: np.ndarray, kernel: tuple, stride: tuple, pads: tuple,
                      dilation: tuple, out_sizes: tuple, spatial: tuple) -> np.ndarray:
    """The flat int64 position in the (spatial) input of each window's maximum, from its flat
    offset in the window; an all -inf window's maximum at a padded position is its first real
    element, as PyTorch names it."""
    nd = len(kernel)
    offs = np.unravel_index(arg_offsets, kernel)  # window offsets of the maxima
    coords = []
    for i in range(nd):
        grid_shape = [1] * (2 + nd)
        grid_shape[2 + i] = out_sizes[i]
        start = (np.arange(out_sizes[i]) * stride[i] - pads[i]).reshape(grid_shape)
        coord = start + offs[i] * dilation[i]
        first_real = start + -(start // dilation[i]) * dilation[i] * (start < 0)
        coords.append(np.where(coord < 0, first_real, coord))
    flat = np.ravel_multi_index(tuple(coords), spatial) if nd > 1 else coords[0]
    return np.asarray(flat, np.int64)


def max_pool1d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over (N, C, L)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     1, "max_pool1d")


@keeps_channels_last
def max_pool2d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling over (N, C, H, W); padding counts as -inf."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     2, "max_pool2d")


def max_pool3d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """3-D max pooling over (N, C, D, H, W); padding counts as -inf."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     3, "max_pool3d")


def max_pool1d_with_indices(input: TensorBase, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[TensorBase, TensorBase]:
    """``max_pool1d`` returning (values, indices) whatever ``return_indices`` says."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 1,
                     "max_pool1d")


@keeps_channels_last
def max_pool2d_with_indices(input: TensorBase, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[TensorBase, TensorBase]:
    """``max_pool2d`` returning (values, indices) whatever ``return_indices`` says."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 2,
                     "max_pool2d")


def max_pool3d_with_indices(input: TensorBase, kernel_size: Any, stride: Any = None,
                            padding: Any = 0, dilation: Any = 1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple[TensorBase, TensorBase]:
    """``max_pool3d`` returning (values, indices) whatever ``return_indices`` says."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, 3,
                     "max_pool3d")


def _window_counts(spatial: tuple, kernel: tuple, stride: tuple, pads: tuple, extras: tuple,
                   include_pad: bool, dtype: np.dtype) -> np.ndarray:
    """Per output window, how many positions the average divides by: the real elements, plus
    the padding when ``include_pad``; never the ceil_mode overhang (PyTorch's rule)."""
    if include_pad:  # the padded extent counts, the overhang beyond it does not
        ones = np.pad(np.ones(tuple(s + 2 * p for s, p in zip(spatial, pads)), dtype),
                      [(0, e) for e in extras])
    else:
        ones = np.pad(np.ones(spatial, dtype), [(p, p + e) for p, e in zip(pads, extras)])
    nd = len(kernel)
    return unfold(wrap(ones), kernel, stride, (1,) * nd)._data.sum(axis=tuple(range(nd, 2 * nd)))


def _avg_pool(input: TensorBase, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None, nd: int, op: str
              ) -> TensorBase:
    x, added = batched(input, nd, op)
    kernel, stride, pads, dilation, out_sizes, extras = _pool_geometry(
        x, kernel_size, stride, padding, 1, ceil_mode, nd, False)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    kernels = _pooling.pooling_kernels(x) if nd == 2 else None
    if kernels is not None:  # one compiled pass (ops/pooling.py)
        out = _pooling.avg_pool2d(x, kernel, stride, pads, out_sizes, count_include_pad,
                                  divisor_override, kernels)
        return out.squeeze(0) if added else out
    padded = pad_spatial(x, tuple((p, p + e) for p, e in zip(pads, extras)), 0.0)
    cols = unfold(padded, kernel, stride, dilation)
    total = cols.sum(tuple(range(2 + nd, 2 + 2 * nd)))
    if divisor_override is not None:
        out = total / divisor_override
    elif not any(extras) and (count_include_pad or not any(pads)):
        out = total / math.prod(kernel)  # every window is whole
    else:  # divide each window by its own count of counted positions
        out = total / wrap(_window_counts(tuple(x.shape[2:]), kernel, stride, pads, extras,
                                          count_include_pad, x._data.dtype))
    return out.squeeze(0) if added else out


def avg_pool1d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> TensorBase:
    """1-D average pooling over (N, C, L)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


@keeps_channels_last
def avg_pool2d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> TensorBase:
    """2-D average pooling over (N, C, H, W)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


def avg_pool3d(input: TensorBase, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> TensorBase:
    """3-D average pooling over (N, C, D, H, W)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")


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
