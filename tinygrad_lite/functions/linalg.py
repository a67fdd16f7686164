"""Linear algebra of ``tl.*`` and ``tl.linalg``: the primitives of ``ops/linalg.py`` (inv,
slogdet, solve, cholesky, pinv) and ``ops/linalg_decomp.py`` (eigh, svd, qr), and composites
over them and matmul (det, norms, matrix_power, addmm & co, tensordot, kron, cross, trace, diag,
PyTorch's older svd/qr/pinverse, ...), all differentiable."""

from __future__ import annotations

import math
from functools import reduce as _fold
from typing import Any

import numpy as np

from .. import ops
from .._core.grad_mode import is_grad_enabled
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import return_types
from ..ops.elementwise import bfloat16_in_float32
from ..ops.linalg import decompositions
from ..ops.linalg.decompositions import cholesky
from ..ops.linalg.distance import cdist_direct
from ..ops.linalg.inverse import det as _det
from ..ops.linalg.inverse import inv, pinv, solve, torch_dtype_name
from ..ops.linalg.inverse import slogdet as _slogdet
from ..ops.linalg.lu import trsm
from .basic import matmul
from .linalg_lu import broadcast_batch, triangular_system
from .registry import declare, public
from .shape import stack

__all__ = ["det", "logdet", "slogdet", "inverse", "matrix_power", "addmm", "addmv", "addbmm",
           "baddbmm", "addr", "tensordot", "kron", "cross", "cdist", "trace", "diag",
           "diag_embed", "diagflat", "chain_matmul", "inner", "ger", "vdot", "cholesky_solve",
           "cholesky_inverse", "svd", "qr", "pinverse"]

# what tl.linalg holds beyond the names above (tinygrad_lite/linalg.py re-exports them)
LINALG_ONLY = ["inv_ex", "cholesky_ex", "solve_triangular", "multi_dot", "vector_norm",
               "matrix_norm", "norm", "vecdot", "diagonal", "linalg_cross", "linalg_slogdet"]

# tl.return_types.svd / qr of the older functions (V, not Vh), as torch.return_types'
OldSVDResult = return_types.svd
OldQRResult = return_types.qr


def slogdet(input: TensorBase) -> return_types.slogdet:
    """``(sign, logabsdet)`` of each square matrix (sign 0 and logabsdet -inf when singular),
    as ``tl.return_types.slogdet``."""
    return return_types.slogdet(_slogdet(input))


def linalg_slogdet(A: TensorBase) -> return_types.linalg_slogdet:  # noqa: N803
    """``tl.linalg.slogdet``: ``(sign, logabsdet)`` as ``tl.return_types.linalg_slogdet``."""
    return return_types.linalg_slogdet(_slogdet(A))


def det(input: TensorBase) -> TensorBase:
    """The determinant of each square matrix; its gradient is the cofactor matrix, finite also
    for singular matrices."""
    return _det(input)


def logdet(input: TensorBase) -> TensorBase:
    """``log(det)``: NaN for a negative determinant, -inf for a singular matrix."""
    sign, logabs = _slogdet(input)
    return ops.where(sign < 0, math.nan, logabs)


inverse = inv
declare("inverse", out=True)


def inv_ex(A: TensorBase, *,  # noqa: N803
           check_errors: bool = False) -> return_types.linalg_inv_ex:
    """``(inverse, info)``; info is 0 (a singular matrix raises)."""
    return return_types.linalg_inv_ex(inv(A), wrap(np.zeros(A.shape[:-2], np.int32)))


def cholesky_ex(A: TensorBase, *, upper: bool = False,  # noqa: N803
                check_errors: bool = False) -> return_types.linalg_cholesky_ex:
    """``(L, info)``; info is 0 (a matrix that is not positive-definite raises)."""
    return return_types.linalg_cholesky_ex(cholesky(A, upper),
                                           wrap(np.zeros(A.shape[:-2], np.int32)))


def _zero_diagonal(x: TensorBase) -> bool:
    return bool((np.diagonal(x._data, axis1=-2, axis2=-1) == 0).any())


def _not_implemented(op: str, dtype: np.dtype) -> None:
    """PyTorch's error for a triangular solver's input of a dtype other than float32/64."""
    if not is_float_dtype(dtype) or dtype.itemsize < 4:
        raise NotImplementedError(f'"{op}_cpu" not implemented for '
                                  f"'{torch_dtype_name(dtype)}'")


