"""The LU family: ``tl.linalg``'s lu, lu_factor(_ex), lu_solve, solve (``left=``) and
solve_ex, and PyTorch's older ``tl.lu``/``lu_solve``/``lu_unpack``/``triangular_solve``/
``cholesky`` (also Tensor methods, but lu_unpack). The factorisation is the primitive of
``ops/linalg/lu.py`` (LAPACK getrf's result and pivots); everything else is composed from it,
triangular masks and ``solve``, so the gradients (first and second order) are PyTorch's: with
respect to A for full-rank inputs, to LU and B for lu_solve. A zero on U's diagonal gives
inf/NaN values, as LAPACK's solvers, and such a result is not differentiable here."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import ops
from ..._core.tensor_base import TensorBase, wrap
from ...ops import return_types
from ...ops.linalg.decompositions import cholesky as _cholesky
from ...ops.linalg.inverse import LinAlgError, torch_dtype_name
from ...ops.linalg.inverse import solve as _solve
from ...ops.linalg.lapack import getrf, getrs, permutation, permutation_matrix, trsm
from ...ops.linalg.lu import check_float_matrix
from ...ops.linalg.lu import lu_factor_ex as _lu_factor_ex
from ..registry import public

__all__ = ["lu", "lu_solve", "lu_unpack", "triangular_solve", "cholesky"]

# tl.return_types (torch.return_types): fields by name, printed as PyTorch's
LUResult = return_types.linalg_lu
LUFactorResult = return_types.linalg_lu_factor
LUFactorExResult = return_types.linalg_lu_factor_ex
LUWithInfo = return_types._lu_with_info
LUUnpackResult = return_types.lu_unpack
SolveExResult = return_types.linalg_solve_ex
TriangularSolveResult = return_types.triangular_solve


def _batch_prefix(info: np.ndarray, index: int) -> str:
    """PyTorch's ``(Batch element i): `` before a batched matrix's error."""
    return f"(Batch element {index}): " if info.ndim else ""


def _first_failure(info: np.ndarray) -> tuple[int, int] | None:
    """``(batch index, info)`` of the first matrix whose info is nonzero."""
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    return (int(bad[0]), int(flat[bad[0]])) if bad.size else None


def _triangle(x: TensorBase, rows: int, cols: int, lower: bool, unit: bool) -> TensorBase:
    """The lower (below the diagonal, with ones on it when ``unit``) or upper triangle of x."""
    ones = np.ones((rows, cols), bool)
    mask = np.tril(ones, -1 if unit else 0) if lower else np.triu(ones, 1 if unit else 0)
    out = ops.where(wrap(mask), x, 0.0)
    if unit:
        out = out + wrap(np.eye(rows, cols, dtype=x._data.dtype))
    return out


def _expand(x: TensorBase, batch: tuple) -> TensorBase:
    shape = (*batch, *x.shape[-2:])
    return x if tuple(x.shape) == shape else x.expand(*shape)


def batch_shape(A: TensorBase, B: TensorBase) -> tuple:  # noqa: N803
    """The batch dims (all but the last two) of A and B broadcast together, or PyTorch's error
    for those that do not broadcast (which calls B tensor a, A tensor b)."""
    a_batch, b_batch = tuple(A.shape[:-2]), tuple(B.shape[:-2])
    try:
        return tuple(np.broadcast_shapes(a_batch, b_batch))
    except ValueError:
        rank = max(len(a_batch), len(b_batch))
        for i in range(1, rank + 1):
            size_a = b_batch[-i] if i <= len(b_batch) else 1
            size_b = a_batch[-i] if i <= len(a_batch) else 1
            if size_a != size_b and 1 not in (size_a, size_b):
                raise RuntimeError(f"The size of tensor a ({size_a}) must match the size of "
                                   f"tensor b ({size_b}) at non-singleton dimension "
                                   f"{rank - i}") from None
        raise


def broadcast_batch(A: TensorBase, B: TensorBase) -> tuple[TensorBase, TensorBase]:  # noqa: N803
    """A and B expanded to their common batch dims (expand is differentiable: each gradient is
    summed back to its input's shape)."""
    batch = batch_shape(A, B)
    return _expand(A, batch), _expand(B, batch)


def triangular_system(A: TensorBase, B: TensorBase, lower: bool, unit: bool,  # noqa: N803
                      transpose: bool = False) -> TensorBase:
    """``X`` with ``op(T) X = B`` for T the lower (or upper) triangle of A, with ones on its
    diagonal when ``unit`` (the rest of A is not read), ``op`` the transpose when
    ``transpose``; the batch dims of A and B broadcast. Differentiable in A (its triangle) and
    B; a zero on the diagonal gives LAPACK's inf/NaN, without a gradient."""
    a_full, b_full = broadcast_batch(A, B)
    n = a_full.shape[-1]
    tri = _triangle(a_full, n, n, lower, unit)
    system = tri.mT if transpose else tri
    if _zero_diagonal(system._data):
        return wrap(trsm(system._data, b_full._data, lower != transpose))
    return _solve(system, b_full)


def _no_pivoting(pivot: bool) -> None:
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _factor(A: TensorBase, pivot: bool, check_errors: bool,  # noqa: N803
            op: str) -> LUFactorExResult:
    """``lu_factor_ex``, its singular-matrix error naming ``op``."""
    _no_pivoting(pivot)
    lu_, piv, info = _lu_factor_ex(A, "torch.lu_factor")  # PyTorch's name in its checks
    failure = _first_failure(info._data)
    if check_errors and failure is not None:
        index, i = failure
        raise RuntimeError(f"{op}: {_batch_prefix(info._data, index)}U[{i},{i}] is zero and "
                           "using it on lu_solve would result in a division by zero. If you "
                           "still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LUFactorExResult(lu_, piv, info)


def lu_factor_ex(A: TensorBase, *, pivot: bool = True,  # noqa: N803
                 check_errors: bool = False) -> LUFactorExResult:
    """``(LU, pivots, info)``: L (unit diagonal implied) and U packed in one matrix, the 1-based
    int32 row interchanges and the 1-based index of the first zero pivot (0: none)."""
    return _factor(A, pivot, check_errors, "torch.linalg.lu_factor_ex")


def lu_factor(A: TensorBase, *, pivot: bool = True) -> LUFactorResult:  # noqa: N803
    """``(LU, pivots)`` of ``lu_factor_ex``; a singular matrix raises."""
    lu_, piv, _ = _factor(A, pivot, True, "torch.linalg.lu_factor")
    return LUFactorResult(lu_, piv)


def _unpack(lu_: TensorBase, piv: np.ndarray) -> tuple[TensorBase, TensorBase, TensorBase]:
    m, n = lu_.shape[-2:]
    k = min(m, n)
    lower = _triangle(lu_ if k == n else lu_[..., :, :k], m, k, True, True)
    upper = _triangle(lu_ if k == m else lu_[..., :k, :], k, n, False, False)
    return wrap(permutation_matrix(piv, m, lu_._data.dtype)), lower, upper


def linalg_lu(A: TensorBase, *, pivot: bool = True) -> LUResult:  # noqa: N803
    """``(P, L, U)`` with ``A = P L U``: P a permutation, L unit lower (m x k), U upper
    (k x n); differentiable in L and U for full-rank A."""
    _no_pivoting(pivot)
    lu_, piv, _ = _lu_factor_ex(A, "linalg.lu")
    return LUResult(*_unpack(lu_, piv._data))


@public(method=False)
def lu_unpack(LU_data: TensorBase, LU_pivots: TensorBase, unpack_data: bool = True,  # noqa: N803
              unpack_pivots: bool = True) -> LUUnpackResult:
    """``(P, L, U)`` from ``lu_factor``'s result (the parts not asked for are empty)."""
    lu_, piv = LU_data._data, LU_pivots._data
    if lu_.ndim < 2:
        raise RuntimeError("torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(lu_.shape)} instead")
    m, n = lu_.shape[-2:]
    if unpack_pivots:
        if piv.dtype != np.int32:
            raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor "
                               "of torch.int32 dtype.\nNote: this function is intended to be "
                               "used with the output produced by torch.linalg.lu_factor")
        if piv.shape != (*lu_.shape[:-2], min(m, n)) or ((piv < 1) | (piv > m)).any():
            raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                               "inclusive.Did you properly pass the result of lu_factor?")
    p, lower, upper = _unpack(LU_data, piv if unpack_pivots else
                              np.zeros((*lu_.shape[:-2], 0), np.int32))
    empty = wrap(np.empty((0,), lu_.dtype))
    return LUUnpackResult(p if unpack_pivots else empty, lower if unpack_data else empty,
                          upper if unpack_data else empty)


