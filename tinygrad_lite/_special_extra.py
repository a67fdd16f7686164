"""The Bessel, Airy and orthogonal-polynomial functions of ``torch.special`` as tensor functions.

Values come from NumPy kernels (``_special_bessel``, ``_special_poly``); as in PyTorch these
functions are not differentiable, so their results never require grad. Integer (and bool)
inputs give the default float dtype; the polynomials promote ``input`` with ``n`` as PyTorch's
binary ops do, and take ``n`` as a tensor or a number (a float n is truncated towards zero).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _special_bessel as _bessel
from . import dtypes
from ._core.tensor_base import TensorBase, wrap
from ._special_poly import POLYNOMIALS, hermite_limit
from .dtypes import is_float_dtype
from .functions.conventions import write_out

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_i0",
           "modified_bessel_i1", "modified_bessel_k0", "modified_bessel_k1",
           "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "spherical_bessel_j0",
           "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


def _array(value: Any, op: str, name: str) -> Any:
    """A tensor's array, or a Python number as it is (for dtype promotion)."""
    if isinstance(value, TensorBase):
        return value._data
    if isinstance(value, (bool, int, float, np.integer, np.floating)):
        return value.item() if isinstance(value, np.generic) else value
    raise TypeError(f"{op}(): argument '{name}' must be Tensor or Number, not "
                    f"{type(value).__name__}")


def _float_dtype(dt: np.dtype) -> np.dtype:
    """``dt`` when floating point, else the default float dtype (PyTorch's int promotion)."""
    return dt if is_float_dtype(dt) else dtypes.get_default_dtype().np


def _finish(values: np.ndarray, dt: np.dtype, out: Any, op: str) -> TensorBase:
    result = wrap(np.asarray(values, dtype=dt))
    return result if out is None else write_out(result, out, op)


def _unary(name: str, kernel: Callable[[np.ndarray], np.ndarray]) -> Callable[..., TensorBase]:
    def fn(input: Any, *, out: Any = None) -> TensorBase:
        x = _array(input, name, "input")
        dt = _float_dtype(x.dtype) if isinstance(x, np.ndarray) \
            else dtypes.get_default_dtype().np
        with np.errstate(all="ignore"):
            values = kernel(np.asarray(x, np.float64))
        return _finish(values, dt, out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"PyTorch's ``torch.special.{name}`` (not differentiable)."
    return fn


def _truncated_degree(n: Any) -> np.ndarray:
    """``n`` as int64, truncated towards zero; NaN and infinities become -1 (the zero
    polynomial), as PyTorch's cast gives."""
    arr = np.asarray(n)
    if arr.dtype.kind in "biu":
        return arr.astype(np.int64)
    finite = np.isfinite(arr)
    return np.where(finite, np.trunc(np.where(finite, arr, 0)), -1).astype(np.int64)


def _polynomial(name: str) -> Callable[..., TensorBase]:
    kernel = POLYNOMIALS[name]

    def fn(input: Any, n: Any, *, out: Any = None) -> TensorBase:
        x, deg = _array(input, name, "input"), _array(n, name, "n")
        if isinstance(x, np.ndarray) or isinstance(deg, np.ndarray):
            dt = _float_dtype(dtypes.result_type(x, deg))
        else:
            dt = dtypes.get_default_dtype().np
        with np.errstate(all="ignore"):
            xs, ns = np.broadcast_arrays(np.asarray(x, dt), _truncated_degree(deg))
            xs, ns = np.array(xs), np.array(ns)
            if name.startswith("hermite"):
                values = kernel(xs, ns, hermite_limit(dt))
            else:
                values = kernel(xs, ns)
        return _finish(values, dt, out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"PyTorch's ``torch.special.{name}(input, n)`` (not differentiable)."
    return fn


airy_ai = _unary("airy_ai", _bessel.airy_ai)
bessel_j0 = _unary("bessel_j0", _bessel.bessel_j0)
bessel_j1 = _unary("bessel_j1", _bessel.bessel_j1)
bessel_y0 = _unary("bessel_y0", _bessel.bessel_y0)
bessel_y1 = _unary("bessel_y1", _bessel.bessel_y1)
modified_bessel_i0 = _unary("modified_bessel_i0", _bessel.modified_bessel_i0)
modified_bessel_i1 = _unary("modified_bessel_i1", _bessel.modified_bessel_i1)
modified_bessel_k0 = _unary("modified_bessel_k0", _bessel.modified_bessel_k0)
modified_bessel_k1 = _unary("modified_bessel_k1", _bessel.modified_bessel_k1)
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0",
                                   _bessel.scaled_modified_bessel_k0)
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1",
                                   _bessel.scaled_modified_bessel_k1)
spherical_bessel_j0 = _unary("spherical_bessel_j0", _bessel.spherical_bessel_j0)
chebyshev_polynomial_t = _polynomial("chebyshev_polynomial_t")
chebyshev_polynomial_u = _polynomial("chebyshev_polynomial_u")
chebyshev_polynomial_v = _polynomial("chebyshev_polynomial_v")
chebyshev_polynomial_w = _polynomial("chebyshev_polynomial_w")
shifted_chebyshev_polynomial_t = _polynomial("shifted_chebyshev_polynomial_t")
shifted_chebyshev_polynomial_u = _polynomial("shifted_chebyshev_polynomial_u")
shifted_chebyshev_polynomial_v = _polynomial("shifted_chebyshev_polynomial_v")
shifted_chebyshev_polynomial_w = _polynomial("shifted_chebyshev_polynomial_w")
hermite_polynomial_h = _polynomial("hermite_polynomial_h")
hermite_polynomial_he = _polynomial("hermite_polynomial_he")
laguerre_polynomial_l = _polynomial("laguerre_polynomial_l")
legendre_polynomial_p = _polynomial("legendre_polynomial_p")
