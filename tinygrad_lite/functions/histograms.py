"""Histograms: histc (equal bins over [min, max]), histogram (bin edges and counts, weighted and
density) and histogramdd (D-dimensional), as PyTorch's; none is differentiable."""

from __future__ import annotations

import builtins
import math
from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import return_types
from .registry import public

__all__ = ["histogramdd", "histc", "histogram"]


HistogramddResult = return_types.histogramdd  # torch.return_types.histogramdd


@public(method=False)
def histogramdd(input: TensorBase, bins: Any = 10, *, range: Any = None,  # noqa: A002
                weight: TensorBase | None = None, density: bool = False) -> Any:
    """The histogram of the points ``input`` (``(..., D)``: D coordinates each): ``bins`` an
    int, one int per coordinate, or one tensor of edges per coordinate; ``range`` the flat
    ``[min_0, max_0, min_1, ...]``. Returns ``(hist, bin_edges)``."""
    data = input._data
    if not is_float_dtype(data.dtype):
        raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have the same"
                           f" dtype, but got input {data.dtype} (a floating-point dtype is "
                           "needed)")
    points = data.reshape(-1, data.shape[-1]) if data.ndim else data.reshape(1, 1)
    if isinstance(bins, (list, tuple)):
        spec: Any = [b._data if isinstance(b, TensorBase) else int(b) for b in bins]
    else:
        spec = int(bins)
    pairs = None
    if range is not None:
        flat = [float(v) for v in range]
        pairs = [(flat[2 * i], flat[2 * i + 1]) for i in builtins.range(len(flat) // 2)]
    w = None if weight is None else weight._data.reshape(-1)
    hist, edges = np.histogramdd(points, bins=spec, range=pairs, weights=w, density=density)
    return HistogramddResult(wrap(hist.astype(data.dtype)),
                             tuple(wrap(e.astype(data.dtype)) for e in edges))


@public(out=True)
def histc(input: TensorBase, bins: int = 100, min: float = 0, max: float = 0) -> TensorBase:  # noqa: A002
    """A histogram of ``bins`` equal bins between ``min`` and ``max`` (the data's range when
    both are 0); values outside are ignored."""
    a = input._data
    lo, hi = float(min), float(max)
    if lo == hi == 0 and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    counts, _ = np.histogram(a, bins=bins, range=(lo, hi))
    return wrap(counts.astype(a.dtype if is_float_dtype(a.dtype) else np.float32))


@public(out=True)
def histogram(input: TensorBase, bins: Any = 100, *, range: Any = None,  # noqa: A002
              weight: TensorBase | None = None, density: bool = False) -> Any:
    """``(hist, bin_edges)``: counts (or weights, or a density) of ``input`` in ``bins`` equal
    bins over ``range`` (the data's min..max by default), or between given edges."""
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"torch.histogram: input tensor and bins tensors should have the same "
                           f"floating point dtype, got {input.dtype}")
    data = input._data.reshape(-1)
    dt = input._data.dtype
    if isinstance(bins, TensorBase):
        edges = bins._data.astype(np.float64)
        if edges.ndim != 1 or edges.size < 2:
            raise RuntimeError(f"torch.histogram: bins tensor should have one dimension and at "
                               f"least 2 elements, got shape {tuple(bins._data.shape)}")
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        if range is not None:
            lo, hi = (float(v) for v in range)
            if lo > hi:
                raise RuntimeError(f"torch.histogram: min should not exceed max, got min {lo} "
                                   f"max {hi}")
        elif data.size:
            lo, hi = float(data.min()), float(data.max())
        else:
            lo, hi = 0.0, 0.0
        if lo == hi:  # an empty range is widened as PyTorch does
            lo, hi = lo - 0.5, hi + 0.5
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogram: range of [{lo}, {hi}] is not finite")
        edges = np.linspace(lo, hi, int(bins) + 1)
    w = None if weight is None else weight._data.reshape(-1)
    if w is not None and w.shape != data.shape:
        raise RuntimeError(f"torch.histogram: if weight tensor is provided it should have the "
                           f"same shape as the input tensor, got {tuple(w.shape)} "
                           f"and {tuple(input._data.shape)}")
    hist, _ = np.histogram(data, bins=edges, weights=w, density=density)
    return HistogramResult(wrap(hist.astype(dt)), wrap(edges.astype(dt)))


HistogramResult = return_types.histogram  # torch.return_types.histogram