def _check_lu_solve(lu_: np.ndarray, piv: np.ndarray, b: np.ndarray, left: bool) -> None:
    op = "torch.linalg.lu_solve"
    if lu_.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if lu_.shape[-1] != lu_.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{lu_.shape[-2]} by {lu_.shape[-1]} matrices")
    check_float_matrix(lu_, op)
    if b.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    n = lu_.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError("linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and "
                           f"{b.shape[-2]}x{b.shape[-1]})")
    if b.dtype != lu_.dtype:
        raise RuntimeError("linalg.lu_solve: Expected LU and B to have the same dtype, but found "
                           f"LU of type {torch_dtype_name(lu_.dtype)} and B of type "
                           f"{torch_dtype_name(b.dtype)} instead")
    if piv.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    if piv.ndim < 1 or piv.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if piv.shape != lu_.shape[:-1]:
        raise RuntimeError("linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the "
                           f"same, but got pivots with shape {list(piv.shape)} instead")


def _zero_diagonal(u: np.ndarray) -> bool:
    return bool((np.diagonal(u, axis1=-2, axis2=-1) == 0).any())


def _rows(x: TensorBase, order: np.ndarray) -> TensorBase:
    """x with its row i taken from row ``order[..., i]`` (a gather, not a product with P, so
    that inf/NaN stay in their rows)."""
    index = np.ascontiguousarray(np.broadcast_to(order[..., None], x.shape), np.int64)
    return x.gather(-2, wrap(index))


