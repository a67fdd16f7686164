"""``torch.*`` functions that are not Tensor methods: the deprecated inclusive ``range``,
``scalar_tensor``, ``fill``, ``asarray``, ``frombuffer``, ``empty_strided``/``empty_permuted``
(whose strides are PyTorch's), ``gradient`` (central differences, differentiable),
``histogramdd`` and the ``frobenius_norm``/``nuclear_norm`` reductions."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..dtypes import is_float_dtype
from ..ops import return_types
from .creation import _finish, _np_dtype, _size, from_numpy, tensor
from .linalg import matrix_norm, vector_norm
from .shape import cat

__all__ = ["range", "scalar_tensor", "fill", "asarray", "frombuffer", "empty_strided",
           "empty_permuted", "gradient", "histogramdd", "frobenius_norm", "nuclear_norm"]

HistogramddResult = return_types.histogramdd  # torch.return_types.histogramdd


def range(start: Any, end: Any, step: Any = 1, *, dtype: Any = None,  # noqa: A001
          requires_grad: bool = False, device: Any = None, **options: Any) -> TensorBase:
    """Deprecated: ``start, start + step, ...`` up to and including ``end`` (``arange`` stops
    before it), in the default float dtype unless ``dtype``."""
    warn("torch.range is deprecated and will be removed in a future release because its "
         "behavior is inconsistent with Python's range builtin. Instead, use "
         "torch.arange, which produces values in [start, end).")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    count = int(np.floor((end - start) / step)) + 1
    values = start + np.arange(count, dtype=np.float64) * step
    return _finish(values.astype(_np_dtype(dtype)), requires_grad, device)


def scalar_tensor(s: Any, *, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None, **options: Any) -> TensorBase:
    """A 0-dim tensor holding the number ``s``, in the default float dtype unless ``dtype``."""
    value = s.item() if isinstance(s, TensorBase) else s
    return _finish(np.asarray(value).astype(_np_dtype(dtype)), requires_grad, device)


def fill(input: TensorBase, value: Any) -> TensorBase:
    """A new tensor shaped and typed like ``input``, every element ``value`` (a number or a
    0-dim tensor, which receives the summed gradient; ``input`` receives none)."""
    if isinstance(value, TensorBase):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                               f"{value.ndim} dimensions.")
        v = ops.cast(value, input._data.dtype)
    else:
        v = wrap(np.asarray(value).astype(input._data.dtype))
    return ops.where(wrap(np.ones(input._data.shape, bool)), v, input)


def asarray(obj: Any, *, dtype: Any = None, device: Any = None, copy: bool | None = None,
            requires_grad: bool = False) -> TensorBase:
    """``obj`` as a tensor, sharing memory with a tensor or NumPy array when the dtype allows
    (``copy=True``: always a copy; a tensor of the right dtype comes back itself)."""
    if isinstance(obj, TensorBase):
        target = obj._data.dtype if dtype is None else dtypes.to_dtype(dtype).np
        if copy:
            out = wrap(obj._data.astype(target, copy=True))
        elif target == obj._data.dtype:
            return obj
        else:
            out = ops.cast(obj, target)
    elif isinstance(obj, np.ndarray) and not copy and (dtype is None
                                                      or dtypes.to_dtype(dtype).np == obj.dtype):
        out = from_numpy(obj)
    else:
        out = tensor(obj, dtype=dtype)
    return _finish(out._data, requires_grad, device) if requires_grad else out


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0,
               requires_grad: bool = False) -> TensorBase:
    """A 1-D tensor over the memory of an object with the buffer protocol (shared: writes go
    both ways for a writable buffer such as a ``bytearray``)."""
    dt = dtypes.to_dtype(dtype).np
    length = memoryview(buffer).nbytes
    if offset < 0 or offset >= max(length, 1):
        raise ValueError(f"both buffer length ({length}) and offset ({offset}) must be "
                         "positive and offset must be less than buffer length")
    if count == -1 and (length - offset) % dt.itemsize:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} "
                         f"bytes) must be a multiple of element size ({dt.itemsize})")
    if count == 0 or count < -1:
        raise ValueError(f"count must be positive or -1 (got {count})")
    return _finish(np.frombuffer(buffer, dt, count, offset), requires_grad)


def empty_strided(size: Any, stride: Any, *, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None, **options: Any) -> TensorBase:
    """An uninitialised tensor of ``size`` laid out with ``stride`` (elements), as
    ``Tensor.stride()`` then reports."""
    shape, steps = _size((tuple(size),)), [int(s) for s in stride]
    if len(shape) != len(steps):
        raise RuntimeError(f"mismatch in length of strides and shape ({len(steps)} strides for "
                           f"{len(shape)} sizes)")
    dt = _np_dtype(dtype)
    needed = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, steps, strict=True))
    storage = np.empty(needed, dt)
    data = np.lib.stride_tricks.as_strided(storage, shape, [s * dt.itemsize for s in steps])
    return _finish(data, requires_grad, device)


def empty_permuted(size: Any, physical_layout: Any, *, dtype: Any = None,
                   requires_grad: bool = False, device: Any = None,
                   **options: Any) -> TensorBase:
    """An uninitialised tensor of ``size`` whose dims lie in memory in the order
    ``physical_layout`` (outermost first)."""
    shape, layout = _size((tuple(size),)), [int(d) for d in physical_layout]
    if sorted(layout) != list(builtins.range(len(shape))):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout, or it is not a permutation: size {list(shape)}, "
                           f"physical_layout {layout}")
    data = np.empty([shape[d] for d in layout], _np_dtype(dtype))
    return _finish(data.transpose(np.argsort(layout)), requires_grad, device)


def _along(x: TensorBase, dim: int, start: int | None, stop: int | None) -> TensorBase:
    """``x`` sliced to ``start:stop`` along ``dim``."""
    return ops.getitem(x, (slice(None),) * dim + (slice(start, stop),))


def _coefficient(values: Any, dim: int, ndim: int, dt: np.dtype) -> TensorBase:
    """Per-position coefficients along ``dim`` as a tensor broadcasting against the input."""
    return wrap(np.asarray(values, dt).reshape([-1 if k == dim else 1
                                                for k in builtins.range(ndim)]))


def _derivative(f: TensorBase, dim: int, coords: np.ndarray, edge_order: int) -> TensorBase:
    """d f / d coordinate along ``dim``: second-order central differences inside (NumPy's
    non-uniform formula), one- or two-sided differences of ``edge_order`` at both ends."""
    dt, nd = f._data.dtype, f.ndim
    dx = np.diff(coords)
    hd, hs = dx[:-1], dx[1:]
    a = -hs / (hd * (hd + hs))
    b = (hs - hd) / (hd * hs)
    c = hd / (hs * (hd + hs))
    inner = (_along(f, dim, None, -2) * _coefficient(a, dim, nd, dt)
             + _along(f, dim, 1, -1) * _coefficient(b, dim, nd, dt)
             + _along(f, dim, 2, None) * _coefficient(c, dim, nd, dt))

    def at(i: int) -> TensorBase:
        return _along(f, dim, i, i + 1 if i != -1 else None)

    if edge_order == 1:
        first = (at(1) - at(0)) / float(dx[0])
        last = (at(-1) - at(-2)) / float(dx[-1])
    else:
        d1, d2 = float(dx[0]), float(dx[1])
        first = (at(0) * (-(2 * d1 + d2) / (d1 * (d1 + d2))) + at(1) * ((d1 + d2) / (d1 * d2))
                 + at(2) * (-d1 / (d2 * (d1 + d2))))
        d1, d2 = float(dx[-2]), float(dx[-1])
        last = (at(-3) * (d2 / (d1 * (d1 + d2))) + at(-2) * (-(d2 + d1) / (d1 * d2))
                + at(-1) * ((2 * d2 + d1) / (d2 * (d1 + d2))))
    return cat([first, inner, last], dim)


def gradient(input: TensorBase, *, spacing: Any = 1, dim: Any = None,
             edge_order: int = 1) -> tuple:
    """The derivative of ``input`` along each of ``dim`` (all dims by default) by finite
    differences, one tensor per dim; ``spacing`` is a scalar step, one step per dim, or one
    tensor of coordinates per dim. Differentiable in ``input``; integers give the default
    float dtype."""
    if edge_order not in (1, 2):
        raise RuntimeError(f"torch.gradient only supports edge_order=1 and edge_order=2 "
                           f"(got {edge_order})")
    nd = input.ndim
    dims = list(builtins.range(nd)) if dim is None else [dim] if isinstance(dim, int) \
        else list(dim)
    dims = [ops.normalize_dims(d, nd, "gradient")[0] for d in dims]
    if spacing is None:
        spacing = 1
    steps = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing] * len(dims)
    if len(steps) != len(dims):
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or a "
                           f"list of length {len(dims)} (one per dim), but got a list of length "
                           f"{len(steps)}")
    f = input if is_float_dtype(input._data.dtype) else ops.cast(input, _np_dtype(None))
    out = []
    for d, step in zip(dims, steps, strict=True):
        n = input.shape[d]
        if n < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
        if isinstance(step, TensorBase) and step.ndim:
            coords = step._data.astype(np.float64)
            if coords.shape != (n,):
                raise RuntimeError(f"torch.gradient expected each tensor in spacing to have "
                                   f"the size of its dim ({n}), got shape {coords.shape}")
        else:
            h = float(step.item() if isinstance(step, TensorBase) else step)
            coords = np.arange(n, dtype=np.float64) * h
        out.append(_derivative(f, d, coords, edge_order))
    return tuple(out)


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


def frobenius_norm(input: TensorBase, dim: Any, keepdim: bool = False) -> TensorBase:
    """Deprecated: ``sqrt(sum x^2)`` over ``dim`` (one or two dims)."""
    warn("at::frobenius_norm is deprecated and it is just left for JIT compatibility. "
         "It will be removed in a future PyTorch release. Please use "
         "`linalg.vector_norm(A, 2., dim, keepdim)` instead")
    return vector_norm(input, 2, dim, keepdim)


def nuclear_norm(input: TensorBase, dim: Any = None, keepdim: bool = False) -> TensorBase:
    """Deprecated: the sum of the singular values of the matrices over ``dim`` (a pair; the
    two dims of a 2-D input by default). ``nuclear_norm(input, keepdim)`` is accepted, as
    PyTorch's."""
    warn("at::nuclear_norm is deprecated and it is just left for JIT compatibility. "
         "It will be removed in a future PyTorch release. Please use "
         "`linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead")
    if isinstance(dim, bool):
        dim, keepdim = None, dim
    if dim is None:
        if input.ndim != 2:
            raise RuntimeError(f"nuclear_norm: expected a 2-D tensor without dim, got a "
                               f"{input.ndim}-D tensor of shape {tuple(input.shape)}")
        dim = (0, 1)
    return matrix_norm(input, "nuc", tuple(dim), keepdim)

