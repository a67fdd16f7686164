"""Order statistics and second moments: ``quantile``, ``nanquantile``, ``cov``, ``corrcoef``.

Composites of sort, gather and elementwise ops, so their gradients are PyTorch's: a quantile's
gradient goes to the (at most two) order statistics it interpolates between, with the
interpolation weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import ops
from .._core.tensor_base import TensorBase, wrap
from .._core.warnings import warn
from ..dtypes import is_float_dtype
from .basic import matmul, sqrt
from .indexing import take_along_dim
from .registry import public
from .shape import movedim
from .sorting import sort

__all__ = ["quantile", "nanquantile", "cov", "corrcoef"]

_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _q_values(q: Any, op: str, dtype: np.dtype) -> tuple[np.ndarray, bool]:
    """The probabilities as a vector of the input's dtype (PyTorch computes the ranks in it),
    and whether ``q`` was a scalar. ``q`` is a Python number or a tensor, as PyTorch's
    overloads take (a list is a TypeError there too)."""
    if isinstance(q, TensorBase):
        if q._data.dtype != dtype:
            raise RuntimeError(f"{op}() q tensor must be same dtype as the input tensor (got "
                               f"{q.dtype} and the input's {dtype})")
        values = q._data
        if values.ndim > 1:
            raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
        if not ((values >= 0) & (values <= 1)).all():  # (NaN fails too)
            raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"{op}() q must be in the range [0, 1] but got {q}")
        values = np.asarray(q)
    return np.atleast_1d(values).astype(dtype), values.ndim == 0


def _lerp(start: TensorBase, end: TensorBase, weight: np.ndarray) -> TensorBase:
    """PyTorch's ``lerp``: ``start + w * (end - start)`` for ``w < 0.5``, else
    ``end - (end - start) * (1 - w)``; the two forms differ where the ends are infinite (the
    rank's weight 0 or 1 must not meet ``inf * 0``) and in the last bit."""
    w = wrap(weight)
    below = wrap(weight < 0.5)
    return ops.where(below, start + w * (end - start), end - (end - start) * (1 - w))


def _quantile(input: TensorBase, q: Any, dim: int | None, keepdim: bool, interpolation: str,
              ignore_nan: bool, op: str) -> TensorBase:
    """PyTorch's algorithm step for step (aten's quantile_compute), so values, NaN handling
    and gradients agree: sort, rank ``q * (n - 1)`` in the input's dtype, gather the order
    statistics below and above it, and ``lerp`` between them. A slice with a NaN ranks at its
    last element (a NaN: quantile) and an all-NaN slice at its first (nanquantile), so the
    result is NaN and the gradient goes to that NaN element, as in PyTorch."""
    if not isinstance(q, (TensorBase, int, float, np.number)):  # (bool is an int)
        # (PyTorch's argument parser: its overloads take a float or a Tensor)
        raise TypeError(f"{op}() received an invalid combination of arguments - got q of type "
                        f"{type(q).__name__}, but expected a float or a Tensor")
    # (PyTorch's CPU kernel also refuses float16/bfloat16; those are kept working here, as the
    # project's low-precision op suite expects of every differentiable op)
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    probabilities, scalar_q = _q_values(q, op, input._data.dtype)
    if interpolation not in _MODES:
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest, but got {interpolation}")
    ndim = input.ndim
    if dim is None:
        rows, d = input.reshape(-1), 0
    else:
        d = ops.normalize_dims(dim, max(ndim, 1), op)[0]
        rows = movedim(input, d, -1) if ndim else input.reshape(1)
    if input._data.size == 0:
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    dt = input._data.dtype.type
    ordered = sort(rows, -1).values  # NaN sorts last
    nan = np.isnan(rows._data)
    if ignore_nan:  # ranks among the non-NaN values; an all-NaN slice ranks at 0 (a NaN)
        valid = (~nan).sum(-1, keepdims=True)
        rank = probabilities * (valid - 1).astype(dt)  # (..., Q)
        rank = np.where(rank < 0, dt(0), rank)
    else:  # a slice with a NaN ranks at its last element, a NaN
        last = rows.shape[-1] - 1
        rank = np.where(nan.any(-1, keepdims=True), dt(last), probabilities * dt(last))
    if interpolation == "lower":
        rank = np.floor(rank)
    elif interpolation == "higher":
        rank = np.ceil(rank)
    elif interpolation == "nearest":
        rank = np.round(rank)  # half to even, as torch.round
    below = rank.astype(np.int64)
    result = take_along_dim(ordered, wrap(below), -1)
    if interpolation in ("linear", "midpoint"):
        weight = np.full_like(rank, 0.5) if interpolation == "midpoint" else rank - below
        above = take_along_dim(ordered, wrap(np.ceil(rank).astype(np.int64)), -1)
        result = _lerp(result, above, weight.astype(dt))
    result = movedim(result, -1, 0)  # (Q, ...)
    if keepdim:
        kept = [1] * ndim if dim is None else list(input.shape)
        if dim is not None and ndim:
            kept[d] = 1
        result = result.reshape(result.shape[0], *kept)
    return result[0] if scalar_q else result


@public(out=True)
def quantile(input: TensorBase, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> TensorBase:
    """The ``q``-th quantiles along ``dim`` (all elements when None); a 1-D ``q`` adds a
    leading dimension. Any NaN in a slice makes its quantiles NaN."""
    return _quantile(input, q, dim, keepdim, interpolation, False, "quantile")


@public(out=True)
def nanquantile(input: TensorBase, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> TensorBase:
    """``quantile`` ignoring NaN (a slice of only NaN gives NaN)."""
    return _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")


def cov(input: TensorBase, *, correction: int = 1, fweights: TensorBase | None = None,
        aweights: TensorBase | None = None) -> TensorBase:
    """The covariance of the variables in the rows of ``input`` (observations in columns), with
    optional integer frequency and float observation weights, as ``numpy.cov``."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if not is_float_dtype(x._data.dtype):
        x = x.to(np.float32 if x._data.dtype.kind in "biu" else x._data.dtype)
    observations = x.shape[1]
    weights = None
    if fweights is not None:
        if fweights._data.dtype.kind not in "iu":
            raise RuntimeError("cov(): expected fweights to have integral dtype")
        if (fweights._data < 0).any():
            raise RuntimeError("cov(): fweights cannot be negative")
        weights = fweights.to(x.dtype)
    if aweights is not None:
        if not is_float_dtype(aweights._data.dtype):
            raise RuntimeError("cov(): expected aweights to have floating point dtype")
        if (aweights._data < 0).any():
            raise RuntimeError("cov(): aweights cannot be negative")
        weights = aweights if weights is None else weights * aweights
    if weights is not None and not weights._data.sum():
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    if weights is None:
        total = float(observations)
        mean = x.mean(1, keepdim=True)
        norm = total - correction
    else:
        total_t = weights.sum()
        mean = (x * weights).sum(1, keepdim=True) / total_t
        if aweights is None:
            norm = total_t - correction
        else:
            norm = total_t - correction * (weights * aweights).sum() / total_t
    centred = x - mean
    weighted = centred if weights is None else centred * weights
    if (norm._data if isinstance(norm, TensorBase) else norm) <= 0:
        warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the "
             "number of observations.")
    norm_value = norm if not isinstance(norm, TensorBase) else norm.clamp(min=0.0)
    if not isinstance(norm, TensorBase):
        norm_value = max(norm, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        covariance = matmul(weighted, centred.mT) / norm_value
    # PyTorch squeezes the result: a single variable (1-D input or one row) gives a 0-d tensor
    return covariance.reshape(tuple(n for n in covariance.shape if n != 1))


def corrcoef(input: TensorBase) -> TensorBase:
    """Pearson correlation coefficients of the rows of ``input``, clipped to [-1, 1]."""
    c = cov(input)
    if c.ndim == 0:
        return c / c
    std = sqrt(c.diagonal())
    return (c / std.unsqueeze(1) / std.unsqueeze(0)).clamp(-1.0, 1.0)
