"""Creating tensors: from data (``tensor``, ``asarray``, ``frombuffer``), filled (``fill``,
``scalar_tensor``, ``empty_strided``/``empty_permuted`` with PyTorch's strides), ranges (and the
deprecated inclusive ``range``), and random (seeded by ``manual_seed``)."""

from __future__ import annotations

import builtins
import math
import operator
import os
from typing import Any

import numpy as np

from .. import dtypes, ops
from .._core.array_conversion import to_array
from .._core.device import check_device, is_meta_array, meta_array, wants_meta
from .._core.memory_format import format_name, in_format
from .._core.size import sizes_or_keyword
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..dtypes import is_float_dtype
from . import range_values
from .generator import (
    Generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    rng_of,
    seed,
    set_rng_state,
)
from .registry import declare, public
from .torch_stream import TorchStream, draw_dtype

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "arange",
           "linspace", "eye", "rand", "randn", "randint", "zeros_like", "ones_like", "full_like",
           "rand_like", "randn_like", "manual_seed", "empty_like", "randint_like", "logspace",
           "randperm", "multinomial", "bernoulli", "normal", "poisson", "Generator", "seed",
           "initial_seed", "get_rng_state", "set_rng_state", "is_tensor", "is_floating_point",
           "numel", "range", "scalar_tensor", "fill", "asarray", "frombuffer", "from_file",
           "empty_strided", "empty_permuted"]

declare("seed", "manual_seed", "set_rng_state", "initial_seed", "get_rng_state", "Generator",
        method=False)


def default_rng() -> TorchStream:
    """The NumPy generator behind the default ``tl.Generator`` (``manual_seed`` reseeds it),
    for code elsewhere in the package that draws random numbers (dropout, init, samplers)."""
    return rng_of(None)


def _finish(data: np.ndarray, requires_grad: bool, device: Any = None) -> TensorBase:
    check_device(device, "tensor creation", meta_ok=True)
    if wants_meta(device):  # the shape and dtype only (see _core/device.py)
        data = meta_array(data.shape, data.dtype)
    t = wrap(data)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _values(shape: tuple, dt: np.dtype, device: Any, make: Any) -> np.ndarray:
    """``make(shape, dt)``, or for a meta tensor its placeholder array: nothing the size of the
    shape is allocated (or drawn from the generator)."""
    return meta_array(shape, dt) if wants_meta(device) else make(shape, dt)


def _size(size: tuple) -> tuple[int, ...]:
    """``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` all mean shape (2, 3). A size may be
    anything with ``__index__`` (a NumPy integer, a one-element integer tensor) as in PyTorch;
    a float is a TypeError, a negative size a RuntimeError."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    sizes = []
    for n in size:
        if isinstance(n, (bool, float, np.floating)) or not hasattr(n, "__index__"):
            raise TypeError(f"sizes must be a tuple of ints, got {type(n).__name__} in "
                            f"{size}")
        try:
            sizes.append(operator.index(n))
        except TypeError:
            raise TypeError(f"sizes must be a tuple of ints, got {n!r} in {size}") from None
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"sizes must be non-negative integers, got {tuple(sizes)}")
    return tuple(sizes)


def _np_dtype(dtype: Any, default: dtypes.DType | None = None) -> np.dtype:
    """The NumPy dtype of ``dtype``; when None, ``default`` or the default float dtype."""
    if isinstance(dtype, str):  # PyTorch refuses names here; say what to pass instead
        raise TypeError(f"argument 'dtype' must be a dtype (e.g. tl.{dtype}), not str "
                        f"{dtype!r}")
    if dtype is not None:
        return dtypes.to_dtype(dtype).np
    return (default or dtypes.get_default_dtype()).np


@public(method=False)
def tensor(data: Any, dtype: Any = None, requires_grad: bool = False,
           device: Any = None) -> TensorBase:
    """A new tensor holding a copy of ``data``; the dtype is inferred as in PyTorch (Python
    floats give float32, ints int64, bools bool; NumPy arrays keep theirs)."""
    if isinstance(dtype, str):
        raise TypeError(f"tensor(): argument 'dtype' must be a dtype (e.g. tl.{dtype}), "
                        f"not str {dtype!r}")
    if isinstance(data, TensorBase):
        warn("To copy construct from a tensor, it is recommended to use "
             "sourceTensor.detach().clone() or sourceTensor.detach().clone().requires_grad_(True), "
             "rather than torch.tensor(sourceTensor).")
    return _finish(to_array(data, dtype, float_default=False), requires_grad, device)


@public(method=False)
def as_tensor(data: Any, dtype: Any = None) -> TensorBase:
    """``data`` as a tensor, without a copy when it already is one of the right dtype."""
    if isinstance(data, TensorBase):  # PyTorch's data.to(dtype): in the graph, no copy if same
        return data if dtype is None else data.to(dtypes.to_dtype(dtype))
    if isinstance(data, np.ndarray) and (dtype is None or data.dtype == _np_dtype(dtype)):
        return from_numpy(data)
    return tensor(data, dtype)


@public(method=False)
def from_numpy(array: np.ndarray) -> TensorBase:
    """A tensor sharing memory with a NumPy array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_numpy expects a numpy.ndarray, got {type(array).__name__}")
    dtypes.from_numpy_dtype(array.dtype)  # raises for unsupported dtypes
    if any(st < 0 for st in array.strides):  # a tensor's strides are never negative
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    return wrap(array)


