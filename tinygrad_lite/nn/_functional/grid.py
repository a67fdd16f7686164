"""Spatial transformers of ``nn.functional``: ``affine_grid`` (sampling grids from affine
matrices) and ``grid_sample`` (bilinear/trilinear, nearest or bicubic sampling with zeros,
border or reflection padding). Both are composed from tensor ops, so the input, the grid and
theta get gradients; indices and masks are computed in NumPy, the weights in the graph, and the
corner gather is the primitive ``ops.grid_sample.gather``."""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...dtypes import is_float_dtype
from ...ops import grid_sample as ops_grid_sample

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the old "
                  "behavior is desired. See the documentation of grid_sample for details.")


def _align(align_corners: bool | None) -> bool:
    if align_corners is None:
        warn(_ALIGN_WARNING)
        return False
    return bool(align_corners)


def _base_coords(n: int, align: bool, dtype: np.dtype) -> np.ndarray:
    """The normalised [-1, 1] coordinates of ``n`` pixel centres (or corners when aligned), in
    ``dtype`` and rounded as PyTorch's linspace (a fused multiply-add from the start for the
    first half, from the end for the rest), so that which side of a pixel a grid point falls on,
    and hence the one-sided gradient there, match PyTorch."""
    if n <= 1:
        return np.zeros(max(n, 0), dtype)
    wide = np.longdouble if dtype == np.float64 else np.float64  # exact products, one rounding
    i = np.arange(n)
    step = wide(dtype.type(2.0) / dtype.type(n - 1))
    steps = np.where(i < n // 2, step * i - 1, 1 - step * (n - 1 - i)).astype(dtype)
    if align:
        return steps
    return (steps * dtype.type(n - 1) / dtype.type(n)).astype(dtype)


def affine_grid(theta: TensorBase, size: Any, align_corners: bool | None = None) -> TensorBase:
    """The (N, H, W, 2) or (N, D, H, W, 3) sampling grid of the affine maps ``theta``
    ((N, 2, 3) or (N, 3, 4)) for an output of ``size`` (N, C, H, W) or (N, C, D, H, W)."""
    align = _align(align_corners)
    size = tuple(int(s) for s in size)
    if not isinstance(theta, TensorBase) or not is_float_dtype(theta._data.dtype):
        raise ValueError("Expected theta to have floating point type, but got "
                         f"{getattr(theta, 'dtype', type(theta).__name__)}")
    if len(size) not in (4, 5):
        raise NotImplementedError("affine_grid only supports 4D and 5D sizes, for 2D and 3D "
                                  f"affine transforms, respectively. Got size {size}.")
    nd = len(size) - 2
    if theta.ndim != 3 or tuple(theta.shape[1:]) != (nd, nd + 1):
        raise ValueError(f"Expected a batch of {nd}D affine matrices of shape Nx{nd}x{nd + 1} "
                         f"for size {size}. Got {tuple(theta.shape)}.")
    if theta.shape[0] != size[0]:  # PyTorch's error is its batched matmul's (a RuntimeError)
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {nd + 1}] but got: [{theta.shape[0]}, {nd + 1}].")
    if align and min(size[2:]) == 1:
        warn("Since version 1.3.0, affine_grid behavior has changed for unit-size "
             "grids when align_corners=True. This is not an intended use case of "
             "affine_grid. See the documentation of affine_grid for details.")
    spatial = size[2:]
    dt = theta._data.dtype
    axes = [_base_coords(s, align, dt) for s in reversed(spatial)]  # x (W) first, then y, z
    mesh = np.meshgrid(*axes[::-1], indexing="ij")[::-1]  # each (D,) H, W
    base = np.stack([*mesh, np.ones(spatial, dt)], axis=-1)
    flat = wrap(base.reshape(1, -1, nd + 1))  # (1, P, nd + 1)
    grid = flat @ theta.transpose(1, 2)  # (N, P, nd)
    return grid.reshape(size[0], *spatial, nd)


def _unnormalise(coord: TensorBase, size: int, align: bool) -> TensorBase:
    if align:
        return (coord + 1) * ((size - 1) / 2)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: TensorBase, twice_low: int, twice_high: int) -> TensorBase:
    """Reflect into [twice_low / 2, twice_high / 2] (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = (coord - low).abs()
    flips = (dist.detach() / span).floor()
    extra = dist - flips * span
    odd = wrap(np.asarray(flips._data % 2 == 1))
    return _fn.where(odd, span - extra + low, extra + low)


def _clip(coord: TensorBase, size: int) -> TensorBase:
    """Clamp to [0, size - 1] with PyTorch's gradient: zero on and beyond the bounds."""
    inside = wrap(np.asarray((coord._data > 0) & (coord._data < size - 1)))
    return _fn.where(inside, coord, coord.detach().clamp(0, size - 1))


