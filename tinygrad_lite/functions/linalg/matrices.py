"""Matrices read off or built from others: diagonal, trace, diag, diag_embed, diagflat and the
Vandermonde matrix (tl.linalg.vander)."""

from __future__ import annotations

import numpy as np

from ... import ops
from ..._core.tensor_base import TensorBase, wrap
from ...ops.elementwise import bfloat16_in_float32
from ...ops.linalg.inverse import torch_dtype_name
from ...ops.shape import cat
from ..reduction import cumprod
from ..registry import public

__all__ = ["trace", "diag", "diag_embed", "diagflat"]


def diagonal(A: TensorBase, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> TensorBase:  # noqa: N803
    """``tl.linalg.diagonal``: the diagonal of the last two dims."""
    return A.diagonal(offset, dim1, dim2)


@bfloat16_in_float32
def trace(input: TensorBase) -> TensorBase:
    """The sum of the main diagonal of a matrix."""
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    return input.diagonal().sum()


@public(out=True)
def diag(input: TensorBase, diagonal: int = 0) -> TensorBase:
    """A vector -> the matrix with it on diagonal ``diagonal``; a matrix -> that diagonal."""
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return input.diagonal(diagonal)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diag_embed(input: TensorBase, offset: int = 0, dim1: int = -2,
               dim2: int = -1) -> TensorBase:
    """Matrices (in the last two dims) with the last dim of ``input`` on diagonal ``offset``."""
    k = input.shape[-1]
    n = k + abs(offset)
    rows = np.arange(k) + max(-offset, 0)
    # written into zeros by index_put (differentiable in ``input``): no (k, n, n) product array,
    # and the input's dtype kept (a sum would widen integers to int64)
    zeros = wrap(np.zeros(tuple(input.shape[:-1]) + (n, n), input._data.dtype))
    out = ops.index_put(zeros, (slice(None),) * (input.ndim - 1) + (rows, rows + offset), input)
    if (dim1 % (input.ndim + 1), dim2 % (input.ndim + 1)) != (input.ndim - 1, input.ndim):
        out = out.movedim((-2, -1), (dim1, dim2))
    return out


def diagflat(input: TensorBase, offset: int = 0) -> TensorBase:
    """The flattened input on diagonal ``offset`` of a square matrix."""
    return diag_embed(input.reshape(-1), offset)


def vander(x: TensorBase, *, N: int | None = None) -> TensorBase:  # noqa: N803
    """``tl.linalg.vander``: increasing powers ``x^0 ... x^(N-1)`` of the last dim (batched);
    integer inputs give int64, as PyTorch's cumprod."""
    dt = x._data.dtype
    if not (dt in (np.float32, np.float64) or dt.kind in "iu"):
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           f"tensors, but got {torch_dtype_name(dt)}")
    base = x.unsqueeze(-1) if x.ndim == 0 else x
    n = base.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = cumprod(base.unsqueeze(-1).expand(*base.shape, n - 1), -1)
    return cat([wrap(np.ones((*base.shape, 1), powers._data.dtype)), powers], -1)
