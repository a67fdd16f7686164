"""The LDL^T factorisation of symmetric matrices and its solve: tl.linalg.ldl_factor(_ex) and
ldl_solve over the NumPy kernels of ops/linalg/ldl.py; not differentiable (nor in PyTorch)."""

from __future__ import annotations

import numpy as np

from ..._core.tensor_base import TensorBase, wrap
from ...ops import return_types
from ...ops.linalg.inverse import LinAlgError, torch_dtype_name
from ...ops.linalg.ldl import sytrf, sytrs
from ...ops.linalg.lu import check_float_matrix, not_differentiable
from .solve import _require_square

__all__: list[str] = []  # tl.linalg names only (tinygrad_lite/linalg.py)


LDLFactorResult = return_types.linalg_ldl_factor


LDLFactorExResult = return_types.linalg_ldl_factor_ex


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
