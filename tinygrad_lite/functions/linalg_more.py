"""More of ``tl.linalg``: householder_product (and ``tl.orgqr``/``ormqr``/``geqrf``), cond,
tensorinv, tensorsolve, vander, the LDL^T factorisation and solve, and eig/eigvals.

The differentiable ones are composites (Householder reflections applied with matmul, svdvals,
matrix norms, inv, solve, cumprod), so their gradients, first and second order, come for free.
geqrf and the LDL^T functions are NumPy kernels PyTorch does not differentiate either: backward
through them raises NotImplementedError. eig and eigvals refuse: tinygrad_lite has no complex
dtypes, and a general real matrix's eigenvalues are complex."""

from __future__ import annotations

import math
from typing import Any, NoReturn

import numpy as np

from .. import ops
from .._core.tensor_base import TensorBase, wrap
from ..dtypes import is_float_dtype
from ..ops import return_types
from ..ops.linalg.decompositions import float_matrix, svd
from ..ops.linalg.inverse import LinAlgError, inv, torch_dtype_name
from ..ops.linalg.ldl import sytrf, sytrs
from ..ops.linalg.lu import check_float_matrix, getrf, not_differentiable
from ..ops.shape import cat
from .linalg import matrix_norm
from .linalg_lu import linalg_solve
from .reduction import cumprod

__all__ = ["geqrf", "orgqr", "ormqr"]

# tl.return_types (torch.return_types): fields by name, printed as PyTorch's
GeqrfResult = return_types.geqrf
LDLFactorResult = return_types.linalg_ldl_factor
LDLFactorExResult = return_types.linalg_ldl_factor_ex


# -- Householder reflections ----------------------------------------------------------------------


def _reflector(A: TensorBase, i: int) -> TensorBase:  # noqa: N803
    """The Householder vector stored in column i of A: 1 at row i, A's entries below it."""
    m = A.shape[-2]
    below = wrap((np.arange(m) > i)[:, None])
    unit = wrap((np.arange(m) == i)[:, None].astype(A._data.dtype))
    return ops.where(below, A[..., :, i:i + 1], 0.0) + unit


def _reflect(C: TensorBase, v: TensorBase, tau: TensorBase, left: bool) -> TensorBase:  # noqa: N803
    """``H C`` (``C H`` unless ``left``) for ``H = I - tau v v^T``."""
    if left:
        return C - (tau * v) @ (v.mT @ C)
    return C - (C @ v) @ (tau * v.mT)


def _tau(tau: TensorBase, i: int) -> TensorBase:
    return tau[..., i:i + 1].unsqueeze(-1)


def _check_tau(A: TensorBase, tau: TensorBase, op: str) -> None:  # noqa: N803
    if tau.ndim != A.ndim - 1:
        raise RuntimeError(f"{op}: Expected tau to have one dimension less than input, but got "
                           f"tau.ndim equal to {tau.ndim} and input.ndim is equal to {A.ndim}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")


def householder_product(A: TensorBase, tau: TensorBase) -> TensorBase:  # noqa: N803
    """The first n columns of ``H_1 ... H_k`` (``H_i = I - tau_i v_i v_i^T``, v_i stored below
    the diagonal of column i of A, m x n with m >= n >= k); differentiable in A and tau."""
    op = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    if m < n:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if tau.ndim >= 1 and n < tau.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    _check_tau(A, tau, op)
    if tau._data.dtype != A._data.dtype:
        raise RuntimeError(f"{op}: tau dtype {torch_dtype_name(tau._data.dtype)} does not match "
                           f"input dtype {torch_dtype_name(A._data.dtype)}")
    check_float_matrix(A._data, op)
    eye = np.eye(m, n, dtype=A._data.dtype)
    q = wrap(np.array(np.broadcast_to(eye, (*A.shape[:-2], m, n))))
    for i in reversed(range(tau.shape[-1])):
        q = _reflect(q, _reflector(A, i), _tau(tau, i), True)
    return q


def orgqr(input: TensorBase, tau: TensorBase) -> TensorBase:
    """PyTorch's older name of ``linalg.householder_product``."""
    return householder_product(input, tau)


