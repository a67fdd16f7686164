"""Eigenvalue problems beyond ``eigh`` (ops/linalg/decompositions.py): ``tl.linalg.eig`` and
``eigvals`` refuse (tinygrad_lite has no complex dtypes, and a general real matrix's eigenvalues
are complex); ``tl.lobpcg`` gives the ``k`` largest (or smallest) eigenpairs of the symmetric
generalized problem ``A x = λ B x``, with ``torch.lobpcg``'s signature, argument checks and result
layout.

PyTorch iterates (LOBPCG, Knyazev 2001) from a random start ``X``. This one is exact rather
than iterative: with ``B = L L^T`` (Cholesky) it takes ``eigh(L^-1 A L^-T) = (w, V)`` and
returns the selected ``w`` with ``X = L^-T V`` (so ``X^T B X = I``, as PyTorch's result). The
eigenvalues agree with PyTorch's to its tolerance; eigenvector signs may differ. Everything is
written with the differentiable ops (cholesky, solve_triangular, eigh), so gradients reach
``A`` and ``B`` (symmetrised first, as PyTorch does). ``iK``, ``niter``, ``tol``, ``method``,
``tracker`` and the ``ortho_*`` dicts steer the iteration and are accepted but not used;
``X`` only fixes ``n`` (the number of pairs computed, of which the first ``k`` are returned).
"""

from __future__ import annotations

from typing import Any, NoReturn

from ..._core.tensor_base import TensorBase
from ...dtypes import float16, float32, float64, is_float_dtype
from ...ops.linalg.decompositions import cholesky, eigh, float_matrix
from ...ops.linalg.inverse import torch_dtype_name
from ..registry import public
from ..shape import flip
from .solve import solve_triangular

__all__ = ["lobpcg"]


@public(method=False)
def lobpcg(A: TensorBase, k: int | None = None, B: TensorBase | None = None,  # noqa: N803
           X: TensorBase | None = None, n: int | None = None,  # noqa: N803
           iK: TensorBase | None = None, niter: int | None = None,  # noqa: N803
           tol: float | None = None, largest: bool | None = None, method: str | None = None,
           tracker: Any = None, ortho_iparams: dict[str, int] | None = None,
           ortho_fparams: dict[str, float] | None = None,
           ortho_bparams: dict[str, bool] | None = None) -> tuple[TensorBase, TensorBase]:
    """``(E, X)``: the ``k`` largest (``largest=False``: smallest) eigenvalues of ``A x = λ B x``
    (``B`` defaults to I), in descending (ascending) order, and their B-orthonormal
    eigenvectors as columns; computed exactly, see the module docstring."""
    if A.shape[-2] != A.shape[-1]:
        raise AssertionError(f"A must be square, got shape {A.shape}")
    if B is not None and A.shape != B.shape:
        raise AssertionError(f"A and B must have same shape, got {A.shape} vs {B.shape}")
    m = A.shape[-1]
    k = (1 if X is None else X.shape[-1]) if k is None else k
    n = (k if n is None else n) if X is None else X.shape[-1]
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m})"
                         f" is smaller than 3 x the number of requested eigenpairs (={n})")
    if X is not None and tuple(X.shape[-2:]) != (m, n):
        raise AssertionError(f"X shape mismatch: got {X.shape}, expected {(m, n)}")
    if A.dtype not in (float16, float32, float64):
        A = A.to(float32)  # noqa: N806
    A = (A + A.mT) / 2  # noqa: N806 - PyTorch symmetrises, so A's gradient is symmetric
    count = min(k, n)
    if B is None:
        w, V = eigh(A)  # noqa: N806
    else:
        B = (B.to(A.dtype) + B.to(A.dtype).mT) / 2  # noqa: N806
        L = cholesky(B)  # noqa: N806
        left = solve_triangular(L, A, upper=False)  # L^-1 A
        C = solve_triangular(L, left.mT, upper=False)  # noqa: N806 - L^-1 A L^-T (symmetric)
        w, V = eigh((C + C.mT) / 2)  # noqa: N806
        V = solve_triangular(L.mT, V, upper=True)  # noqa: N806 - X = L^-T V
    if largest is None or largest:
        w, V = flip(w[..., m - count:], (-1,)), flip(V[..., m - count:], (-1,))  # noqa: N806
    else:
        w, V = w[..., :count], V[..., :count]  # noqa: N806
    return w, V


def _refuse_complex(A: TensorBase, op: str) -> NoReturn:  # noqa: N803
    # PyTorch's input checks first: the complex dtype of the result (none for integers), the
    # shape, then the kernel (none for half precision)
    dtype = A._data.dtype
    if not is_float_dtype(dtype):
        raise RuntimeError(f"Unknown Complex ScalarType for {torch_dtype_name(dtype)}")
    if dtype.itemsize < 4:
        float_matrix(A.to(float32), op, square=True)
        raise NotImplementedError(f'"linalg_eig_out_cpu" not implemented for '
                                  f"'{torch_dtype_name(dtype)}'")
    float_matrix(A, op, square=True)
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