def solve_triangular(A: TensorBase, B: TensorBase, *, upper: bool, left: bool = True,  # noqa: N803
                     unitriangular: bool = False) -> TensorBase:
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for the upper or lower triangle of
    ``A`` (ones on its diagonal when ``unitriangular``; the rest of A is not read). The batch
    dims of A and B broadcast; X has A's dtype."""
    op = "linalg.solve_triangular"
    for name, x in (("B", B), ("A", A)):
        if x.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {name} must have at least 2 dimensions.")
    n = A.shape[-1]
    if A.shape[-2] != n:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {n} matrices")
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(f"{op}: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and "
                           f"{B.shape[-2]}x{B.shape[-1]})")
    _not_implemented("triangular_solve", A._data.dtype)
    b = B if B._data.dtype == A._data.dtype else B.to(A.dtype)
    if left:
        return triangular_system(A, b, not upper, unitriangular)
    return triangular_system(A, b.mT, not upper, unitriangular, transpose=True).mT


@public(out=True)
def cholesky_solve(B: TensorBase, L: TensorBase, upper: bool = False) -> TensorBase:  # noqa: N803
    """``X`` with ``(L L^T) X = B`` (``(U^T U) X = B`` when ``upper``) given the Cholesky factor,
    of which only the lower (upper) triangle is read; the batch dims of B and L broadcast. The
    gradient of L is PyTorch's, that of the whole matrix ``L L^T`` is formed from."""
    for name, x in (("b", B), ("u", L)):
        if x.ndim < 2:
            raise RuntimeError(f"{name} should have at least 2 dimensions, but has {x.ndim} "
                               "dimensions instead")
    n = L.shape[-1]
    if L.shape[-2] != n:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L.shape[-2]} "
                           f"by {n} matrices")
    if B.shape[-2] != n:
        raise RuntimeError("Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{n} by {n} but each b matrix is {B.shape[-2]} by {B.shape[-1]}")
    if B._data.dtype != L._data.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{torch_dtype_name(B._data.dtype)} and A of type "
                           f"{torch_dtype_name(L._data.dtype)} instead.")
    _not_implemented("cholesky_solve", L._data.dtype)
    factor, b = broadcast_batch(L, B)
    # the triangle's values (what LAPACK's potrs reads), the whole matrix's gradient
    mask = wrap(np.triu(np.ones((n, n), bool)) if upper else np.tril(np.ones((n, n), bool)))
    factor = factor + (ops.where(mask, factor, 0.0) - factor).detach()
    lower = factor.mT if upper else factor
    if _zero_diagonal(lower):  # LAPACK's inf/NaN, without a gradient
        z = trsm(lower._data, b._data, True)
        return wrap(trsm(lower._data.swapaxes(-1, -2), z, False))
    return solve(lower.mT, solve(lower, b))


@public(out=True)
def cholesky_inverse(L: TensorBase, upper: bool = False) -> TensorBase:  # noqa: N803
    """``(L L^T)^-1`` from the Cholesky factor."""
    lower = L.mT if upper else L
    li = inv(lower)
    return li.mT @ li


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
def vector_norm(x: TensorBase, ord: float = 2, dim: Any = None, keepdim: bool = False,  # noqa: A002
                *, dtype: Any = None) -> TensorBase:
    """``(sum |x|^ord)^(1/ord)`` over ``dim`` (all elements by default); ``inf``/``-inf``: the
    largest/smallest magnitude, 0: the count of nonzeros."""
    v = x if dtype is None else x.to(dtype)
    if dim is None:
        v, dim = v.reshape(-1), 0
        if keepdim:
            raise RuntimeError("vector_norm with keepdim=True needs an explicit dim here")
    a = v.abs()
    if ord == math.inf:
        return a.amax(dim, keepdim)
    if ord == -math.inf:
        return a.amin(dim, keepdim)
    if ord == 0:
        return (a != 0).to(v.dtype).sum(dim, keepdim)
    if ord == 2:
        return v.norm(2, dim, keepdim)
    if ord == 1:
        return a.sum(dim, keepdim)
    return p_norm(a, ord, dim, keepdim)


def p_norm(magnitude: TensorBase, p: float, dim: Any, keepdim: bool) -> TensorBase:
    """``(sum |x|^p)^(1/p)`` of magnitudes over ``dim``. |x|^p (p < 1) and the 1/p root have
    infinite slopes at 0: PyTorch gives zero gradients at zero entries and zero norms there,
    not 0 * inf = NaN (for p < 0 a zero entry makes the norm 0 by the formula itself)."""
    if p < 0:
        return ops.pow(ops.reduce_sum(ops.pow(magnitude, p), dim, keepdim), 1.0 / p)
    zero = magnitude == 0
    powered = ops.where(zero, 0.0, ops.pow(ops.where(zero, 1.0, magnitude), p))
    total = ops.reduce_sum(powered, dim, keepdim)
    empty = total == 0
    return ops.where(empty, 0.0, ops.pow(ops.where(empty, 1.0, total), 1.0 / p))