@public(method=False, creation=True)
def zeros(*sizes: Any, size: Any = None, dtype: Any = None, requires_grad: bool = False,
          device: Any = None, **options: Any) -> TensorBase:
    """A tensor of zeros."""
    check_creation_options(options, "zeros")
    shape, dt = _size(sizes_or_keyword(sizes, size, "zeros", "size")), _np_dtype(dtype)
    return _finish(_values(shape, dt, device, np.zeros), requires_grad, device)


@public(method=False, creation=True)
def ones(*sizes: Any, size: Any = None, dtype: Any = None, requires_grad: bool = False,
         device: Any = None, **options: Any) -> TensorBase:
    """A tensor of ones."""
    check_creation_options(options, "ones")
    shape, dt = _size(sizes_or_keyword(sizes, size, "ones", "size")), _np_dtype(dtype)
    return _finish(_values(shape, dt, device, np.ones), requires_grad, device)


@public(method=False, creation=True)
def empty(*sizes: Any, size: Any = None, dtype: Any = None, requires_grad: bool = False,
          device: Any = None, memory_format: Any = None, layout: Any = None,
          pin_memory: bool = False) -> TensorBase:
    """An uninitialised tensor (its values are arbitrary), row-major or laid out in
    ``memory_format`` (e.g. ``tl.channels_last``); ``layout`` and ``pin_memory`` are accepted
    (tensors here are dense, in CPU memory)."""
    shape, dt = _size(sizes_or_keyword(sizes, size, "empty", "size")), _np_dtype(dtype)
    layout = format_name(memory_format)
    if layout in (None, "contiguous_format", "preserve_format"):
        return _finish(_values(shape, dt, device, np.empty), requires_grad, device)
    return _finish(_values(shape, dt, device,
                           lambda shape, dt: in_format(np.empty(shape, dt), layout)),
                   requires_grad, device)


@public(method=False, creation=True)
def full(size: Any, fill_value: Any, *, dtype: Any = None, requires_grad: bool = False,
         device: Any = None) -> TensorBase:
    """A tensor filled with ``fill_value``; its dtype follows the value (float32, int64, bool)."""
    if dtype is None:
        if isinstance(fill_value, np.generic) and not isinstance(fill_value, np.integer):
            dtype = dtypes.get_default_dtype()  # as PyTorch: a NumPy float or bool is a float
        elif isinstance(fill_value, np.integer):
            dtype = dtypes.int64
        else:
            dtype = to_array(fill_value, None, float_default=False).dtype
    dt = _np_dtype(dtype)
    dtypes.require_real(fill_value, dt, "full")
    if dt.kind in "iu" and isinstance(fill_value, (float, np.floating)) \
            and not math.isfinite(fill_value):
        raise RuntimeError(f"value cannot be converted to type {dt} without overflow")
    if dt.kind in "iu" and isinstance(fill_value, int) and not isinstance(fill_value, bool):
        fill_value = dtypes.checked_int(fill_value, dt)  # full((2,), -1, dtype=uint8): 255
    return _finish(_values(_size((size,)), dt, device,
                           lambda shape, dt: np.full(shape, fill_value, dt)), requires_grad, device)


