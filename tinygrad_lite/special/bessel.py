"""The Bessel and Airy functions of ``torch.special``: the modified Bessel functions of the first
kind ``i0``, ``i0e``, ``i1``, ``i1e`` (differentiable ops with PyTorch's rules, in
``ops/modified_bessel.py``), and
``bessel_j0/j1/y0/y1``, ``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1``,
``spherical_bessel_j0`` and ``airy_ai``, which, as in PyTorch, are not differentiable: their
values come from the NumPy kernels of ``_bessel_kernels.py`` and never require grad. Integer
(and bool) inputs give the default float dtype."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .. import dtypes
from .._core.tensor_base import TensorBase
from ..ops import modified_bessel
from . import _bessel_kernels as kernels
from ._common import array_of, as_float, finish, float_dtype, written

__all__ = ["i0", "i0e", "i1", "i1e", "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0",
           "bessel_y1", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
           "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "spherical_bessel_j0"]


def i0(input: TensorBase, *, out: Any = None) -> TensorBase:
    """The modified Bessel function of the first kind, order 0."""
    return written(modified_bessel.i0(as_float(input)), out, "i0")


def i0e(input: TensorBase, *, out: Any = None) -> TensorBase:
    """``i0`` scaled by ``exp(-|x|)``."""
    return written(modified_bessel.i0e(as_float(input)), out, "i0e")


def i1(input: TensorBase, *, out: Any = None) -> TensorBase:
    """The modified Bessel function of the first kind, order 1."""
    return written(modified_bessel.i1(as_float(input)), out, "i1")


def i1e(input: TensorBase, *, out: Any = None) -> TensorBase:
    """``i1`` scaled by ``exp(-|x|)``."""
    return written(modified_bessel.i1e(as_float(input)), out, "i1e")


def _unary(name: str, kernel: Callable[[np.ndarray], np.ndarray]) -> Callable[..., TensorBase]:
    def fn(input: Any, *, out: Any = None) -> TensorBase:
        x = array_of(input, name, "input")
        dt = float_dtype(x.dtype) if isinstance(x, np.ndarray) \
            else dtypes.get_default_dtype().np
        with np.errstate(all="ignore"):
            values = kernel(np.asarray(x, np.float64))
        return finish(values, dt, out, name)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"PyTorch's ``torch.special.{name}`` (not differentiable)."
    return fn


airy_ai = _unary("airy_ai", kernels.airy_ai)
bessel_j0 = _unary("bessel_j0", kernels.bessel_j0)
bessel_j1 = _unary("bessel_j1", kernels.bessel_j1)
bessel_y0 = _unary("bessel_y0", kernels.bessel_y0)
bessel_y1 = _unary("bessel_y1", kernels.bessel_y1)
modified_bessel_i0 = _unary("modified_bessel_i0", kernels.modified_bessel_i0)
modified_bessel_i1 = _unary("modified_bessel_i1", kernels.modified_bessel_i1)
modified_bessel_k0 = _unary("modified_bessel_k0", kernels.modified_bessel_k0)
modified_bessel_k1 = _unary("modified_bessel_k1", kernels.modified_bessel_k1)
scaled_modified_bessel_k0 = _unary("scaled_modified_bessel_k0",
                                   kernels.scaled_modified_bessel_k0)
scaled_modified_bessel_k1 = _unary("scaled_modified_bessel_k1",
                                   kernels.scaled_modified_bessel_k1)
spherical_bessel_j0 = _unary("spherical_bessel_j0", kernels.spherical_bessel_j0)