def ormqr(input: TensorBase, tau: TensorBase, other: TensorBase, left: bool = True,
          transpose: bool = False) -> TensorBase:
    """``Q C`` (``C Q`` unless ``left``; ``Q^T`` for ``transpose``) with ``Q = H_1 ... H_k`` the
    full m x m product of geqrf's reflectors; differentiable in all three."""
    op = "torch.ormqr"
    for what, t in (("input", input), ("other", other)):
        if t.ndim < 2:
            raise RuntimeError(f"{op}: {what} must have at least 2 dimensions.")
    side = -2 if left else -1
    m = input.shape[-2]
    if other.shape[side] != m:
        raise RuntimeError(f"{op}: other.shape[{side}] must be equal to input.shape[-2]")
    if tau.ndim < 1 or tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"{op}: tau.shape[-1] must be equal to min(other.shape[{side}], "
                           "input.shape[-1])")
    _check_tau(input, tau, op)
    if other.ndim != input.ndim:
        raise RuntimeError(f"{op}: Expected other to have the same number of dimensions as "
                           f"input, but got other.ndim equal to {other.ndim} and input.ndim is "
                           f"equal to {input.ndim}")
    if tuple(other.shape[:-2]) != tuple(input.shape[:-2]):
        raise RuntimeError(f"{op}: Expected batch dimensions of other to be equal to "
                           f"input.shape[:-2], but got {list(other.shape[:-2])}")
    dtype = input._data.dtype
    for what, t in (("tau", tau), ("other", other)):
        if t._data.dtype != dtype:
            raise RuntimeError(f"{op}: Expected input and {what} to have the same dtype, but "
                               f"input has dtype{torch_dtype_name(dtype)} and {what} has dtype "
                               f"{torch_dtype_name(t._data.dtype)}")
    check_float_matrix(input._data, op)
    # Q C = H_1 (H_2 (... H_k C)); Q^T C = H_k (... H_1 C); C Q = ((C H_1) H_2) ...
    order = list(range(tau.shape[-1]))
    if left != transpose:
        order.reverse()
    out = other
    for i in order:
        out = _reflect(out, _reflector(input, i), _tau(tau, i), left)
    return out


def geqrf(input: TensorBase) -> GeqrfResult:
    """LAPACK geqrf: ``(a, tau)``, R on and above a's diagonal and the Householder vectors
    below it (not differentiable, as in PyTorch)."""
    a = input._data
    if a.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    check_float_matrix(a, "torch.geqrf")
    h, tau = np.linalg.qr(a, mode="raw")  # h is LAPACK's column-major result, transposed
    out = [np.ascontiguousarray(h.swapaxes(-1, -2), a.dtype), tau.astype(a.dtype)]
    return GeqrfResult(*not_differentiable("geqrf", "GeqrfBackward0", [input], out))


# -- cond, tensorinv, tensorsolve, vander ---------------------------------------------------------


def _require_square(a: np.ndarray, op: str) -> None:
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def _inverse_or_inf(A: TensorBase) -> TensorBase:  # noqa: N803
    """``inv(A)``, inf-filled for the singular matrices of the batch (PyTorch's inv_ex)."""
    a = A._data
    check_float_matrix(a, "linalg.inv")
    singular = getrf(a)[2] > 0
    if not singular.any():
        return inv(A)
    flags = wrap(singular[..., None, None])
    safe = ops.where(flags, wrap(np.eye(a.shape[-1], dtype=a.dtype)), A)
    return ops.where(flags, math.inf, inv(safe))


def cond(A: TensorBase, p: Any = None) -> TensorBase:  # noqa: N803
    """The condition number in the ``p`` norm (default 2: largest over smallest singular
    value; 'fro', 'nuc', +-1, +-inf need square matrices, and a singular one gives inf)."""
    a = A._data
    if a.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    ord_ = 2 if p is None else p
    if isinstance(ord_, str):
        if ord_ not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {ord_}")
        _require_square(a, f"linalg.cond(ord={ord_})")
    else:
        if abs(ord_) not in (1, 2, math.inf):
            raise RuntimeError(f"linalg.cond got an invalid norm type: {float(ord_):g}")
        if abs(ord_) != 2:
            text = f"{ord_:f}" if isinstance(ord_, float) else str(ord_)
            _require_square(a, f"linalg.cond(ord={text})")
    if a.size == 0:  # NumPy leaves it undefined; PyTorch returns 0
        return wrap(np.zeros(a.shape[:-2], a.dtype if is_float_dtype(a.dtype) else np.float32))
    if ord_ in (2, -2, "nuc"):
        s = svd(A, full_matrices=False).S
        if ord_ == "nuc":
            return s.sum(-1) * (1.0 / s).sum(-1)
        largest, smallest = s[..., 0], s[..., -1]
        return largest / smallest if ord_ == 2 else smallest / largest
    result = matrix_norm(A, ord_) * matrix_norm(_inverse_or_inf(A), ord_)
    undefined = np.isnan(result._data)  # 0 * inf: inf, as PyTorch
    return ops.where(wrap(undefined), math.inf, result) if undefined.any() else result


def tensorinv(A: TensorBase, ind: int = 2) -> TensorBase:  # noqa: N803
    """The inverse of A for ``tensordot(A, X, ind)``: shape ``A.shape[ind:] + A.shape[:ind]``."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    end, start = tuple(A.shape[ind:]), tuple(A.shape[:ind])
    rows, cols = math.prod(end), math.prod(start)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {rows} != {cols}")
    return inv(A.reshape(rows, cols)).reshape(*end, *start)


def tensorsolve(A: TensorBase, B: TensorBase, dims: Any = None) -> TensorBase:  # noqa: N803
    """X with ``tensordot(A, X, X.ndim) = B`` (``dims``: A's dims moved to the end first)."""
    if dims is not None:  # the dims in ``dims`` moved to the end, in that order
        moved = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)  # noqa: N806
    result_shape = tuple(A.shape[B.ndim:])
    rows, cols = math.prod(B.shape), math.prod(result_shape)
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[other.ndim:])"
                           f" == prod(self.shape[:other.ndim]), but got {cols} != {rows}")
    return linalg_solve(A.reshape(rows, cols), B.reshape(rows)).reshape(*result_shape)


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


