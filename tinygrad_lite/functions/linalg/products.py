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
from ...dtypes import is_float_dtype
from ...ops.elementwise import bfloat16_in_float32
from ...ops.linalg.inverse import inv, torch_dtype_name
from ..basic import matmul
from ..registry import public
from ..shape import stack

__all__ = ["matrix_power", "addmm", "addmv", "addbmm", "baddbmm", "addr", "tensordot", "kron",
           "cross", "chain_matmul", "inner", "ger", "vdot"]


@public(out=True)
def matrix_power(input: TensorBase, n: int) -> TensorBase:
    """``input`` multiplied by itself ``n`` times (identity for 0, the inverse's power for
    negative ``n``), by repeated squaring."""
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_power: The input tensor A must have at least 2 "
                           "dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but they "
                           f"are {input.shape[-2]} by {input.shape[-1]} matrices")
    if n == 0:
        eye = np.broadcast_to(np.eye(input.shape[-1], dtype=input._data.dtype), input.shape)
        if not (input.requires_grad and is_grad_enabled()):
            return wrap(eye.copy())
        # PyTorch copies the identity into a clone of the input: the gradient is zeros, not None
        never = wrap(np.zeros(input.shape, bool))
        return ops.where(never, input, wrap(eye.copy()))
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
    """The product of a chain of matrices (the first may be a row vector, the last a column
    vector), with PyTorch's checks of dims, dtypes and shapes."""
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError("multi_dot(): expected at least 2 tensors but got "
                           f"{len(ts)}")
    for i, t in enumerate(ts):
        if 0 < i < len(ts) - 1 and t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
        if i in (0, len(ts) - 1) and t.ndim not in (1, 2):
            which = "first" if i == 0 else "last"
            raise RuntimeError(f"multi_dot(): the {which} tensor must be 1D or 2D but got "
                               f"{t.ndim}D")
    for i in range(len(ts) - 1):
        left = ts[i].shape[-1]
        right = ts[i + 1].shape[0]
        if left != right:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes "
                               f"{list(ts[i].shape)} and {list(ts[i + 1].shape)} cannot be "
                               "multiplied")
    return _fold(matmul, ts)


@public(out=True)
def chain_matmul(*matrices: TensorBase) -> TensorBase:
    """The product of the 2-D matrices (deprecated in PyTorch for ``multi_dot``); one matrix
    gives a copy of it."""
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for m in matrices:
        if m.ndim != 2:
            raise RuntimeError(f"Tensor dimension is {m.ndim}, expected 2 instead.")
    if len(matrices) == 1:
        return ops.clone(matrices[0])
    return multi_dot(matrices)


@bfloat16_in_float32
def vecdot(x: TensorBase, y: TensorBase, *, dim: int = -1) -> TensorBase:
    """The dot product along ``dim`` (float inputs of one dtype, as PyTorch's)."""
    if not is_float_dtype(x._data.dtype):
        raise RuntimeError("linalg.vecdot: Expected a floating point or complex tensor as input. "
                           f"Got {torch_dtype_name(x._data.dtype)}")
    if x._data.dtype != y._data.dtype:
        raise RuntimeError("linalg.vecdot: Expected x and y to have the same dtype, but found x "
                           f"of type {torch_dtype_name(x._data.dtype)} and y of type "
                           f"{torch_dtype_name(y._data.dtype)} instead")
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


def _tensordot_dims(a: TensorBase, b: TensorBase, dims: Any) -> tuple[list[int], list[int]]:
    """The contracted dims of ``a`` and ``b`` as given (an int n: a's last n, b's first n; a
    0-d tensor counts as an int), checked as PyTorch checks them."""
    if isinstance(dims, TensorBase) and dims.ndim == 0:
        dims = int(dims.item())
    elif isinstance(dims, TensorBase):
        dims = dims.tolist()
    if isinstance(dims, (int, np.integer)):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-int(dims), 0)), list(range(int(dims)))
    axes_a, axes_b = ([int(d)] if isinstance(d, (int, np.integer)) else [int(i) for i in d]
                      for d in dims)
    if len(axes_a) != len(axes_b):
        raise RuntimeError("both dimension lists should have same length")
    return axes_a, axes_b


@public(out=True)
def tensordot(a: TensorBase, b: TensorBase, dims: Any = 2) -> TensorBase:
    """Contract the last ``dims`` dims of ``a`` with the first of ``b`` (an int), or the listed
    pairs of dims."""
    given_a, given_b = _tensordot_dims(a, b, dims)
    if a._data.dtype != b._data.dtype:
        raise RuntimeError("both inputs should have same dtype")
    axes_a = [d % a.ndim for d in given_a]
    axes_b = [d % b.ndim for d in given_b]
    for da, db, ga, gb in zip(axes_a, axes_b, given_a, given_b):
        if a.shape[da] != b.shape[db]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[da]} in dim {ga} and second has size {b.shape[db]} in "
                               f"dim {gb}")
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    k = int(np.prod([a.shape[d] for d in axes_a])) if axes_a else 1
    # explicit sizes, not -1: a zero-size contraction (k = 0) leaves -1 undetermined
    rows = int(np.prod([a.shape[d] for d in free_a]))
    cols = int(np.prod([b.shape[d] for d in free_b]))
    left = a.permute(*free_a, *axes_a).reshape(rows, k)
    right = b.permute(*axes_b, *free_b).reshape(k, cols)
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
    for tl.linalg.cross). The batch dims broadcast, between inputs of equal rank."""
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if input.shape != other.shape:
        try:
            np.broadcast_shapes(input.shape, other.shape)
        except ValueError:
            raise ops.common.broadcast_error("linalg.cross", input, other) from None
    if dim is None:  # torch.cross's deprecated default: the first dim of size 3
        dim = next((i for i, n in enumerate(input.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
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
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


@public(out=True)
def ger(vec1: TensorBase, vec2: TensorBase) -> TensorBase:
    """The outer product of two 1-D tensors (PyTorch's old name of ``outer``)."""
    for name, v in (("self", vec1), ("vec2", vec2)):
        if v.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {v.ndim}-D")
    return vec1.reshape(-1, 1) * vec2.reshape(1, -1)


@public(out=True)
def vdot(input: TensorBase, other: TensorBase) -> TensorBase:
    """The dot product of two 1-D tensors of one dtype."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           "tensors")
    a, b = input._data.dtype, other._data.dtype
    if a != b:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{torch_dtype_name(a)} and {torch_dtype_name(b)}")
    if a == np.bool_:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    if input.shape != other.shape:
        n, k = input.shape[0], other.shape[0]
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{k}] to "
                           f"have the same number of elements, but got {n} and {k} elements "
                           "respectively")
    return (input * other).sum()