@public(method=False, creation=True)
def arange(start: Any = None, end: Any = None, step: Any = 1, *, dtype: Any = None,
           requires_grad: bool = False, device: Any = None, **options: Any) -> TensorBase:
    """Values ``start, start+step, ...`` below ``end``; int64 for int arguments, else float32."""
    check_creation_options(options, "arange")
    if start is None and end is None:
        raise TypeError("arange() missing required argument 'end'")
    if start is None:  # arange(end=3)
        start = 0
    elif end is None:
        start, end = 0, start
    if dtype is None and type(start) is int and type(end) is int and type(step) is int \
            and (step > 0 and end >= start or step < 0 and end <= start):
        # the common int64 range (position ids every step): NumPy's integer arange is exact
        return _finish(np.arange(start, end, step, dtype=np.int64), requires_grad, device)
    start, end, step = (_range_number(v) for v in (start, end, step))
    if dtype is None:
        whole = all(isinstance(v, int) for v in (start, end, step))
        dtype = dtypes.int64 if whole else dtypes.get_default_dtype()
    dt = _np_dtype(dtype)
    return _finish(_arange(start, end, step, dt), requires_grad, device)


def _range_number(value: Any) -> int | float:
    """A range bound as a Python number: a 0-dim tensor or NumPy scalar gives its value (an
    integer one counts as an int for the result dtype, as in PyTorch); bools are ints."""
    if isinstance(value, TensorBase):
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return float(value)


def _arange(start: int | float, end: int | float, step: int | float, dt: np.dtype) -> np.ndarray:
    """PyTorch's ``arange`` checks, length rule and values for result dtype ``dt``.

    Integer results take ``start``/``end``/``step`` truncated to integers (``arange(0, 2.5,
    0.5, dtype=int32)`` is five zeros); the length is ``ceil((end - start) / step)`` in
    float64 from the values as given, except for int64, whose length comes from the truncated
    integers (so there a step below 1 in magnitude is a zero step)."""
    if dt.kind == "b":
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    whole = dt.kind in "iu"
    if whole:
        xstart, xend, xstep = (int(v) for v in (start, end, step))  # C++ truncation
        if dt == np.int64 and xstep == 0 or step == 0:
            raise RuntimeError("step must be nonzero")
    elif step == 0:
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not (step > 0 and end >= start or step < 0 and end <= start):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt == np.int64:
        sign = 1 if xstep > 0 else -1
        span = xend - xstart + xstep - sign
        n = abs(span) // abs(xstep) * (1 if (span >= 0) == (xstep > 0) else -1)  # C division
    else:
        size = math.ceil((float(end) - float(start)) / float(step))
        n = int(size)
    if n < 0 or n > 2 ** 62:
        raise RuntimeError("invalid size, possible overflow?")
    if whole:
        return range_values.arange_values(xstart, xstep, n, dt)
    return range_values.arange_values(float(start), float(step), n, dt)