def _pad_coord(coord: TensorBase, size: int, padding: str, align: bool) -> TensorBase:
    if padding == "border":
        return _clip(coord, size)
    if padding == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align else _reflect(coord, -1, 2 * size - 1)
        return _clip(coord, size)
    return coord


def _cubic_weights(t: TensorBase) -> list[TensorBase]:
    """The four cubic-convolution weights (A = -0.75, as PyTorch) for fraction ``t``."""
    a = -0.75

    def near(x: TensorBase) -> TensorBase:  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x: TensorBase) -> TensorBase:  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _check_sample_args(input: TensorBase, grid: TensorBase, mode: str, padding_mode: str
                       ) -> None:
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError("grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, "
                           f"but got input with sizes {list(input.shape)} and grid with sizes "
                           f"{list(grid.shape)}")
    if grid.shape[-1] != input.ndim - 2:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {input.ndim - 2} in "
                           f"last dimension, but got grid with sizes {list(grid.shape)}")
    if input._data.dtype != grid._data.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same dtype, "
                           f"got {input.dtype} and {grid.dtype}")
    if mode == "bicubic" and input.ndim != 4:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")


def grid_sample(input: TensorBase, grid: TensorBase, mode: str = "bilinear",
                padding_mode: str = "zeros", align_corners: bool | None = None) -> TensorBase:
    """Sample ``input`` (N, C, [D,] H, W) at the normalised [-1, 1] locations of ``grid``
    (N, [Do,] Ho, Wo, 2 or 3; x first): output (N, C, [Do,] Ho, Wo)."""
    _check_sample_args(input, grid, mode, padding_mode)
    align = _align(align_corners)
    n, c, *sizes = input.shape
    out_spatial = tuple(grid.shape[1:-1])
    nd = len(sizes)
    # sizes spelled out: -1 is ambiguous when one is 0
    flat = input.reshape(n, c, math.prod(sizes))
    g = grid.reshape(n, math.prod(out_spatial), nd)
    coords = [_unnormalise(g[:, :, d], sizes[nd - 1 - d], align) for d in range(nd)]
    if mode == "bicubic":
        out = _bicubic(flat, coords, sizes, padding_mode, align)
    else:
        coords = [_pad_coord(x, sizes[nd - 1 - d], padding_mode, align)
                  for d, x in enumerate(coords)]
        if mode == "nearest":
            taps = [np.round(x._data).astype(np.int64) for x in coords]  # half to even
            vals, inside = ops_grid_sample.gather(flat, [taps], tuple(sizes))
            out = vals[0] * wrap(inside[0][:, None, :].astype(input._data.dtype))
        else:
            out = _linear(flat, coords, sizes)
    return out.reshape(n, c, *out_spatial)


def _linear(flat: TensorBase, coords: list[TensorBase], sizes: list) -> TensorBase:
    """Bilinear / trilinear interpolation: a weighted sum over the 2^nd neighbours."""
    lows = [np.floor(x._data) for x in coords]
    fracs = [x - wrap(lo) for x, lo in zip(coords, lows)]
    bits = list(itertools.product((0, 1), repeat=len(coords)))
    taps = [[(lo + b).astype(np.int64) for lo, b in zip(lows, corner)] for corner in bits]
    vals, inside = ops_grid_sample.gather(flat, taps, tuple(sizes))
    weights = []
    for k, corner in enumerate(bits):
        weight: Any = None
        for f, bit in zip(fracs, corner):
            w = f if bit else 1 - f
            weight = w if weight is None else weight * w
        weights.append(weight * wrap(inside[k].astype(flat._data.dtype)))
    return (vals * _fn.stack(weights).unsqueeze(2)).sum(0)


def _bicubic(flat: TensorBase, coords: list[TensorBase], sizes: list, padding: str,
             align: bool) -> TensorBase:
    """Bicubic interpolation over the 4 x 4 neighbours; each tap is padded on its own."""
    x, y = coords
    x0, y0 = np.floor(x._data), np.floor(y._data)
    wx, wy = _cubic_weights(x - wrap(x0)), _cubic_weights(y - wrap(y0))
    h, w = sizes
    corners = []
    for j in range(4):
        ty = y0 - 1 + j
        for i in range(4):
            tx = x0 - 1 + i
            if padding != "zeros":
                tx = _pad_coord(wrap(tx), w, padding, align)._data
                ty_p = _pad_coord(wrap(ty), h, padding, align)._data
            else:
                ty_p = ty
            corners.append([tx.astype(np.int64), ty_p.astype(np.int64)])
    vals, inside = ops_grid_sample.gather(flat, corners, (h, w))
    weights = [wx[k % 4] * wy[k // 4] * wrap(inside[k].astype(flat._data.dtype))
               for k in range(16)]
    return (vals * _fn.stack(weights).unsqueeze(2)).sum(0)