def _lu_solve_left(lu_: TensorBase, piv: np.ndarray, b: TensorBase,
                   adjoint: bool) -> TensorBase:
    """``A X = B`` (``A^T X = B`` when ``adjoint``) for ``A = P L U`` given packed."""
    n = lu_.shape[-1]
    batch = batch_shape(lu_, b)
    lu_, b = _expand(lu_, batch), _expand(b, batch)
    piv = np.broadcast_to(piv, (*batch, n))
    perm = permutation(piv, n)  # P^T B = B[perm], P Z = Z[argsort(perm)]
    if _zero_diagonal(lu_._data):  # singular: LAPACK's inf/NaN, without a gradient
        if not adjoint:
            return wrap(getrs(lu_._data, piv, b._data))
        lower_t = (np.tril(lu_._data, -1) + np.eye(n, dtype=lu_._data.dtype)).swapaxes(-1, -2)
        upper_t = np.triu(lu_._data).swapaxes(-1, -2)
        z = trsm(lower_t, trsm(upper_t, b._data, True), False)
        return wrap(np.take_along_axis(z, np.argsort(perm, -1)[..., None], axis=-2))
    lower, upper = _triangle(lu_, n, n, True, True), _triangle(lu_, n, n, False, False)
    if adjoint:
        return _rows(_solve(lower.mT, _solve(upper.mT, b)), np.argsort(perm, -1))
    return _solve(upper, _solve(lower, _rows(b, perm)))


def linalg_lu_solve(LU: TensorBase, pivots: TensorBase, B: TensorBase, *, left: bool = True,  # noqa: N803
                    adjoint: bool = False) -> TensorBase:
    """``X`` with ``A X = B`` (``X A = B`` unless ``left``; ``A^T`` for ``adjoint``) from
    ``lu_factor``'s ``(LU, pivots)``; B broadcasts over the batch. Differentiable in LU and
    B."""
    _check_lu_solve(LU._data, pivots._data, B._data, left)
    if left:
        return _lu_solve_left(LU, pivots._data, B, adjoint)
    return _lu_solve_left(LU, pivots._data, B.mT, not adjoint).mT


def _check_solve(a: np.ndarray, b: np.ndarray, op: str) -> None:
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    check_float_matrix(a, op)
    if b.dtype != a.dtype:
        raise RuntimeError(f"{op}: Expected A and B to have the same dtype, but found A of type "
                           f"{torch_dtype_name(a.dtype)} and B of type "
                           f"{torch_dtype_name(b.dtype)} instead")


def _as_matrices(A: TensorBase, B: TensorBase, left: bool,  # noqa: N803
                 op: str) -> tuple[TensorBase, TensorBase, bool]:
    """A and B as a left-hand system ``A' X' = B'`` of equal batch shapes, and whether B was
    a batch of vectors (PyTorch's rule: 1-D, or the shape of A without its last dim)."""
    a, b = A._data, B._data
    _check_solve(a, b, op)
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    bm = B.unsqueeze(-1) if vector else B
    n = a.shape[-1]
    # a vector B is a column, so with left=False (X A = B) it never fits, as in PyTorch
    if bm.ndim < 2 or (bm.shape[-2] if left else bm.shape[-1]) != n or (vector and not left):
        shape = "x".join(str(s) for s in bm.shape[-2:])
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX' if left else 'XA'} = B ({n}x{n} and {shape})")
    am, bm = broadcast_batch(A if left else A.mT, bm if left else bm.mT)
    return am, bm, vector