@public(method=False, creation=True)
def linspace(start: float, end: float, steps: int, *, dtype: Any = None,
             requires_grad: bool = False, device: Any = None) -> TensorBase:
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive."""
    if steps < 0:
        raise RuntimeError(f"linspace: number of steps must be non-negative, got {steps}")
    dt = _np_dtype(dtype)
    if dt.kind == "b":  # PyTorch has no bool kernel (NotImplementedError, a RuntimeError)
        raise NotImplementedError("linspace: not implemented for dtype bool (\"linspace_cpu\" "
                                  "not implemented for 'Bool'); create a float range and compare")
    start, end = (_range_number(v) for v in (start, end))
    return _finish(range_values.linspace_values(start, end, int(steps), dt), requires_grad, device)


@public(method=False, creation=True)
def eye(n: int, m: int | None = None, *, dtype: Any = None, requires_grad: bool = False,
        device: Any = None) -> TensorBase:
    """An ``n x m`` matrix with ones on the diagonal."""
    return _finish(np.eye(n, m, dtype=_np_dtype(dtype)), requires_grad, device)


@public(method=False, creation=True)
def rand(*sizes: Any, size: Any = None, generator: Generator | None = None, dtype: Any = None,
         requires_grad: bool = False, device: Any = None, **options: Any) -> TensorBase:
    """Uniform random values in [0, 1)."""
    check_creation_options(options, "rand")
    dt = _np_dtype(dtype)
    _require_float_draw(dt, "check_uniform_bounds")
    shape = _size(sizes_or_keyword(sizes, size, "rand", "size"))
    data = _values(shape, dt, device, lambda shape, dt: rng_of(generator).uniform_as(
        0.0, 1.0, shape, draw_dtype(dt)).astype(dt, copy=False))
    return _finish(data, requires_grad, device)


@public(method=False, creation=True)
def randn(*sizes: Any, size: Any = None, generator: Generator | None = None,
          dtype: Any = None, requires_grad: bool = False, device: Any = None,
          **options: Any) -> TensorBase:
    """Standard normal random values."""
    check_creation_options(options, "randn")
    dt = _np_dtype(dtype)
    _require_float_draw(dt, "normal_kernel_cpu")
    shape = _size(sizes_or_keyword(sizes, size, "randn", "size"))
    data = _values(shape, dt, device, lambda shape, dt: rng_of(generator).normal_as(
        0.0, 1.0, shape, draw_dtype(dt)).astype(dt, copy=False))
    return _finish(data, requires_grad, device)


@public(method=False, creation=True)
def randint(*args: Any, generator: Generator | None = None, dtype: Any = None,
            requires_grad: bool = False, device: Any = None, **kwargs: Any) -> TensorBase:
    """Random integers in ``[low, high)``: ``randint(high, size)``, ``randint(low, high, size)``."""
    if "size" in kwargs:
        args = (*args, kwargs.pop("size"))
    if "high" in kwargs:
        args = (kwargs.pop("low", 0), kwargs.pop("high"), *args)
    check_creation_options(kwargs, "randint")
    if len(args) == 2:
        low, (high, size) = 0, args
    elif len(args) == 3:
        low, high, size = args
    else:
        raise TypeError("randint expects (high, size) or (low, high, size)")
    if high <= low:
        raise RuntimeError(f"randint: expected low < high, got low={low}, high={high}")
    data = rng_of(generator).integers(low, high, _size((size,)), dtype=np.int64)
    return _finish(data.astype(_np_dtype(dtype, dtypes.int64), copy=False), requires_grad, device)


_TORCH_TYPE_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                     "uint8": "Byte", "bool": "Bool", "uint16": "UInt16", "uint32": "UInt32",
                     "uint64": "UInt64"}


def _require_float_draw(dt: np.dtype, kernel: str) -> None:
    """PyTorch's uniform and normal samplers have no integer kernels (NotImplementedError)."""
    if dt.kind not in "fcV":
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_TORCH_TYPE_NAMES.get(dt.name, dt.name)}'")


def check_creation_options(options: dict, op: str) -> None:
    """Accept PyTorch's creation options that mean nothing for CPU arrays; refuse the rest."""
    unknown = sorted(set(options) - {"layout", "pin_memory", "memory_format"})
    if unknown:
        raise TypeError(f"{op}() got unexpected keyword arguments {unknown}")


def _like(t: TensorBase, dtype: Any, options: dict, op: str) -> tuple[tuple, Any, Any]:
    """(shape, dtype, device) of a ``*_like`` result: ``input``'s unless given."""
    check_creation_options({k: v for k, v in options.items() if k != "device"}, op)
    device = options.get("device")
    check_device(device, op, meta_ok=True)
    if device is None:
        device = "meta" if is_meta_array(t._data) else "cpu"
    return t._data.shape, (dtype if dtype is not None else t.dtype), device


@public(method=False)
def zeros_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False,
               **options: Any) -> TensorBase:
    """Zeros with the shape (and by default dtype) of ``input``."""
    shape, dt, device = _like(input, dtype, options, "zeros_like")
    return zeros(shape, dtype=dt, requires_grad=requires_grad, device=device)


@public(method=False)
def ones_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False,
              **options: Any) -> TensorBase:
    """Ones with the shape (and by default dtype) of ``input``."""
    shape, dt, device = _like(input, dtype, options, "ones_like")
    return ones(shape, dtype=dt, requires_grad=requires_grad, device=device)


@public(method=False)
def empty_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False,
               **options: Any) -> TensorBase:
    """An uninitialised tensor with the shape (and by default dtype) of ``input``."""
    shape, dt, device = _like(input, dtype, options, "empty_like")
    return empty(shape, dtype=dt, requires_grad=requires_grad, device=device)


@public(method=False)
def full_like(input: TensorBase, fill_value: Any, *, dtype: Any = None,
              requires_grad: bool = False, **options: Any) -> TensorBase:
    """``fill_value`` with the shape (and by default dtype) of ``input``."""
    shape, dt, device = _like(input, dtype, options, "full_like")
    return full(shape, fill_value, dtype=dt, requires_grad=requires_grad, device=device)


@public(method=False)
def rand_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False,
              generator: Generator | None = None, **options: Any) -> TensorBase:
    """Uniform [0, 1) values with the shape (and by default dtype) of ``input``."""
    shape, dt, device = _like(input, dtype, options, "rand_like")
    return rand(shape, generator=generator, dtype=dt, requires_grad=requires_grad,
                device=device)


