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
from .sorting import bisect_rows

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


def _dtype_name(a: np.ndarray) -> str:
    """PyTorch's name for a dtype in its "not implemented for 'Long'" messages."""
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half", "float32": "Float", "float64": "Double"}.get(
                a.dtype.name, a.dtype.name)


def _check_bins(bins: int) -> None:
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")


def _bin_counts(data: np.ndarray, lo: Any, hi: Any, pos: np.ndarray, bins: int,
                weight: np.ndarray | None, dtype: Any) -> np.ndarray:
    """PyTorch's histogram kernel on flat ``data`` with each element's bin ``pos``: elements
    outside ``[lo, hi]`` and NaN are skipped, and the last bin includes its right edge. The
    sums run in ``dtype``, as PyTorch's do."""
    keep = (data >= lo) & (data <= hi)
    hist = np.zeros(bins, dtype)
    np.add.at(hist, np.minimum(pos[keep], bins - 1),
              1 if weight is None else weight[keep].astype(dtype))
    return hist


@public(out=True)
def histc(input: TensorBase, bins: int = 100, min: float = 0, max: float = 0) -> TensorBase:  # noqa: A002
    """A histogram of ``bins`` equal bins between ``min`` and ``max`` (the data's range when
    they are equal; widened by 1 each way when that is a point); values outside and NaN are
    ignored. PyTorch's binning: ``int((x - min) * bins / (max - min))`` in the input's dtype."""
    a = input._data
    if not is_float_dtype(a.dtype):
        raise NotImplementedError(f'"histogram_cpu" not implemented for \'{_dtype_name(a)}\'')
    _check_bins(int(bins))
    lo, hi = float(min), float(max)
    if lo == hi and a.size:  # (not only 0 and 0: any empty range means "the data's")
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histc: range of [{lo:g}, {hi:g}] is not finite")
    if not lo < hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    dt = a.dtype.type
    data = a.reshape(-1)
    with np.errstate(invalid="ignore"):
        scaled = (data - dt(lo)) * dt(bins) / (dt(hi) - dt(lo))
        pos = np.where(np.isfinite(scaled), scaled, 0).astype(np.int64)
    return wrap(_bin_counts(data, dt(lo), dt(hi), pos, int(bins), None, a.dtype))


@public(out=True)
def histogram(input: TensorBase, bins: Any = 100, *, range: Any = None,  # noqa: A002
              weight: TensorBase | None = None, density: bool = False) -> Any:
    """``(hist, bin_edges)``: counts (or weights, or a density) of ``input`` in ``bins`` equal
    bins over ``range`` (the data's min..max by default), or between given edges."""
    a = input._data
    if a.dtype not in (np.float32, np.float64):
        raise NotImplementedError(f'"histogramdd" not implemented for \'{_dtype_name(a)}\'')
    data = a.reshape(-1)
    dt = a.dtype
    if isinstance(bins, TensorBase):
        edges = bins._data
        if edges.dtype != dt:
            raise RuntimeError(f"torch.histogramdd: input tensor and bins tensors should have "
                               f"the same dtype, but got input with dtype {a.dtype} and bins "
                               f"for dimension 0 with dtype {edges.dtype}")
        if edges.ndim != 1 or edges.size < 2:
            raise RuntimeError(f"torch.histogram: bins tensor should have one dimension and at "
                               f"least 2 elements, got shape {tuple(bins._data.shape)}")
    else:
        _check_bins(int(bins))
        if range is not None:
            lo, hi = (float(v) for v in range)
        elif data.size:
            lo, hi = float(data.min()), float(data.max())
        else:  # PyTorch's default range without data
            lo, hi = 0.0, 1.0
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise RuntimeError(f"torch.histogramdd: dimension 0's range [{lo:g}, {hi:g}] is not "
                               "finite")
        if lo > hi:
            raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min "
                               f"{lo:g} max {hi:g} for dimension 0")
        if lo == hi:  # an empty range is widened as PyTorch (and NumPy) do
            lo, hi = lo - 0.5, hi + 0.5
        edges = np.linspace(lo, hi, int(bins) + 1).astype(dt)
    w = None if weight is None else weight._data.reshape(-1)
    if weight is not None and weight._data.shape != a.shape:
        raise RuntimeError(f"torch.histogram: if weight tensor is provided it should have the "
                           f"same shape as the input tensor, got {tuple(weight._data.shape)} "
                           f"and {tuple(a.shape)}")
    if weight is not None and weight._data.dtype != dt:
        raise RuntimeError(f"torch.histogramdd: if weight tensor is provided, input tensor and "
                           f"weight tensor should have the same dtype, but got input({a.dtype}),"
                           f" and weight({weight._data.dtype})")
    # the last edge not above each element (a binary search, as PyTorch's for given edges; its
    # search near the linear guess for equal bins finds the same bin). NumPy's search assumes
    # sorted edges: others take C++'s upper_bound, step for step
    if (np.diff(edges) >= 0).all():
        pos = np.searchsorted(edges, data, side="right") - 1
    else:
        pos = bisect_rows(edges[None], data[None], True)[0] - 1
    hist = _bin_counts(data, edges[0], edges[-1], pos, edges.size - 1, w, dt)
    if density:  # PyTorch: divided by the total, then by each bin's width
        with np.errstate(divide="ignore", invalid="ignore"):
            hist = (hist / hist.sum() / np.diff(edges)).astype(dt)
    return HistogramResult(wrap(hist), wrap(edges.copy()))


HistogramResult = return_types.histogram  # torch.return_types.histogram