def _restore(x: TensorBase, left: bool, vector: bool) -> TensorBase:
    x = x if left else x.mT
    return x.squeeze(-1) if vector else x


def linalg_solve(A: TensorBase, B: TensorBase, *, left: bool = True) -> TensorBase:  # noqa: N803
    """``X`` with ``A X = B`` (``X A = B`` unless ``left``); B a batch of vectors or matrices,
    broadcast over A's batch. A singular matrix raises ``LinAlgError``."""
    am, bm, vector = _as_matrices(A, B, left, "linalg.solve")
    try:
        return _restore(_solve(am, bm), left, vector)
    except LinAlgError:  # PyTorch's message names the singular matrix of A's own batch
        info = getrf(A._data)[2]
        failure = _first_failure(info)
        if failure is None:
            raise
        raise LinAlgError(f"torch.linalg.solve: {_batch_prefix(info, failure[0])}The solver "
                          "failed because the input matrix is singular.") from None


def solve_ex(A: TensorBase, B: TensorBase, *, left: bool = True,  # noqa: N803
             check_errors: bool = False) -> SolveExResult:
    """``(result, info)``: ``linalg.solve``'s result and getrf's info per matrix; a singular
    matrix gives info > 0 and LAPACK's inf/NaN result (an error with ``check_errors``)."""
    am, bm, vector = _as_matrices(A, B, left, "linalg.solve")
    # info follows A's own batch shape, not the one broadcast with B's (as PyTorch's)
    lu_, piv, info = getrf(A._data if left else np.swapaxes(A._data, -1, -2))
    failure = _first_failure(info)
    if failure is None:
        result = _solve(am, bm)
    elif check_errors:
        raise LinAlgError(f"torch.linalg.solve_ex: {_batch_prefix(info, failure[0])}The solver "
                          "failed because the input matrix is singular.")
    else:
        batch = tuple(am.shape[:-2])
        result = wrap(getrs(np.broadcast_to(lu_, am.shape), np.broadcast_to(
            piv, (*batch, piv.shape[-1])), bm._data))
    return SolveExResult(_restore(result, left, vector), wrap(info))


@public(method=False)
def lu(A: TensorBase, pivot: bool = True, get_infos: bool = False) -> Any:  # noqa: N803
    """PyTorch's older ``lu``: ``(LU, pivots)``, with ``info`` too for ``get_infos`` (a
    singular matrix does not raise)."""
    lu_, piv, info = lu_factor_ex(A, pivot=pivot)
    return LUWithInfo(lu_, piv, info) if get_infos else (lu_, piv)


def lu_solve(b: TensorBase, LU_data: TensorBase, LU_pivots: TensorBase) -> TensorBase:  # noqa: N803
    """PyTorch's older ``lu_solve``: ``linalg.lu_solve(LU_data, LU_pivots, b)``."""
    return linalg_lu_solve(LU_data, LU_pivots, b)


def triangular_solve(b: TensorBase, A: TensorBase, upper: bool = True,  # noqa: N803
                     transpose: bool = False,
                     unitriangular: bool = False) -> TriangularSolveResult:
    """PyTorch's older ``triangular_solve``: ``(X, A's copy)`` with ``op(A) X = b`` for the
    upper (or lower) triangle of A, ``op`` the transpose when ``transpose``."""
    a, bd = A._data, b._data
    for what, arr in (("b", bd), ("A", a)):
        if arr.ndim < 2:
            raise RuntimeError(f"torch.triangular_solve: Expected {what} to have at least 2 "
                               f"dimensions, but it has {arr.ndim} dimensions instead")
    if bd.dtype != a.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{torch_dtype_name(bd.dtype)} and A of type "
                           f"{torch_dtype_name(a.dtype)} instead.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {a.shape[-2]} "
                           f"by {a.shape[-1]} matrices")
    n = a.shape[-1]
    if bd.shape[-2] != n:
        raise RuntimeError("Incompatible matrix sizes for triangular_solve: each A matrix is "
                           f"{n} by {n} but each b matrix is {bd.shape[-2]} by {bd.shape[-1]}")
    check_float_matrix(a, "torch.triangular_solve")
    x = triangular_system(A, b, not upper, unitriangular, transpose)
    return TriangularSolveResult(x, ops.clone(_expand(A, tuple(x.shape[:-2]))))


def cholesky(input: TensorBase, upper: bool = False) -> TensorBase:
    """PyTorch's older ``cholesky``: the lower Cholesky factor (``upper``: the upper one, read
    from the upper triangle); its errors name ``cholesky``."""
    return _cholesky(input, upper, "cholesky")