@public(method=False)
def randn_like(input: TensorBase, *, dtype: Any = None, requires_grad: bool = False,
               generator: Generator | None = None, **options: Any) -> TensorBase:
    """Standard normal values with the shape (and by default dtype) of ``input``."""
    shape, dt, device = _like(input, dtype, options, "randn_like")
    return randn(shape, generator=generator, dtype=dt, requires_grad=requires_grad,
                 device=device)


@public(method=False)
def randint_like(input: TensorBase, low: int = 0, high: int | None = None, *,
                 dtype: Any = None, requires_grad: bool = False,
                 generator: Generator | None = None, **options: Any) -> TensorBase:
    """Random integers in ``[low, high)`` (``randint_like(x, high)`` means low 0) with the
    shape (and by default dtype) of ``input``."""
    if high is None:
        low, high = 0, low
    shape, dt, device = _like(input, dtype, options, "randint_like")
    return randint(low, high, shape, generator=generator, dtype=dt, requires_grad=requires_grad,
                   device=device)


@public(method=False, creation=True)
def logspace(start: float, end: float, steps: int, base: float = 10.0, *, dtype: Any = None,
             requires_grad: bool = False, device: Any = None, **options: Any) -> TensorBase:
    """``steps`` values ``base ** linspace(start, end, steps)``."""
    check_creation_options(options, "logspace")
    if steps < 0:
        raise RuntimeError(f"logspace: number of steps must be non-negative, got {steps}")
    start, end = (_range_number(v) for v in (start, end))
    data = range_values.logspace_values(start, end, int(steps), float(base), _np_dtype(dtype))
    return _finish(data, requires_grad, device)


@public(method=False, creation=True)
def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None,
             requires_grad: bool = False, device: Any = None, **options: Any) -> TensorBase:
    """A random permutation of ``0 .. n-1`` (int64)."""
    check_creation_options(options, "randperm")
    if n < 0:
        raise RuntimeError(f"randperm: n must be non-negative, got {n}")
    data = rng_of(generator).permutation(int(n)).astype(_np_dtype(dtype, dtypes.int64))
    return _finish(data, requires_grad, device)


@public(method=False, out=True)
def multinomial(input: TensorBase, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> TensorBase:
    """``num_samples`` category indices per row, drawn with probabilities proportional to the
    (non-negative) weights in ``input`` (1-D, or 2-D: one distribution per row)."""
    w = np.asarray(input._data, np.float64)
    if w.ndim not in (1, 2):
        raise RuntimeError(f"multinomial: prob_dist must be 1 or 2 dim, got {w.ndim}D")
    rows = w.reshape(-1, w.shape[-1])
    if not np.isfinite(rows).all() or (rows < 0).any():
        raise RuntimeError("multinomial: probability tensor contains either `inf`, `nan` or "
                           "element < 0")
    totals = rows.sum(-1, keepdims=True)
    if (totals <= 0).any():
        raise RuntimeError("multinomial: invalid multinomial distribution (sum of "
                           "probabilities <= 0)")
    n_cat = rows.shape[-1]
    if num_samples <= 0:
        raise RuntimeError(f"multinomial: cannot sample n_sample <= 0 samples "
                           f"(got {num_samples})")
    if not replacement and num_samples > (rows > 0).sum(-1).min():
        raise RuntimeError(f"multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
                           f"without replacement (n_sample={num_samples}, categories {n_cat} "
                           "with nonzero weight)")
    # PyTorch's CPU algorithms on its stream (see torch_stream.py), in the weights' dtype
    rng = rng_of(generator)
    weights = rows if rows.dtype.kind == "f" and rows.dtype.itemsize >= 4 else \
        rows.astype(np.float32)
    out = rng.multinomial_rows(weights, num_samples, replacement)
    return wrap(out[0] if w.ndim == 1 else out)


@public(method=False, out=True)
def bernoulli(input: TensorBase, p: float | None = None, *,
              generator: Generator | None = None) -> TensorBase:
    """0/1 draws with probability ``input`` (or the scalar ``p``), in ``input``'s dtype."""
    probs = input._data if p is None else np.full(input._data.shape, p)
    if ((probs < 0) | (probs > 1)).any():
        raise RuntimeError("bernoulli: all probabilities must be in [0, 1]")
    # as PyTorch's kernel for a tensor of probabilities: a uniform below each
    draw = rng_of(generator).below(np.asarray(probs))
    return wrap(draw.astype(input._data.dtype if is_float_dtype(input._data.dtype) else np.float32))


@public(method=False, out=True)
def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *,
           generator: Generator | None = None, dtype: Any = None, requires_grad: bool = False,
           **options: Any) -> TensorBase:
    """Normal draws: ``normal(mean_tensor, std_tensor)`` (broadcast), ``normal(mean, std,
    size)`` with floats, or one tensor and one float."""
    check_device(options.pop("device", None), "normal")
    check_creation_options(options, "normal")
    m = mean._data if isinstance(mean, TensorBase) else np.asarray(mean, np.float64)
    sd = std._data if isinstance(std, TensorBase) else np.asarray(std, np.float64)
    if (np.asarray(sd) < 0).any():
        raise RuntimeError("normal: expects std >= 0.0")
    if isinstance(mean, TensorBase) or isinstance(std, TensorBase):
        if size is not None:
            raise TypeError("normal: size is only accepted with float mean and std")
        shape = np.broadcast_shapes(np.shape(m), np.shape(sd))
        dt = next(t._data.dtype for t in (mean, std) if isinstance(t, TensorBase))
        _require_float_draw(dt, "normal_kernel_cpu")  # an integer mean or std tensor
        # as PyTorch: standard normals of the result's dtype, times std, plus mean
        draws = rng_of(generator).normal_as(0.0, 1.0, shape, draw_dtype(dt))
        data = draws * np.asarray(sd, draws.dtype) + np.asarray(m, draws.dtype)
    else:
        if size is None:
            raise TypeError("normal: with float mean and std, size is required")
        shape, dt = _size((size,)), _np_dtype(dtype)
        data = rng_of(generator).normal_as(float(m), float(sd), shape, draw_dtype(dt))
    return _finish(np.asarray(data).astype(dt, copy=False), requires_grad, None)


