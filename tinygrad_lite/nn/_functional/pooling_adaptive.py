"""Adaptive pooling of ``nn.functional``: average and max pooling to a requested output size.

Adaptive average pooling is a mean: over all spatial dims for a 1x1 output, over reshaped windows
where they tile an axis, per window otherwise (a non-finite value stays in its own windows).
Adaptive max pooling gathers the windows, or takes the block path of ``max_pool`` when the sizes
divide.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.memory_format import keeps_channels_last
from ..._core.tensor_base import TensorBase, wrap
from ._utils import batched
from .pooling import _max_pool

__all__ = ["adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices"]


def _adaptive_sizes(input: TensorBase, output_size: Any, nd: int, op: str) -> tuple:
    """Checked input rank and the output sizes (None keeps an input size)."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{op}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    given: tuple = (output_size,) * nd if isinstance(output_size, (int, np.integer)) or \
        output_size is None else tuple(output_size)
    if len(given) != nd:
        raise RuntimeError(f"{op}(): output_size must be {nd}, got {output_size}")
    spatial = tuple(input.shape[-nd:])
    sizes = tuple(int(s if o is None else o) for o, s in zip(given, spatial))
    if any(o < 0 for o in sizes):
        raise RuntimeError(f"{op}(): elements of output_size must be greater than or equal to "
                           f"0 but received {sizes}")
    return sizes


def _adaptive_bounds(n_in: int, n_out: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's adaptive windows [floor(i * n / o), ceil((i + 1) * n / o))."""
    i = np.arange(n_out)
    return (i * n_in) // n_out, -((-(i + 1) * n_in) // n_out)


def _adaptive_avg(input: TensorBase, output_size: Any, nd: int, op: str) -> TensorBase:
    sizes = _adaptive_sizes(input, output_size, nd, op)
    first = input.ndim - nd
    if all(o == 1 for o in sizes):  # global average pooling: one mean
        return input.mean(tuple(range(first, input.ndim)), keepdim=True)
    out = input
    for axis in range(nd):  # each spatial axis that changes size, on its own
        dim, o = first + axis, sizes[axis]
        n = input.shape[dim]
        if o == n:
            continue
        if o == 0:  # an empty output along this axis
            out = out.narrow(dim, 0, 0)
        elif n % o == 0:  # equal windows that tile the axis: a reshape and a mean
            shape = tuple(out.shape)
            out = out.reshape(shape[:dim] + (o, n // o) + shape[dim + 1:]).mean(dim + 1)
        else:  # PyTorch's uneven windows, each its own mean (a window's NaN stays in it)
            starts, ends = _adaptive_bounds(n, o)
            out = _fn.cat([out.narrow(dim, int(a), int(b - a)).mean(dim, keepdim=True)
                           for a, b in zip(starts, ends)], dim)
    return out if out is not input else input * 1  # a new tensor even when nothing pools


def adaptive_avg_pool1d(input: TensorBase, output_size: Any) -> TensorBase:
    """Average over adaptive windows giving ``output_size`` positions."""
    return _adaptive_avg(input, output_size, 1, "adaptive_avg_pool1d")


@keeps_channels_last
def adaptive_avg_pool2d(input: TensorBase, output_size: Any) -> TensorBase:
    """Average over adaptive windows giving an (oh, ow) grid (None keeps a size)."""
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool3d(input: TensorBase, output_size: Any) -> TensorBase:
    """Average over adaptive windows giving an (od, oh, ow) grid (None keeps a size)."""
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


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
