"""Matrix and vector products composed from matmul: matrix_power, multi_dot, chain_matmul,
addmm & co (``beta * input + alpha * product``), tensordot, kron, cross, inner, ger, vdot and
vecdot, all differentiable."""

from __future__ import annotations

from functools import reduce as _fold
from typing import Any

import numpy as np

from ... import ops
from ..._core.grad_mode import is_grad_enabled
from ..._core.tensor_base import TensorBase, wrap
from ...ops.elementwise import bfloat16_in_float32
from ...ops.linalg.inverse import inv
from ..basic import matmul
from ..registry import public
from ..shape import stack

__all__ = ["matrix_power", "addmm", "addmv", "addbmm", "baddbmm", "addr", "tensordot", "kron",
           "cross", "chain_matmul", "inner", "ger", "vdot"]


@public(out=True)
def matrix_power(input: TensorBase, n: int) -> TensorBase:
    """``input`` multiplied by itself ``n`` times (identity for 0, the inverse's power for
    negative ``n``), by repeated squaring."""
    if n == 0:
        eye = np.broadcast_to(np.eye(input.shape[-1], dtype=input._data.dtype), input.shape)
        return wrap(eye.copy())
    base = inv(input) if n < 0 else input
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    assert result is not None
    return result


def multi_dot(tensors: Any) -> TensorBase:
    """The product of a chain of matrices (the first and last may be vectors)."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got "
                           f"{len(ts)}")
    return _fold(matmul, ts)


@public(out=True)
def chain_matmul(*matrices: TensorBase) -> TensorBase:
    """The product of the matrices (deprecated in PyTorch for ``multi_dot``)."""
    return multi_dot(matrices)


@bfloat16_in_float32
def vecdot(x: TensorBase, y: TensorBase, *, dim: int = -1) -> TensorBase:
    """The dot product along ``dim``."""
    return (x * y).sum(dim)


@public(out=True, inplace=True)
def addmm(input: TensorBase, mat1: TensorBase, mat2: TensorBase, *, beta: float = 1,
          alpha: float = 1) -> TensorBase:
    """``beta * input + alpha * (mat1 @ mat2)``."""
    return _combine(input, mat1 @ mat2, beta, alpha)


@public(out=True, inplace=True, torch_inplace=True)
def addmv(input: TensorBase, mat: TensorBase, vec: TensorBase, *, beta: float = 1,
          alpha: float = 1) -> TensorBase:
    """``beta * input + alpha * (mat @ vec)``."""
    return _combine(input, mat @ vec, beta, alpha)


@public(out=True, inplace=True)
def addbmm(input: TensorBase, batch1: TensorBase, batch2: TensorBase, *, beta: float = 1,
           alpha: float = 1) -> TensorBase:
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``."""
    return _combine(input, (batch1 @ batch2).sum(0), beta, alpha)


@public(out=True, inplace=True)
def baddbmm(input: TensorBase, batch1: TensorBase, batch2: TensorBase, *, beta: float = 1,
            alpha: float = 1) -> TensorBase:
    """``beta * input + alpha * (batch1 @ batch2)`` per batch."""
    return _combine(input, batch1 @ batch2, beta, alpha)


@public(out=True, inplace=True)
def addr(input: TensorBase, vec1: TensorBase, vec2: TensorBase, *, beta: float = 1,
         alpha: float = 1) -> TensorBase:
    """``beta * input + alpha * outer(vec1, vec2)``."""
    return _combine(input, vec1.reshape(-1, 1) * vec2.reshape(1, -1), beta, alpha)


def _combine(input: TensorBase, product: TensorBase, beta: float, alpha: float) -> TensorBase:
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:  # as PyTorch: input is ignored, even its NaNs, and its gradient is 0
        if not (input.requires_grad and is_grad_enabled()):
            return scaled
        never = wrap(np.zeros(input.shape, bool))
        return scaled + ops.where(never, input, 0.0)  # (the value 0, the gradient 0)
    return scaled + (input if beta == 1 else input * beta)


@public(out=True)
def tensordot(a: TensorBase, b: TensorBase, dims: Any = 2) -> TensorBase:
    """Contract the last ``dims`` dims of ``a`` with the first of ``b`` (an int), or the listed
    pairs of dims."""
    if isinstance(dims, int):
        axes_a = list(range(a.ndim - dims, a.ndim))
        axes_b = list(range(dims))
    else:
        axes_a, axes_b = ([d] if isinstance(d, int) else list(d) for d in dims)
    axes_a = [d % a.ndim for d in axes_a]
    axes_b = [d % b.ndim for d in axes_b]
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    k = int(np.prod([a.shape[d] for d in axes_a])) if axes_a else 1
    left = a.permute(*free_a, *axes_a).reshape(-1, k)
    right = b.permute(*axes_b, *free_b).reshape(k, -1)
    return (left @ right).reshape(*[a.shape[d] for d in free_a], *[b.shape[d] for d in free_b])


@public(out=True)
def kron(input: TensorBase, other: TensorBase) -> TensorBase:
    """The Kronecker product."""
    nd = max(input.ndim, other.ndim)
    a = input.reshape(*([1] * (nd - input.ndim)), *input.shape)
    b = other.reshape(*([1] * (nd - other.ndim)), *other.shape)
    # one einsum outer product with the dims interleaved (a0 b0 a1 b1 ...), then merged in
    # pairs: its gradients are einsum contractions, not broadcast products summed over axes
    letters = "abcdefghijklmnopqrstuvwxyz"
    if 2 * nd > len(letters):
        raise RuntimeError(f"kron: at most {len(letters) // 2} dimensions are supported, got {nd}")
    sub_a, sub_b = letters[:nd], letters[nd:2 * nd]
    pairs = "".join(x + y for x, y in zip(sub_a, sub_b))
    out = ops.einsum.einsum(f"{sub_a},{sub_b}->{pairs}", a, b)
    return out.reshape(*[a.shape[i] * b.shape[i] for i in range(nd)])


@public(out=True)
def cross(input: TensorBase, other: TensorBase, dim: int | None = None) -> TensorBase:
    """The 3-D cross product along ``dim`` (default: the first dim of size 3 for tl.cross, -1
    for tl.linalg.cross)."""
    if dim is None:
        dim = next((i for i, n in enumerate(input.shape) if n == 3), -1)
    a = input.unbind(dim)
    b = other.unbind(dim)
    if len(a) != 3 or len(b) != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{len(a)} and {len(b)}")
    return stack([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                  a[0] * b[1] - a[1] * b[0]], dim)


def linalg_cross(input: TensorBase, other: TensorBase, *, dim: int = -1) -> TensorBase:
    """``tl.linalg.cross``: the cross product along ``dim`` (default the last)."""
    return cross(input, other, dim)


@public(out=True)
def inner(input: TensorBase, other: TensorBase) -> TensorBase:
    """The dot product over the last dims (a scalar times a tensor for 0-d inputs)."""
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    return tensordot(input, other, ([-1], [-1]))


@public(out=True)
def ger(vec1: TensorBase, vec2: TensorBase) -> TensorBase:
    """The outer product (PyTorch's old name)."""
    return vec1.reshape(-1, 1) * vec2.reshape(1, -1)


@public(out=True)
def vdot(input: TensorBase, other: TensorBase) -> TensorBase:
    """The dot product of two 1-D tensors."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           "tensors")
    return (input * other).sum()

