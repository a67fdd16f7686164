"""``tl.linalg``: PyTorch's ``torch.linalg`` names over the modules of ``functions/linalg/`` and
the primitives of ``ops/linalg/``, plus the composites only this namespace has (svdvals,
eigvalsh, pinv, matrix_rank, lstsq). Gradients exist wherever
PyTorch has them: the matrix invertible (cholesky: symmetric positive-definite; qr, lu: full
rank), and distinct eigenvalues / distinct nonzero singular values when eigen/singular vectors
are used. ``matrix_exp`` is the primitive of ``ops/matrix_exp.py`` (also ``tl.matrix_exp``).
The LDL^T functions are not differentiable (nor are they in PyTorch). ``eig`` and ``eigvals``
raise NotImplementedError: tinygrad_lite has no complex dtypes, and they return complex
tensors."""

from typing import Any

import numpy as np

from ._core.tensor_base import TensorBase, wrap
from .dtypes import finfo_of, is_float_dtype
from .functions.basic import matmul
from .functions.linalg.decompositions import cholesky_ex
from .functions.linalg.eigen import eig, eigvals
from .functions.linalg.householder import householder_product
from .functions.linalg.inverse import det, inv_ex, linalg_slogdet
from .functions.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve
from .functions.linalg.lu import linalg_lu as lu
from .functions.linalg.lu import linalg_lu_solve as lu_solve
from .functions.linalg.lu import linalg_solve as solve
from .functions.linalg.lu import lu_factor, lu_factor_ex, solve_ex
from .functions.linalg.matrices import diagonal, vander
from .functions.linalg.norms import cond, matrix_norm, norm, vector_norm
from .functions.linalg.products import linalg_cross, matrix_power, multi_dot, vecdot
from .functions.linalg.solve import solve_triangular, tensorinv, tensorsolve
from .ops.linalg.decompositions import cholesky, eigh, eigh_input, qr, svd
from .ops.linalg.inverse import (
    LinAlgError,
    check_square,
    eigh_arrays,
    inv,
    low_precision_note,
    svd_arrays,
    torch_dtype_name,
)
from .ops.linalg.inverse import pinv as _pinv
from .ops.matrix_exp import matrix_exp
from .ops.return_types import linalg_lstsq

cross = linalg_cross
slogdet = linalg_slogdet

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "solve_triangular",
           "cholesky", "cholesky_ex", "norm", "vector_norm", "matrix_norm", "matrix_power",
           "multi_dot", "cross", "vecdot", "matmul", "diagonal", "eigh", "eigvalsh", "svd",
           "svdvals", "qr", "pinv", "matrix_rank", "lstsq", "matrix_exp", "lu", "lu_factor",
           "lu_factor_ex", "lu_solve", "solve_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
           "householder_product", "cond", "tensorinv", "tensorsolve", "vander", "eig", "eigvals"]

LstsqResult = linalg_lstsq  # torch.return_types.linalg_lstsq
_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def svdvals(A: TensorBase, *, driver: str | None = None) -> TensorBase:  # noqa: N803
    """The singular values, descending (differentiable even when some are repeated)."""
    return svd(A, full_matrices=False, driver=driver).S


def eigvalsh(A: TensorBase, UPLO: str = "L") -> TensorBase:  # noqa: N803
    """The eigenvalues of symmetric matrices, ascending."""
    a, uplo = eigh_input(A, UPLO)
    if not np.isfinite(a).all():  # LAPACK without eigenvectors fails with its own error code
        eigh_arrays(a, uplo, vectors=False)
    return eigh(A, UPLO).eigenvalues


def _mixed_tolerances(op: str, old: str, given: dict[str, Any]) -> None:
    """PyTorch's TypeError for the older tolerance (``old``: rcond, tol) given with atol/rtol:
    no overload of ``op`` takes both."""
    names = [name for name, value in given.items() if value is not None]
    if old in names and len(names) > 1:
        got = ", ".join(f"{name}=float" for name in names)
        raise TypeError(f"{op}() received an invalid combination of arguments - got (Tensor, "
                        f"{got}), but expected one of:\n"
                        " * (Tensor input, *, Tensor atol = None, Tensor rtol = None, bool "
                        "hermitian = False, Tensor out = None)\n"
                        " * (Tensor input, *, float atol = None, float rtol = None, bool "
                        "hermitian = False, Tensor out = None)\n"
                        f" * (Tensor input, Tensor {old}, bool hermitian = False, *, Tensor out "
                        "= None)\n"
                        f" * (Tensor input, float {old}, bool hermitian = False, *, Tensor out "
                        "= None)\n")


