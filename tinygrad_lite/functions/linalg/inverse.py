"""Inverses and determinants: det, logdet, slogdet, inverse, pinverse, and tl.linalg's inv_ex
and slogdet (the primitives are ops/linalg/inverse.py's; these add PyTorch's older names and
results)."""

from __future__ import annotations

import math

from ... import ops
from ..._core.tensor_base import TensorBase, wrap
from ...ops import return_types
from ...ops.linalg.inverse import det as _det
from ...ops.linalg.inverse import inv, pinv
from ...ops.linalg.inverse import inv_ex as _inv_ex
from ...ops.linalg.inverse import slogdet as _slogdet
from ..registry import declare

__all__ = ["det", "logdet", "slogdet", "inverse", "pinverse"]


def slogdet(input: TensorBase) -> return_types.slogdet:
    """``(sign, logabsdet)`` of each square matrix (sign 0 and logabsdet -inf when singular),
    as ``tl.return_types.slogdet``."""
    return return_types.slogdet(_slogdet(input))


def linalg_slogdet(A: TensorBase) -> return_types.linalg_slogdet:  # noqa: N803
    """``tl.linalg.slogdet``: ``(sign, logabsdet)`` as ``tl.return_types.linalg_slogdet``."""
    return return_types.linalg_slogdet(_slogdet(A))


def det(input: TensorBase) -> TensorBase:
    """The determinant of each square matrix; its gradient is ``det(A) A^-T``, zero at an
    exactly singular matrix (PyTorch's first-order rule)."""
    return _det(input)


def logdet(input: TensorBase) -> TensorBase:
    """``log(det)``: NaN for a negative determinant, -inf for a singular matrix."""
    sign, logabs = _slogdet(input, "logdet")
    return ops.where(sign < 0, math.nan, logabs)


inverse = inv
declare("inverse", out=True)


def inv_ex(A: TensorBase, *,  # noqa: N803
           check_errors: bool = False) -> return_types.linalg_inv_ex:
    """``(inverse, info)``: info is 0, or for a singular matrix the 1-based index of its first
    zero pivot, with LAPACK's inf/NaN inverse (``check_errors``: ``LinAlgError`` instead)."""
    inverse, info = _inv_ex(A, "linalg.inv_ex", check_errors)
    return return_types.linalg_inv_ex(inverse, wrap(info))


def pinverse(input: TensorBase, rcond: float = 1e-15) -> TensorBase:
    """The pseudo-inverse, dropping singular values <= ``rcond`` times the largest."""
    return pinv(input, rtol=rcond)