@public(method=False)
def poisson(input: TensorBase, generator: Generator | None = None) -> TensorBase:
    """Poisson draws with the rates in ``input`` (same shape and dtype)."""
    rates = input._data
    if (rates < 0).any():
        raise RuntimeError("poisson: rates must be non-negative")
    return wrap(rng_of(generator).poisson_as(rates).astype(rates.dtype))


@public(method=False)
def is_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a tensor."""
    return isinstance(obj, TensorBase)


@public(method=False)
def is_floating_point(input: TensorBase) -> bool:
    """Whether ``input`` has a floating-point dtype."""
    return is_float_dtype(input._data.dtype)


@public(method=False)
def numel(input: TensorBase) -> int:
    """The number of elements of ``input``."""
    return int(input._data.size)


@public(method=False, creation=True)
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


@public(method=False, creation=True)
def scalar_tensor(s: Any, *, dtype: Any = None, requires_grad: bool = False,
                  device: Any = None, **options: Any) -> TensorBase:
    """A 0-dim tensor holding the number ``s``, in the default float dtype unless ``dtype``."""
    value = s.item() if isinstance(s, TensorBase) else s
    return _finish(np.asarray(value).astype(_np_dtype(dtype)), requires_grad, device)


@public(method=False)
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


@public(method=False)
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


@public(method=False)
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


@public(method=False)
def from_file(filename: Any, shared: bool | None = None, size: int = 0, *, dtype: Any = None,
              layout: Any = None, device: Any = None, pin_memory: bool = False,
              requires_grad: bool = False) -> TensorBase:
    """A 1-D tensor of ``size`` elements read from the start of a file of raw values.
    ``shared=True`` maps the file: writes to the tensor go to the file (and the file must hold
    ``size`` elements); otherwise the values are read into memory of the tensor's own."""
    check_device(device, "from_file")
    dt = _np_dtype(dtype)
    size = int(size)
    if size < 0:
        raise RuntimeError(f"from_file: size must be non-negative, got {size}")
    path = os.fspath(filename)
    available = os.path.getsize(path) // dt.itemsize
    if size > available:
        raise RuntimeError(f"from_file: the file {path!r} holds {available} elements of "
                           f"{dt.name} ({os.path.getsize(path)} bytes), fewer than the "
                           f"{size} asked for")
    if size == 0:
        return _finish(np.zeros(0, dt), requires_grad)
    if shared:
        return _finish(np.memmap(path, dtype=dt, mode="r+", shape=(size,)), requires_grad)
    return _finish(np.fromfile(path, dtype=dt, count=size), requires_grad)


@public(method=False)
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


@public(method=False)
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