# -- LDL^T ----------------------------------------------------------------------------------------


def _ldl(A: TensorBase, check_errors: bool, op: str) -> LDLFactorExResult:  # noqa: N803
    """``ldl_factor_ex``, its singular-D error naming ``op``."""
    checks = "torch.linalg.ldl_factor_ex"  # PyTorch's name in its checks
    a = A._data
    if a.ndim < 2:
        raise RuntimeError(f"{checks}: The input tensor A must have at least 2 dimensions.")
    _require_square(a, checks)
    check_float_matrix(a, checks)
    ld, piv, info = sytrf(a)  # hermitian or not: the same for real matrices
    bad = np.flatnonzero(info.reshape(-1))
    if check_errors and bad.size:
        i = int(info.reshape(-1)[bad[0]])
        where = f"(Batch element {bad[0]}): " if info.ndim else ""
        raise LinAlgError(f"{op}: {where}The factorization could not be completed because the "
                          f"block diagonal matrix D is singular (D[{i},{i}] is zero).")
    (ld_t,) = not_differentiable("linalg_ldl_factor_ex", "NotImplemented", [A], [ld])
    return LDLFactorExResult(ld_t, wrap(piv), wrap(info))


def ldl_factor_ex(A: TensorBase, *, hermitian: bool = False,  # noqa: N803
                  check_errors: bool = False) -> LDLFactorExResult:
    """``(LD, pivots, info)``: LAPACK sytrf's Bunch-Kaufman factorisation ``A = P L D L^T P^T``
    of the lower triangle; info > 0 where D is singular (not differentiable, as PyTorch)."""
    return _ldl(A, check_errors, "torch.linalg.ldl_factor_ex")


def ldl_factor(A: TensorBase, *, hermitian: bool = False) -> LDLFactorResult:  # noqa: N803
    """``(LD, pivots)`` of ``ldl_factor_ex``; a singular D raises."""
    ld, piv, _ = _ldl(A, True, "torch.linalg.ldl_factor")
    return LDLFactorResult(ld, piv)


def ldl_solve(LD: TensorBase, pivots: TensorBase, B: TensorBase, *,  # noqa: N803
              hermitian: bool = False) -> TensorBase:
    """``X`` with ``A X = B`` from ``ldl_factor``'s ``(LD, pivots)``; B broadcasts over the
    batch (not differentiable, as PyTorch)."""
    op = "torch.linalg.ldl_solve"
    ld, piv, b = LD._data, pivots._data, B._data
    for what, arr in (("LD", ld), ("B", b)):
        if arr.ndim < 2:
            raise RuntimeError(f"{op}: The input tensor {what} must have at least 2 dimensions.")
    _require_square(ld, op)
    n = ld.shape[-1]
    if b.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {op}: each A matrix is {n} by {n} "
                           f"but each b matrix is {b.shape[-2]} by {b.shape[-1]}")
    if b.dtype != ld.dtype:
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type "
                           f"{torch_dtype_name(b.dtype)} and A of type "
                           f"{torch_dtype_name(ld.dtype)} instead.")
    check_float_matrix(ld, op)
    if piv.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: Expected pivots to be integers. Got "
                           f"{torch_dtype_name(piv.dtype)}")
    if piv.shape != ld.shape[:-1]:
        raise RuntimeError(f"{op}: Expected LD.shape[:-1] and pivots.shape to be the same, but "
                           f"got pivots with shape {list(piv.shape)} instead")
    batch = tuple(np.broadcast_shapes(ld.shape[:-2], b.shape[:-2]))
    x = sytrs(np.broadcast_to(ld, (*batch, n, n)), np.broadcast_to(piv, (*batch, n)),
              np.broadcast_to(b, (*batch, *b.shape[-2:])))
    return not_differentiable("linalg_ldl_solve", "NotImplemented", [LD, B], [x])[0]


# -- eig ------------------------------------------------------------------------------------------


def _refuse_complex(A: TensorBase, op: str) -> NoReturn:  # noqa: N803
    float_matrix(A, op, square=True)  # PyTorch's input checks first
    raise NotImplementedError(
        f"linalg.{op}: complex tensors are not supported by tinygrad_lite, and the eigenvalues "
        "and eigenvectors of a general real matrix are complex (PyTorch returns them as "
        "complex64/complex128). For a symmetric matrix use linalg.eigh or linalg.eigvalsh.")


def eig(A: TensorBase) -> tuple:  # noqa: N803
    """Not supported: raises NotImplementedError (a RuntimeError), as complex tensors are not."""
    _refuse_complex(A, "eig")


def eigvals(A: TensorBase) -> TensorBase:  # noqa: N803
    """Not supported: raises NotImplementedError (a RuntimeError), as complex tensors are not."""
    _refuse_complex(A, "eigvals")
