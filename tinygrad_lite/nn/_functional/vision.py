"""Resampling and rearranging images in ``nn.functional``: ``interpolate`` (nearest,
nearest-exact, linear, bilinear, trilinear, bicubic, area), ``pixel_shuffle``, ``unfold``/``fold``
(im2col and its adjoint as PyTorch lays them out), ``channel_shuffle``.

Interpolation is separable: one dimension at a time, each output position reads one, two or four
source rows chosen with ``index_select`` and mixes them with precomputed weights. The weights and
indices are NumPy constants, so the gradient is that of a few gathers and multiplies (exact, and
second order for free), and no Python loop runs over pixels.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...ops.nn import fold as _fold_windows
from ...ops.nn import unfold as _unfold_windows
from ._utils import ntuple, pad_spatial
from .pooling_adaptive import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear", "pixel_shuffle",
           "pixel_unshuffle", "unfold", "fold", "channel_shuffle",
           "native_channel_shuffle"]

_MODE_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_CUBIC_A = -0.75  # PyTorch's (and OpenCV's) cubic convolution coefficient


def _output_sizes(op: str, spatial: tuple[int, ...], size: Any, scale_factor: Any,
                  recompute_scale_factor: bool | None) -> tuple[tuple[int, ...], list]:
    """The output sizes and, per dim, the scale that maps output to input coordinates (None:
    use input / output)."""
    nd = len(spatial)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{op}: either size or scale_factor should be defined (exactly one)")
    if size is not None:
        sizes = (int(size),) * nd if isinstance(size, (int, np.integer)) else tuple(
            int(s) for s in size)
        if len(sizes) != nd:
            raise ValueError(f"{op}: input with spatial size {spatial} expects size of "
                             f"{nd} elements, got {tuple(sizes)}")
        return sizes, [None] * nd
    factors = (float(scale_factor),) * nd if isinstance(scale_factor, (int, float)) else tuple(
        float(s) for s in scale_factor)
    if len(factors) != nd:
        raise ValueError(f"{op}: input with spatial size {spatial} expects scale_factor of "
                         f"{nd} elements, got {tuple(factors)}")
    sizes = tuple(int(math.floor(n * f)) for n, f in zip(spatial, factors))
    if recompute_scale_factor:
        return sizes, [None] * nd
    return sizes, [1.0 / f for f in factors]


def _source_coordinates(n_in: int, n_out: int, scale: float | None, align_corners: bool,
                        cubic: bool) -> np.ndarray:
    """Where each output position samples the input (PyTorch's area-pixel convention)."""
    dst = np.arange(n_out, dtype=np.float64)
    if align_corners:
        step = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
        return dst * step
    ratio = n_in / n_out if scale is None else scale
    src = (dst + 0.5) * ratio - 0.5
    return src if cubic else np.maximum(src, 0.0)


def _taps(mode: str, n_in: int, n_out: int, scale: float | None,
          align_corners: bool) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """Per source tap: the input index of every output position and its weight (None: 1)."""
    if mode in ("nearest", "nearest-exact"):
        ratio = n_in / n_out if scale is None else scale
        dst = np.arange(n_out, dtype=np.float64)
        offset = 0.5 if mode == "nearest-exact" else 0.0
        index = np.minimum(np.floor((dst + offset) * ratio).astype(np.int64), n_in - 1)
        return [(index, None)]
    cubic = mode == "bicubic"
    src = _source_coordinates(n_in, n_out, scale, align_corners, cubic)
    base = np.floor(src)
    t = src - base
    base = base.astype(np.int64)
    if not cubic:
        lo = np.minimum(base, n_in - 1)
        hi = np.minimum(base + 1, n_in - 1)
        return [(lo, 1.0 - t), (hi, t)]
    a = _CUBIC_A
    weights = [
        ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a,
        ((a + 2) * t - (a + 3)) * t * t + 1,
        ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1,
        ((a * (2 - t) - 5 * a) * (2 - t) + 8 * a) * (2 - t) - 4 * a,
    ]
    return [(np.clip(base + k - 1, 0, n_in - 1), w) for k, w in enumerate(weights)]


def _antialias_taps(mode: str, n_in: int, n_out: int, scale: float | None,
                    align_corners: bool) -> list[tuple[np.ndarray, np.ndarray | None]]:
    """PyTorch's (and PIL's) antialiased taps: when downsampling, the filter (triangle for
    bilinear, Keys cubic with a = -0.5 for bicubic) is stretched by the ratio so that every
    input pixel contributes; each output's weights are normalised to sum to 1. Upsampling keeps
    the plain support but still normalises the weights cut off at the borders."""
    if align_corners:
        ratio = (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    else:
        ratio = n_in / n_out if scale is None else scale
    half = 1.0 if mode == "bilinear" else 2.0  # half the filter's width, in input pixels
    support = half * ratio if ratio >= 1.0 else half
    invscale = 1.0 / ratio if ratio >= 1.0 else 1.0
    max_taps = int(math.ceil(support)) * 2 + 1
    center = ratio * (np.arange(n_out, dtype=np.float64) + 0.5)
    # C's truncation toward zero of center -/+ support + 0.5, as PyTorch computes the window
    xmin = np.maximum(np.trunc(center - support + 0.5), 0).astype(np.int64)
    xsize = np.clip(np.minimum(np.trunc(center + support + 0.5).astype(np.int64), n_in) - xmin,
                    0, max_taps)
    j = np.arange(max_taps)
    x = np.abs((j[None, :] + xmin[:, None] - center[:, None] + 0.5) * invscale)
    if mode == "bilinear":
        w = np.where(x < 1.0, 1.0 - x, 0.0)
    else:
        a = -0.5
        w = np.where(x < 1.0, ((a + 2) * x - (a + 3)) * x * x + 1,
                     np.where(x < 2.0, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0.0))
    w = np.where(j[None, :] < xsize[:, None], w, 0.0)
    total = w.sum(1, keepdims=True)
    w = np.divide(w, total, out=np.zeros_like(w), where=total != 0)
    index = np.minimum(xmin[:, None] + j[None, :], n_in - 1)  # (zero-weight taps past the end)
    return [(index[:, k], w[:, k]) for k in range(max_taps) if w[:, k].any()]


def _resample_dim(x: TensorBase, dim: int, taps: list) -> TensorBase:
    """Mix the rows of ``x`` along ``dim`` by ``taps`` (index, weight) pairs."""
    shape = [1] * x.ndim
    shape[dim] = -1
    out = None
    for index, weight in taps:
        picked = _fn.index_select(x, dim, wrap(index))
        if weight is not None:
            picked = picked * wrap(weight.astype(x._data.dtype).reshape(shape))
        out = picked if out is None else out + picked
    assert out is not None
    return out


def _resample_uint8(data: np.ndarray, dims: list, tap_lists: list) -> np.ndarray:
    """uint8 images resampled as PyTorch's CPU kernel does them: one dimension at a time (the
    last first), each pass in integer arithmetic with the weights in int16 fixed point (as many
    fraction bits as keep the largest weight in 15 bits), rounded half up by the added
    ``1 << (bits - 1)``, shifted back and clamped to [0, 255] before the next pass. A float
    computation rounded once would differ by up to 13 in bicubic images (its overshoots are
    clamped between the passes here)."""
    x = data.astype(np.int64)
    for d, taps in reversed(list(zip(dims, tap_lists))):
        weights = [np.ones(len(index)) if w is None else w for index, w in taps]
        largest = max(float(np.abs(w).max()) for w in weights)
        bits = 0
        while bits < 22 and int(0.5 + largest * (1 << (bits + 1))) < (1 << 15):
            bits += 1
        shape = [1] * x.ndim
        shape[d] = -1
        acc = np.full(x.shape[:d] + (len(taps[0][0]),) + x.shape[d + 1:], 1 << (bits - 1),
                      np.int64)
        for (index, _), w in zip(taps, weights):
            scaled = w * (1 << bits)  # rounded away from 0, as the kernel's int16 cast
            fixed = np.trunc(np.where(w < 0, scaled - 0.5, scaled + 0.5)).astype(np.int64)
            acc += np.take(x, index, axis=d) * fixed.reshape(shape)
        x = np.clip(acc >> bits, 0, 255)
    return x.astype(np.uint8)


def interpolate(input: TensorBase, size: Any = None, scale_factor: Any = None,
                mode: str = "nearest", align_corners: bool | None = None,
                recompute_scale_factor: bool | None = None, antialias: bool = False
                ) -> TensorBase:
    """Resize the spatial dims of (N, C, *spatial) input to ``size`` or by ``scale_factor``,
    with PyTorch's modes and coordinate conventions (``align_corners`` for the linear family
    and bicubic)."""
    if not isinstance(input, TensorBase):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    nd = input.ndim - 2
    if nd < 1 or nd > 3:
        raise NotImplementedError(f"interpolate: input must be 3-D, 4-D or 5-D (N, C, *spatial), "
                                  f"got input of shape {tuple(input.shape)}")
    known = ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "trilinear", "area")
    if mode not in known:
        raise NotImplementedError(f"interpolate: mode {mode!r} is not supported; expected one "
                                  f"of {', '.join(known)}")
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    if mode in _MODE_DIMS and _MODE_DIMS[mode] != nd:
        raise NotImplementedError(f"interpolate: got {nd + 2}D input, but {mode} mode needs "
                                  f"{_MODE_DIMS[mode] + 2}D input")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias and not (mode in ("bilinear", "bicubic") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos "
                         "modes and requires a 4-D tensor as input")
    spatial = tuple(input.shape[2:])
    sizes, scales = _output_sizes("interpolate", spatial, size, scale_factor,
                                  recompute_scale_factor)
    if any(s <= 0 for s in sizes) or any(n <= 0 for n in spatial):
        names = "WHD"[:nd][::-1]  # PyTorch names the spatial dims (D, H, W)
        inp = ", ".join(f"{k}: {n}" for k, n in zip(names, spatial))
        outp = ", ".join(f"{k}: {n}" for k, n in zip(names, sizes))
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({inp}) and output ({outp})")
    kind = input._data.dtype.kind
    if kind in "biu" and mode not in ("nearest", "nearest-exact") and not (
            input._data.dtype == np.uint8 and mode in ("bilinear", "bicubic")):
        raise NotImplementedError(f"interpolate: mode {mode!r} is not implemented for "
                                  f"{input.dtype} input (PyTorch resamples uint8 images with "
                                  "bilinear and bicubic only; convert to float first)")
    if mode == "area":
        pool = (adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d)[nd - 1]
        return pool(input, sizes if nd > 1 else sizes[0])
    if kind == "u":  # uint8 bilinear/bicubic: PyTorch's fixed-point kernel (no gradient)
        tap_lists = [(_antialias_taps if antialias else _taps)(mode, n_in, n_out, scale,
                                                               bool(align_corners))
                     for n_in, n_out, scale in zip(spatial, sizes, scales)]
        return wrap(_resample_uint8(input._data, [2, 3], tap_lists))
    out = input
    for d, (n_in, n_out, scale) in enumerate(zip(spatial, sizes, scales)):
        taps: list[tuple[np.ndarray, np.ndarray | None]]
        if antialias:  # (applies at every size: the cut-off weights differ at the borders)
            taps = _antialias_taps(mode, n_in, n_out, scale, bool(align_corners))
        elif n_in == n_out and scale in (None, 1.0) and mode != "bicubic":
            continue  # identity along this dim (bicubic too, but it is rare)
        else:
            taps = _taps(mode, n_in, n_out, scale, bool(align_corners))
        out = _resample_dim(out, 2 + d, taps)
    return out


def upsample(input: TensorBase, size: Any = None, scale_factor: Any = None,
             mode: str = "nearest", align_corners: bool | None = None) -> TensorBase:
    """Deprecated spelling of ``interpolate`` (warns, as PyTorch)."""
    warn("nn.functional.upsample is deprecated. Use nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: TensorBase, size: Any = None, scale_factor: Any = None
                     ) -> TensorBase:
    """Deprecated: ``interpolate(..., mode='nearest')``."""
    warn("nn.functional.upsample_nearest is deprecated. Use "
         "nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: TensorBase, size: Any = None, scale_factor: Any = None
                      ) -> TensorBase:
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    warn("nn.functional.upsample_bilinear is deprecated. Use "
         "nn.functional.interpolate instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def pixel_shuffle(input: TensorBase, upscale_factor: int) -> TensorBase:
    """(*, C r^2, H, W) -> (*, C, H r, W r): sub-pixel convolution's rearrangement."""
    r = int(upscale_factor)
    if input.ndim < 3 or r <= 0 or input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor ({r}), and at least 3 "
                           f"dims, but input has shape {tuple(input.shape)}")
    *lead, c, h, w = input.shape
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: TensorBase, downscale_factor: int) -> TensorBase:
    """(*, C, H r, W r) -> (*, C r^2, H, W): the inverse of ``pixel_shuffle``."""
    r = int(downscale_factor)
    if input.ndim < 3 or r <= 0 or input.shape[-1] % r or input.shape[-2] % r:
        raise RuntimeError(f"pixel_unshuffle expects height and width divisible by "
                           f"downscale_factor ({r}) and at least 3 dims, but input has shape "
                           f"{tuple(input.shape)}")
    *lead, c, h, w = input.shape
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    k = len(lead)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: TensorBase, groups: int) -> TensorBase:
    """Interleave the channels of ``groups`` groups (ShuffleNet): (N, g, C/g, ...) ->
    (N, C/g, g, ...)."""
    if input.ndim < 3 or groups <= 0 or input.shape[1] % groups:
        raise RuntimeError(f"channel_shuffle: number of channels must be divisible by groups "
                           f"({groups}), got input of shape {tuple(input.shape)}")
    n, c, *rest = input.shape
    x = input.reshape(n, groups, c // groups, *rest).transpose(1, 2)
    return x.reshape(n, c, *rest)


def _window_args(op: str, kernel_size: Any, dilation: Any, padding: Any, stride: Any
                 ) -> tuple[tuple, tuple, tuple, tuple]:
    """The four int-or-pair arguments of unfold/fold as pairs."""
    kernel = ntuple(kernel_size, 2, "kernel_size")
    dil, pad, step = (ntuple(dilation, 2, "dilation"), ntuple(padding, 2, "padding"),
                      ntuple(stride, 2, "stride"))
    if min(kernel) <= 0 or min(dil) <= 0 or min(step) <= 0 or min(pad) < 0:
        raise RuntimeError(f"{op}: kernel_size, dilation and stride must be positive and padding "
                           f"non-negative, got kernel_size={kernel}, dilation={dil}, "
                           f"padding={pad}, stride={step}")
    return kernel, dil, pad, step


def unfold(input: TensorBase, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> TensorBase:
    """Sliding local blocks of a batched image: (N, C, H, W) -> (N, C k_h k_w, L), as PyTorch
    (im2col)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"unfold: expected 3D or 4D (batch mode) input, got input of shape "
                           f"{tuple(input.shape)}")
    kernel, dil, pad, step = _window_args("unfold", kernel_size, dilation, padding, stride)
    x = input if input.ndim == 4 else input.unsqueeze(0)
    n, c = x.shape[:2]
    windows = _unfold_windows(pad_spatial(x, tuple((p, p) for p in pad)), kernel, step, dil)
    out_h, out_w = windows.shape[2:4]
    cols = windows.permute(0, 1, 4, 5, 2, 3).reshape(n, c * kernel[0] * kernel[1],
                                                      out_h * out_w)
    return cols if input.ndim == 4 else cols.squeeze(0)


def fold(input: TensorBase, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> TensorBase:
    """Sum sliding local blocks back into an image: (N, C k_h k_w, L) -> (N, C, *output_size),
    the adjoint of ``unfold`` (overlaps add up)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"fold: expected 2D or 3D (batch mode) input, got input of shape "
                           f"{tuple(input.shape)}")
    kernel, dil, pad, step = _window_args("fold", kernel_size, dilation, padding, stride)
    size = ntuple(output_size, 2, "output_size")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    n, ck, length = x.shape
    k = kernel[0] * kernel[1]
    padded = tuple(s + 2 * p for s, p in zip(size, pad))
    blocks = tuple((p - d * (kk - 1) - 1) // st + 1
                   for p, d, kk, st in zip(padded, dil, kernel, step))
    if ck % k or blocks[0] * blocks[1] != length or min(blocks) <= 0:
        raise RuntimeError(
            f"fold: expected input of shape (N, C * {k}, {max(blocks[0], 0) * max(blocks[1], 0)})"
            f" for output_size={size}, kernel_size={kernel}, dilation={dil}, padding={pad}, "
            f"stride={step}, got {tuple(input.shape)}")
    c = ck // k
    cols = x.reshape(n, c, kernel[0], kernel[1], blocks[0], blocks[1]).permute(0, 1, 4, 5, 2, 3)
    out = _fold_windows(cols, padded, kernel, step, dil)
    if any(pad):
        out = out[:, :, pad[0]:pad[0] + size[0], pad[1]:pad[1] + size[1]]
    return out if input.ndim == 3 else out.squeeze(0)


def native_channel_shuffle(input: TensorBase, groups: int) -> TensorBase:
    """PyTorch's name for the same shuffle without its dispatch layer: ``channel_shuffle``."""
    return channel_shuffle(input, groups)
