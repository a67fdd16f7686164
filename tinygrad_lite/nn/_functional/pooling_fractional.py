"""Fractional max pooling (Graham, 2014), as ``F.fractional_max_pool2d/3d``: each output cell
takes the maximum of a ``kernel_size`` window whose start follows PyTorch's pseudo-random
sequence ``int((i + u) * alpha) - int(u * alpha)`` (``alpha = (in - k) / (out - 1)``, the last
window ending at the input's end), with one uniform sample ``u`` per (batch, channel, dim):
``_random_samples`` of shape (N, C, 2 or 3), drawn from the package generator when not given.

The window starts and the argmax (the first maximum; a NaN wins, the last NaN of a window
as in PyTorch's loop) are found in NumPy; the values are then gathered from the input, so the
gradient (to the argmax of each window, summed) comes from the gather.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ...dtypes import is_float_dtype

__all__ = ["fractional_max_pool2d", "fractional_max_pool3d",
           "fractional_max_pool2d_with_indices", "fractional_max_pool3d_with_indices"]

_AXIS_NAMES = {2: ("height", "width"), 3: ("time", "height", "width")}


def _tuple(value: Any, nd: int, op: str, what: str) -> tuple:
    if isinstance(value, (int, float, np.integer, np.floating)):
        return (value,) * nd
    value = tuple(value)
    if len(value) == 1:
        value = value * nd
    if len(value) != nd:
        raise RuntimeError(f"{op}: {what} must either be a single Int or tuple of Ints")
    return value


def _intervals(samples: np.ndarray, n_in: int, n_out: int, pool: int) -> np.ndarray:
    """Window starts, shape samples.shape + (n_out,), computed in the samples' float type as
    PyTorch's ``generate_intervals`` does (C truncation to int)."""
    dt = samples.dtype.type
    starts = np.empty(samples.shape + (n_out,), np.int64)
    if n_out > 1:
        alpha = dt(n_in - pool) / dt(n_out - 1)
        i = np.arange(n_out - 1, dtype=samples.dtype)
        u = samples[..., None]
        starts[..., :-1] = np.trunc((i + u) * alpha).astype(np.int64) - \
            np.trunc(u * alpha).astype(np.int64)
    if n_out > 0:
        starts[..., -1] = n_in - pool
    return starts