def matrix_norm(A: TensorBase, ord: Any = "fro", dim: tuple = (-2, -1),  # noqa: N803, A002
                keepdim: bool = False, *, dtype: Any = None) -> TensorBase:
    """The 'fro', 'nuc', 2/-2 (extreme singular values) or 1/-1/inf/-inf matrix norm."""
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    m = A if dtype is None else A.to(dtype)
    if ord == "fro":
        return (m * m).sum(dim, keepdim).sqrt()
    d0, d1 = dim
    if ord in ("nuc", 2, -2):
        if is_float_dtype(m._data.dtype) and m._data.dtype.itemsize < 4:
            raise RuntimeError("linalg.matrix_norm: Low precision dtypes not supported. Got Half")
        d0, d1 = d0 % m.ndim, d1 % m.ndim
        sv = decompositions.svd(m.movedim((d0, d1), (-2, -1)), False)[1]
        out = sv.sum(-1) if ord == "nuc" else sv.amax(-1) if ord == 2 else sv.amin(-1)
        if keepdim:  # put the two reduced dims back where they were
            for d in sorted((d0, d1)):
                out = out.unsqueeze(d)
        return out
    if ord in (1, -1):
        sums = m.abs().sum(d0, True)
        out = sums.amax(d1, True) if ord == 1 else sums.amin(d1, True)
    elif ord in (math.inf, -math.inf):
        sums = m.abs().sum(d1, True)
        out = sums.amax(d0, True) if ord == math.inf else sums.amin(d0, True)
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return out if keepdim else out.squeeze(max(d0 % m.ndim, d1 % m.ndim)).squeeze(
        min(d0 % m.ndim, d1 % m.ndim))


def norm(A: TensorBase, ord: Any = None, dim: Any = None, keepdim: bool = False, *,  # noqa: N803, A002
         dtype: Any = None) -> TensorBase:
    """``tl.linalg.norm``: a vector norm (1-D, or an int ``dim``) or a matrix norm (2-D, or a
    pair ``dim``); without ``ord``, the 2-norm / Frobenius norm."""
    if isinstance(dim, (tuple, list)) and len(dim) == 2 or (dim is None and A.ndim == 2
                                                            and ord is not None):
        return matrix_norm(A, "fro" if ord is None else ord, tuple(dim or (-2, -1)), keepdim,
                           dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)


def svd(input: TensorBase, some: bool = True, compute_uv: bool = True) -> tuple:
    """PyTorch's older ``svd``: ``(U, S, V)`` with V, not Vh."""
    # some=False: full U and V; compute_uv=False: zero-filled U and V, as PyTorch's
    if input.ndim < 2:
        raise RuntimeError(f"linalg.svd: input should have at least 2 dimensions, but has "
                           f"{input.ndim} dimensions instead")
    if not compute_uv:
        m, n = input.shape[-2:]
        s = decompositions.svd(input, False)[1]
        zeros = [wrap(np.zeros((*input.shape[:-2], k, k), input._data.dtype)) for k in (m, n)]
        return OldSVDResult(zeros[0], s, zeros[1])
    u, s, vh = decompositions.svd(input, not some)
    return OldSVDResult(u, s, vh.mT)


def qr(input: TensorBase, some: bool = True) -> tuple:
    """PyTorch's older ``qr``: ``linalg.qr`` with mode 'reduced' (``some``) or 'complete'."""
    q, r = decompositions.qr(input, "reduced" if some else "complete")
    return OldQRResult(q, r)


def pinverse(input: TensorBase, rcond: float = 1e-15) -> TensorBase:
    """The pseudo-inverse, dropping singular values <= ``rcond`` times the largest."""
    return pinv(input, rtol=rcond)


@bfloat16_in_float32
def vecdot(x: TensorBase, y: TensorBase, *, dim: int = -1) -> TensorBase:
    """The dot product along ``dim``."""
    return (x * y).sum(dim)


def diagonal(A: TensorBase, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> TensorBase:  # noqa: N803
    """``tl.linalg.diagonal``: the diagonal of the last two dims."""
    return A.diagonal(offset, dim1, dim2)


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


def cdist(x1: TensorBase, x2: TensorBase, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> TensorBase:
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched).

    For p = 2 with more than 25 rows on either side (or ``compute_mode='use_mm_for_euclid_
    dist'``), as PyTorch: ``sqrt(|a|^2 + |b|^2 - 2 a.b)`` through one matrix product instead of
    the (P, R, M) differences (clamped at 1e-30, where the gradient is 0)."""
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"cdist: X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    use_mm = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary"
        and (x1.shape[-2] > 25 or x2.shape[-2] > 25))
    if p == 2 and use_mm:
        square1 = (x1 * x1).sum(-1, keepdim=True)  # (..., P, 1)
        square2 = (x2 * x2).sum(-1, keepdim=True)  # (..., R, 1)
        d2 = square1 - 2.0 * (x1 @ x2.mT) + square2.mT
        return d2.clamp_min(1e-30).sqrt()
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return cdist_direct(x1, x2, p)


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

