"""The orthogonal polynomials of ``torch.special`` as tensor functions: Chebyshev (T, U, V, W,
and shifted), Hermite (H, He), Laguerre and Legendre.

Values come from the NumPy recurrences of ``_polynomial_kernels.py``; as in PyTorch these
functions are not differentiable, so their results never require grad. Integer (and bool)
inputs give the default float dtype; the polynomials promote ``input`` with ``n`` as PyTorch's
binary ops do, and take ``n`` as a tensor or a number (a float n is truncated towards zero).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from .._core.tensor_base import TensorBase
from ._common import array_of, finish, float_dtype
from ._polynomial_kernels import POLYNOMIALS, hermite_limit

__all__ = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
           "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
           "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
           "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
           "laguerre_polynomial_l", "legendre_polynomial_p"]


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
        x, deg = array_of(input, name, "input"), array_of(n, name, "n")
        if isinstance(x, np.ndarray) or isinstance(deg, np.ndarray):
            dt = float_dtype(dtypes.result_type(x, deg))
        else:
            dt = dtypes.get_default_dtype().np
        with np.errstate(all="ignore"):
            xs, ns = np.broadcast_arrays(np.asarray(x, dt), _truncated_degree(deg))
            xs, ns = np.array(xs), np.array(ns)
            if name.startswith("hermite"):
                values = kernel(xs, ns, hermite_limit(dt))
            else:
                values = kernel(xs, ns)
        return finish(values, dt, out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"PyTorch's ``torch.special.{name}(input, n)`` (not differentiable)."
    return fn


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