def pinv(A: TensorBase, rcond: Any = None, hermitian: bool = False, *,  # noqa: N803
         atol: Any = None, rtol: Any = None) -> TensorBase:
    """The pseudo-inverse, dropping singular values <= ``max(atol, rtol * largest)``."""
    # rcond: PyTorch's older name of rtol, an overload of its own (not combined with atol/rtol)
    _mixed_tolerances("linalg_pinv", "rcond", {"rcond": rcond, "atol": atol, "rtol": rtol})
    return _pinv(A, atol=atol, rtol=rtol if rcond is None else rcond, hermitian=hermitian)


def _tolerances(a: np.ndarray, atol: Any, rtol: Any) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's (atol, rtol) per matrix: rtol defaults to eps * max(m, n), or to 0 where an
    explicit atol is positive."""
    def arr(v: Any) -> np.ndarray:
        return np.asarray(v._data if isinstance(v, TensorBase) else v, a.dtype)

    default = np.asarray(finfo_of(a.dtype).eps * max(a.shape[-2:]), a.dtype)
    atol_ = arr(0.0 if atol is None else atol)
    if rtol is not None:
        return atol_, arr(rtol)
    return atol_, np.where(atol_ > 0, 0.0, default) if atol is not None else default


def matrix_rank(A: TensorBase, tol: Any = None, hermitian: bool = False, *,  # noqa: N803
                atol: Any = None, rtol: Any = None) -> TensorBase:
    """The number of singular values above ``max(atol, rtol * largest)``, as int64."""
    # hermitian: |eigenvalues| stand for singular values; tol: the older overload's atol
    _mixed_tolerances("linalg_matrix_rank", "tol", {"tol": tol, "atol": atol, "rtol": rtol})
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least "
                           "2 dimensions.")
    a = A._data
    if not is_float_dtype(a.dtype) or a.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double"
                           + low_precision_note(a.dtype))
    atol_, rtol_ = _tolerances(a, atol if tol is None else tol, rtol)
    if a.size == 0:  # rank 0, before PyTorch's squareness check for hermitian
        return wrap(np.zeros(a.shape[:-2], np.int64))
    if hermitian:
        check_square(a, "linalg.eigh")
        values = np.abs(eigh_arrays(a, vectors=False))
    else:
        values = svd_arrays(a, compute_uv=False)
    largest = values.max(-1)
    threshold = np.maximum(atol_, rtol_ * largest)
    return wrap((values > threshold[..., None]).sum(-1).astype(np.int64))


def lstsq(A: TensorBase, B: TensorBase, rcond: float | None = None, *,  # noqa: N803
          driver: str | None = None) -> LstsqResult:
    """``(solution, residuals, rank, singular_values)`` of ``min ||A X - B||`` per driver."""
    # the fields a driver does not compute are empty, as PyTorch's on CPU
    a, b = A._data, B._data
    if a.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if b.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if not is_float_dtype(a.dtype) or a.dtype.itemsize < 4:
        raise RuntimeError("This function doesn't handle types other than float and double"
                           + low_precision_note(a.dtype))
    if a.dtype != b.dtype:
        raise RuntimeError("torch.linalg.lstsq: Expected input and other to have the same dtype, "
                           f"but got input's dtype {torch_dtype_name(a.dtype)} and other's dtype "
                           f"{torch_dtype_name(b.dtype)}")
    if not (a.ndim >= b.ndim and a.ndim - b.ndim <= 1):
        raise RuntimeError("torch.linalg.lstsq: input.dim() must be greater or equal to "
                           "other.dim() and (input.dim() - other.dim()) <= 1")
    vector = b.ndim == a.ndim - 1
    if (b.shape[-1] if vector else b.shape[-2]) != a.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    driver = "gelsy" if driver is None else driver  # PyTorch's default on CPU
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")
    m, n = a.shape[-2:]
    if rcond is None or rcond < 0:
        rcond = float(finfo_of(a.dtype).eps) * max(m, n)
    # X = pinv(A) B: the minimum-norm solution the rank-revealing drivers give, and exactly the
    # gradient PyTorch's lstsq backward defines (through pinv; residuals, rank: none)
    bm = B.unsqueeze(-1) if vector else B
    solution = _pinv(A, rtol=0.0 if driver == "gels" else rcond) @ bm
    empty = wrap(np.empty((0,), a.dtype))
    rank, sv = wrap(np.empty((0,), np.int64)), empty
    if driver != "gels":
        rank = matrix_rank(A, rtol=rcond)
    if driver in ("gelsd", "gelss"):
        sv = wrap(svd_arrays(a, compute_uv=False))
    residuals = empty
    # PyTorch fills residuals for tall A, except with gelsy, and (gelsd/gelss) at full rank
    if m > n and driver != "gelsy" and (driver == "gels" or bool((rank._data == n).all())):
        residuals = ((A @ solution - bm) ** 2).sum(-2)
    if vector:  # the residuals keep their trailing 1, as PyTorch's
        solution = solution.squeeze(-1)
    return LstsqResult(solution, residuals, rank, sv)