def _check(input: TensorBase, kernel: tuple, sizes: tuple, samples: TensorBase, nd: int,
           op: str) -> None:
    dims = (nd + 1, nd + 2)
    if input.ndim not in dims:
        raise RuntimeError(f"{op}(): Expected {dims[0]}D or {dims[1]}D tensor, but got: "
                           f"{list(input.shape)}")
    for i in range(1 if input.ndim == nd + 2 else 0, input.ndim):
        if input.shape[i] <= 0:
            raise RuntimeError(f"{op}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but got{list(input.shape)} with dimension {i} "
                               "being empty.")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch = input.shape[0] if input.ndim == nd + 2 else 1
    channels = input.shape[-nd - 1]
    if samples.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got "
                           f"{samples.shape[2]}.")
    if samples.shape[1] != channels:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if samples.shape[0] < batch:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if samples._data.dtype != input._data.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"{op}(): kernel_size must be greater than zero, but got {kernel}")
    if any(s < 0 for s in sizes):
        shape = list(input.shape[:-nd]) + list(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{shape}")
    # PyTorch's 3-D check is strict: the windows may not reach the last element
    where = "fractional_max_pool3d_out" if nd == 3 else op
    for name, n_in, n_out, k in zip(_AXIS_NAMES[nd], input.shape[-nd:], sizes, kernel):
        if n_out + k - 1 > n_in - (nd == 3):
            raise RuntimeError(f"{where}(): pool {name} {k} too large relative to input "
                               f"{name} {n_in}")


def _fractional(input: TensorBase, kernel_size: Any, output_size: Any, output_ratio: Any,
                samples: Any, nd: int) -> tuple[TensorBase, TensorBase]:
    op = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{op} requires specifying either an output_size or an output_ratio")
    if not isinstance(input, TensorBase):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not is_float_dtype(input._data.dtype):
        raise NotImplementedError(f'"{op}" not implemented for {input.dtype}')
    if output_size is None:
        ratios = _tuple(output_ratio, nd, op, "output_ratio")
        output_size = tuple(int(n * r) for n, r in zip(input.shape[-nd:], ratios))
    sizes = tuple(int(s) for s in _tuple(output_size, nd, op, "output_size"))
    kernel = tuple(int(k) for k in _tuple(kernel_size, nd, op, "kernel_size"))
    if samples is None and input.ndim in (nd + 1, nd + 2):
        batch = 1 if input.ndim == nd + 1 else input.shape[0]
        samples = _fn.rand(batch, input.shape[-nd - 1], nd, dtype=input.dtype)
    _check(input, kernel, sizes, samples, nd, op)
    unbatched = input.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    n, c = int(x.shape[0]), int(x.shape[1])
    spatial = tuple(int(s) for s in x.shape[2:])
    u = samples._data[:n]
    # PyTorch's sample order: (w, h) in 2-D, (t, h, w) in 3-D
    sample_axis = (1, 0) if nd == 2 else (0, 1, 2)
    flat = np.zeros((n, c) + sizes + (1,) * nd, np.int64)
    strides = np.cumprod((1,) + spatial[::-1])[:-1][::-1]  # row-major strides of the plane
    for axis in range(nd):
        starts = _intervals(u[..., sample_axis[axis]], spatial[axis], sizes[axis], kernel[axis])
        cells = starts[..., None] + np.arange(kernel[axis])  # (n, c, out, k)
        shape = [n, c] + [1] * nd + [1] * nd
        shape[2 + axis], shape[2 + nd + axis] = sizes[axis], kernel[axis]
        flat = flat + cells.reshape(shape) * int(strides[axis])
    windows = flat.reshape((n, c) + sizes + (int(np.prod(kernel)),))
    plane = x._data.reshape(n, c, int(np.prod(spatial)))
    values = np.take_along_axis(plane, windows.reshape(n, c, -1), 2).reshape(windows.shape)
    if values.size == 0:
        arg = np.zeros(windows.shape[:-1], np.int64)
    else:
        nan = np.isnan(values)
        last_nan = nan.shape[-1] - 1 - np.argmax(nan[..., ::-1], -1)
        arg = np.where(nan.any(-1), last_nan, np.argmax(values, -1))
    indices = np.take_along_axis(windows, arg[..., None], -1)[..., 0]
    out = x.reshape(n, c, plane.shape[2]).gather(2, wrap(indices.reshape(n, c, -1))).reshape(
        n, c, *sizes)
    index_tensor = wrap(indices)
    if unbatched:
        return out.squeeze(0), index_tensor.squeeze(0)
    return out, index_tensor


def fractional_max_pool2d_with_indices(input: TensorBase, kernel_size: Any,
                                       output_size: Any = None, output_ratio: Any = None,
                                       return_indices: bool = False,
                                       _random_samples: Any = None) -> tuple:
    """2-D fractional max pooling of (N, C, H, W) or (C, H, W) input: (output, indices), the
    indices flat within each H x W plane."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 2)


def fractional_max_pool2d(input: TensorBase, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Any = None) -> Any:
    """2-D fractional max pooling; ``(output, indices)`` with ``return_indices``."""
    out, indices = _fractional(input, kernel_size, output_size, output_ratio, _random_samples,
                               2)
    return (out, indices) if return_indices else out


def fractional_max_pool3d_with_indices(input: TensorBase, kernel_size: Any,
                                       output_size: Any = None, output_ratio: Any = None,
                                       return_indices: bool = False,
                                       _random_samples: Any = None) -> tuple:
    """3-D fractional max pooling of (N, C, T, H, W) or (C, T, H, W) input: (output,
    indices), the indices flat within each T x H x W volume."""
    return _fractional(input, kernel_size, output_size, output_ratio, _random_samples, 3)


def fractional_max_pool3d(input: TensorBase, kernel_size: Any, output_size: Any = None,
                          output_ratio: Any = None, return_indices: bool = False,
                          _random_samples: Any = None) -> Any:
    """3-D fractional max pooling; ``(output, indices)`` with ``return_indices``."""
    out, indices = _fractional(input, kernel_size, output_size, output_ratio, _random_samples,
                               3)
    return (out, indices) if return_indices else out
