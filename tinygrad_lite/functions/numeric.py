"""The functional API, assorted numerics: ``clone``, ``detach``, ``is_complex``, ``renorm``,
``frexp``, ``vander``, ``unravel_index`` and ``matrix_exp`` (primitive in
``ops/matrix_exp.py``). The differentiable ones are composites built as PyTorch builds them
(renorm from vector_norm, vander from cumprod), so their gradients are PyTorch's."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import return_types
from ..ops.linalg.inverse import torch_dtype_name
from ..ops.matrix_exp import matrix_exp
from ..ops.shape import cat
from .linalg.norms import vector_norm
from .reduction import cumprod
from .registry import public
from .shape import flip

__all__ = ["clone", "detach", "is_complex", "renorm", "frexp", "vander", "unravel_index",
           "matrix_exp"]

FrexpResult = return_types.frexp  # torch.return_types.frexp


def _require_tensor(x: Any, op: str, what: str = "input") -> None:
    if not isinstance(x, TensorBase):
        raise TypeError(f"{op}(): argument '{what}' must be Tensor, not {type(x).__name__}")


def clone(input: TensorBase, *, memory_format: Any = None) -> TensorBase:
    """A copy with its own memory; gradients flow back to ``input``. Laid out as ``input`` is
    when that is dense (PyTorch's ``preserve_format``), else in ``memory_format``."""
    _require_tensor(input, "clone")
    return ops.clone(input, "preserve_format" if memory_format is None else memory_format)


def detach(input: TensorBase) -> TensorBase:
    """A tensor sharing ``input``'s data (and version counter) but outside the graph."""
    _require_tensor(input, "detach")
    out = wrap(input._data)
    out._version_counter = input._version_counter
    return out


def is_complex(input: TensorBase) -> bool:
    """False: tinygrad_lite has no complex dtypes."""
    _require_tensor(input, "is_complex")
    return False


@public(out=True, inplace=True)
def renorm(input: TensorBase, p: float, dim: int, maxnorm: float) -> TensorBase:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (times ``norm / (norm + 1e-7)``, as PyTorch); the others unchanged."""
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    ndim = input._data.ndim
    if ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {ndim} dimensions")
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {torch_dtype_name(input._data.dtype)}")
    d = ops.normalize_dims(dim, ndim, "renorm")[0]
    norm = vector_norm(input, p, tuple(i for i in range(ndim) if i != d), True)
    factor = ops.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return input * factor


def frexp(input: TensorBase) -> tuple[TensorBase, TensorBase]:
    """``(mantissa, exponent)`` with ``input = mantissa * 2**exponent``, ``|mantissa|`` in
    [0.5, 1) (0, inf and NaN kept, exponent 0); the exponent is int32. The mantissa's gradient
    is ``grad / 2**exponent``."""
    a = input._data
    if not is_float_dtype(a.dtype):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    exponent = np.frexp(a)[1].astype(np.int32)
    # 2**-exponent as two exact power-of-two factors: for a subnormal input it alone would
    # overflow the dtype (2**1073 in float64, 2**148 in float32)
    half = (-exponent) // 2
    one = np.ones(a.shape, a.dtype)
    mantissa = input * wrap(np.ldexp(one, half)) * wrap(np.ldexp(one, -exponent - half))
    return FrexpResult(mantissa, wrap(exponent))


@public(method=False)
def vander(x: TensorBase, N: int | None = None, increasing: bool = False) -> TensorBase:  # noqa: N803
    """The Vandermonde matrix of ``x``: columns ``x**(N-1), ..., x, 1`` (``increasing``: the
    other way round); integer and bool inputs give int64, as PyTorch's cumprod does."""
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    m = x._data.shape[0]
    n = m if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dtype = x._data.dtype if is_float_dtype(x._data.dtype) else np.dtype(np.int64)
    column = ops.reshape(x if x._data.dtype == dtype else ops.cast(x, dtype), (m, 1))
    ones = wrap(np.ones((m, min(n, 1)), dtype))
    # PyTorch's construction: ones, then the running product of copies of x
    out = cat([ones, cumprod(ops.expand(column, (m, n - 1)), 1)], 1) if n > 1 else ones
    return out if increasing else flip(out, (1,))


@public(method=False)
def unravel_index(indices: TensorBase, shape: Any) -> tuple[TensorBase, ...]:
    """The coordinates, in a tensor of ``shape``, of each flat index (int64 tensors, one per
    dimension). As in PyTorch, indices are not bounds-checked: they wrap around (a negative
    one counts from the end)."""
    _require_tensor(indices, "unravel_index", "indices")
    if indices._data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        dims: tuple = (int(shape),)
    elif isinstance(shape, Sequence) and all(
            isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in shape):
        dims = tuple(int(n) for n in shape)
    else:
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {shape!r}")
    if any(n < 0 for n in dims):
        raise ValueError(f"'shape' cannot have negative values, but got {dims}")
    if 0 in dims:
        raise RuntimeError(f"ZeroDivisionError: unravel_index into shape {dims}, which has no "
                           f"elements")
    if not dims:
        return ()
    strides = np.cumprod((1,) + dims[:0:-1])[::-1]  # elements per step of each dimension
    coords = np.floor_divide(indices._data.astype(np.int64)[..., None], strides) % dims
    return tuple(wrap(coords[..., k].copy()) for k in range(len(dims)))
