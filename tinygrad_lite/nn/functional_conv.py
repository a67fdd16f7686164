"""Convolution and pooling for ``nn.functional``: im2col through NumPy stride tricks (the
``unfold`` primitive of ``_ops``) followed by one matmul or reduction; no loops over pixels."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from ..functions.shape import pad  # nn.functional.pad is tl's pad: constant, reflect, replicate, circular
from ..tensor import Tensor
from ..ops import nn as _ops

__all__ = [
    "pad", "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d",
    "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
]


def _tuple(value: Any, n: int, name: str) -> tuple:
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value}")
    return value


def _batched(input: Tensor, nd: int, op: str) -> tuple[Tensor, bool]:
    """Add the batch dim to unbatched input (C, *spatial); says whether it was added."""
    if input.ndim == nd + 1:
        return input.unsqueeze(0), True
    if input.ndim != nd + 2:
        raise RuntimeError(f"{op}: expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input, "
                           f"got input of shape {tuple(input.shape)}")
    return input, False


def _pad_spatial(x: Tensor, pads: tuple, value: float = 0.0) -> Tensor:
    """Pad the trailing spatial dims by ``pads`` = ((before, after), ...)."""
    if not any(b or a for b, a in pads):
        return x
    return _ops.pad_constant(x, ((0, 0),) * (x.ndim - len(pads)) + tuple(pads), value)


def _convnd(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
            dilation: Any, groups: int, nd: int, op: str) -> Tensor:
    x, added = _batched(input, nd, op)
    stride, dilation = _tuple(stride, nd, "stride"), _tuple(dilation, nd, "dilation")
    n, c = x.shape[:2]
    o, cg = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    if weight.ndim != nd + 2 or c != cg * groups or o % groups:
        raise RuntimeError(
            f"{op}: input of shape {tuple(input.shape)} and weight of shape {tuple(weight.shape)}"
            f" with groups={groups} do not match: expected weight (out_channels, in_channels / "
            f"groups = {c // groups if groups else '?'}, *kernel) with out_channels divisible by "
            "groups"
        )
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError(f"{op}: padding='same' is not supported for strided convolutions")
            totals = [d * (k - 1) for d, k in zip(dilation, kernel)]
            pads = tuple((t // 2, t - t // 2) for t in totals)  # the extra one goes right
        else:
            raise ValueError(f"{op}: invalid padding string {padding!r} (use 'same' or 'valid')")
    else:
        pads = tuple((p, p) for p in _tuple(padding, nd, "padding"))
    cols = _ops.unfold(_pad_spatial(x, pads), kernel, stride, dilation)  # (N, C, *out, *k)
    out_sizes = tuple(cols.shape[2:2 + nd])
    p, k = math.prod(out_sizes), math.prod(kernel)
    g, og = groups, o // groups
    cols = cols.reshape(n, g, cg, p, k).permute(0, 1, 3, 2, 4).reshape(n, g, p, cg * k)
    w = weight.reshape(g, og, cg * k).permute(0, 2, 1)  # (G, Cg*K, O/G)
    out = (cols @ w).permute(0, 1, 3, 2).reshape(n, o, *out_sizes)
    if bias is not None:
        out = out + bias.reshape((1, o) + (1,) * nd)
    return out.squeeze(0) if added else out


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution (cross-correlation) of (N, C, L) input with (O, C/groups, k) weight."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution (cross-correlation) of (N, C, H, W) input with (O, C/groups, kh, kw)
    weight; ``padding`` may be an int, a pair, 'valid' or 'same'."""
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def _conv_transposend(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,
                      padding: Any, output_padding: Any, groups: int, dilation: Any, nd: int,
                      op: str) -> Tensor:
    x, added = _batched(input, nd, op)
    stride, dilation = _tuple(stride, nd, "stride"), _tuple(dilation, nd, "dilation")
    padding = _tuple(padding, nd, "padding")
    output_padding = _tuple(output_padding, nd, "output_padding")
    n, c = x.shape[:2]
    in_sizes = tuple(x.shape[2:])
    kernel = tuple(weight.shape[2:])
    if weight.ndim != nd + 2 or weight.shape[0] != c or c % groups:
        raise RuntimeError(
            f"{op}: input of shape {tuple(input.shape)} and weight of shape {tuple(weight.shape)}"
            f" with groups={groups} do not match: expected weight (in_channels={c}, out_channels"
            " / groups, *kernel)"
        )
    for op_, s, d in zip(output_padding, stride, dilation):
        if op_ >= max(s, d):
            raise ValueError(f"{op}: output_padding must be smaller than either stride or "
                             f"dilation, got {output_padding}")
    g, cg, og = groups, c // groups, weight.shape[1]
    p, k = math.prod(in_sizes), math.prod(kernel)
    xr = x.reshape(n, g, cg, p).permute(0, 1, 3, 2)  # (N, G, P, Cg)
    cols = xr @ weight.reshape(g, cg, og * k)  # (N, G, P, Og*K)
    cols = cols.reshape(n, g, *in_sizes, og, *kernel)
    order = (0, 1, 2 + nd) + tuple(range(2, 2 + nd)) + tuple(range(3 + nd, 3 + 2 * nd))
    cols = cols.permute(*order).reshape(n, g * og, *in_sizes, *kernel)
    full = tuple((i - 1) * s + d * (kk - 1) + 1 + extra
                 for i, s, d, kk, extra in zip(in_sizes, stride, dilation, kernel, output_padding))
    out = _ops.fold(cols, full, kernel, stride, dilation)
    if any(padding):
        out = out[(Ellipsis, *(slice(pp, f - pp) for pp, f in zip(padding, full)))]
    if bias is not None:
        out = out + bias.reshape((1, g * og) + (1,) * nd)
    return out.squeeze(0) if added else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """1-D transposed convolution (the gradient of conv1d with respect to its input)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 1, "conv_transpose1d")


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
                     padding: Any = 0, output_padding: Any = 0, groups: int = 1,
                     dilation: Any = 1) -> Tensor:
    """2-D transposed convolution with weight (C_in, C_out / groups, kh, kw)."""
    return _conv_transposend(input, weight, bias, stride, padding, output_padding, groups,
                             dilation, 2, "conv_transpose2d")


# -- pooling -----------------------------------------------------------------------------------


def _pool_windows(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                  ceil_mode: bool, nd: int, fill: float, op: str) -> tuple[Tensor, bool, tuple]:
    if ceil_mode:
        raise NotImplementedError(f"{op}: ceil_mode=True is not supported")
    x, added = _batched(input, nd, op)
    kernel = _tuple(kernel_size, nd, "kernel_size")
    stride = kernel if stride is None or stride == () else _tuple(stride, nd, "stride")
    pads = _tuple(padding, nd, "padding")
    if any(2 * pp > kk for pp, kk in zip(pads, kernel)):
        raise RuntimeError(f"{op}: pad should be at most half of effective kernel size, but got "
                           f"pad={pads} and kernel_size={kernel}")
    dilation = _tuple(dilation, nd, "dilation")
    cols = _ops.unfold(_pad_spatial(x, tuple((pp, pp) for pp in pads), fill), kernel, stride,
                       dilation)
    return cols, added, (kernel, stride, pads, dilation)


def _max_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool, return_indices: bool, nd: int, op: str) -> Any:
    cols, added, (kernel, stride, pads, dilation) = _pool_windows(
        input, kernel_size, stride, padding, dilation, ceil_mode, nd, -np.inf, op)
    out_sizes = tuple(cols.shape[2:2 + nd])
    flat = cols.reshape(*cols.shape[:2 + nd], -1)
    # max over the window: the gradient goes to one (the first) maximum, as in PyTorch
    values, arg = _fn.max(flat, -1)
    if added:
        values = values.squeeze(0)
    if not return_indices:
        return values
    offs = np.unravel_index(arg._data, kernel)  # window offsets of the maxima
    spatial = tuple(input.shape[-nd:])
    coords = []
    for i in range(nd):
        grid_shape = [1] * (2 + nd)
        grid_shape[2 + i] = out_sizes[i]
        start = (np.arange(out_sizes[i]) * stride[i] - pads[i]).reshape(grid_shape)
        coords.append(start + offs[i] * dilation[i])
    index = np.ravel_multi_index(tuple(coords), spatial) if nd > 1 else coords[0]
    index = Tensor._wrap(np.asarray(index, np.int64))
    return values, (index.squeeze(0) if added else index)


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """1-D max pooling over (N, C, L)."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     1, "max_pool1d")


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """2-D max pooling over (N, C, H, W); padding counts as -inf."""
    return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     2, "max_pool2d")


def _avg_pool(input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
              count_include_pad: bool, divisor_override: int | None, nd: int, op: str) -> Tensor:
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
        counts = _ops._unfold_array(ones, kernel, stride, (1,) * nd).sum(
            axis=tuple(range(nd, 2 * nd)))
        out = total / Tensor._wrap(counts)
    return out.squeeze(0) if added else out


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """1-D average pooling over (N, C, L)."""
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
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


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average over adaptive windows giving ``output_size`` positions."""
    (o,) = _tuple(output_size, 1, "output_size")
    a = Tensor._wrap(_adaptive_matrix(input.shape[-1], o, input._data.dtype))
    return input @ a.mT


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average over adaptive windows giving an ``output_size`` (oh, ow) grid; as two matmuls
    with averaging matrices (None keeps a size)."""
    if isinstance(output_size, (int, np.integer)):
        output_size = (output_size, output_size)
    h, w = input.shape[-2:]
    oh = h if output_size[0] is None else int(output_size[0])
    ow = w if output_size[1] is None else int(output_size[1])
    dt = input._data.dtype
    ah = Tensor._wrap(_adaptive_matrix(h, oh, dt))
    aw = Tensor._wrap(_adaptive_matrix(w, ow, dt))
    return ah @ input @ aw.mT
