"""Randomized low-rank SVD and PCA: ``svd_lowrank`` and ``pca_lowrank``, as ``torch._lowrank``.

Halko, Martinsson and Tropp (2009), "Finding structure with randomness": a random Gaussian
sketch ``A @ R`` (``R`` drawn from tl's generator, so ``tl.manual_seed`` makes the result
repeatable), ``niter`` power iterations re-orthonormalised with QR (Algorithm 4.4), then the
exact SVD of the small projection ``Q^H A`` (Algorithm 5.1). Everything is written with the
differentiable ops (matmul, ``linalg.qr``, ``linalg.svd``, mean), so gradients flow to ``A``
(and ``M``) as in PyTorch: well defined where the QR factors have full rank and the singular
values are distinct, e.g. the singular values of an exactly rank-``q`` matrix.

``A`` may be a batch ``(*, m, n)`` (one ``R`` shared by the batch, as PyTorch) or a 2-D sparse
COO tensor (``tl.sparse``), which is only multiplied, never made dense (sparse tensors are
recognised by their ``is_sparse`` attribute: that class lives above this layer).
"""

from __future__ import annotations

from typing import Any

from ..._core.tensor_base import TensorBase
from ...dtypes import float16, float32, float64
from ...ops.linalg.decompositions import qr, svd
from ..basic import matmul
from ..creation import randn
from ..registry import public

__all__ = ["svd_lowrank", "pca_lowrank"]


def _is_sparse(A: Any) -> bool:  # noqa: N803 - PyTorch's argument name
    """Whether ``A`` is a sparse COO tensor (``tl.sparse.SparseTensor``)."""
    return getattr(A, "is_sparse", False) is True and not isinstance(A, TensorBase)


def _floating_dtype(A: Any) -> Any:  # noqa: N803
    """PyTorch's ``_linalg_utils.get_floating_dtype``: the float dtype, integers -> float32."""
    return A.dtype if A.dtype in (float16, float32, float64) else float32


def _mm(A: Any, B: TensorBase) -> TensorBase:  # noqa: N803
    """``A @ B`` for a dense or sparse ``A`` and a dense ``B``."""
    return A.mm(B) if _is_sparse(A) else matmul(A, B)


def _adjoint(A: Any) -> Any:  # noqa: N803
    """The conjugate transpose of the last two dimensions (``t()`` of a sparse matrix)."""
    return A.t() if _is_sparse(A) else A.mH


def _adjoint_mm(basis: TensorBase, A: Any) -> TensorBase:  # noqa: N803
    """``basis^H @ A``, as ``(A^H @ basis)^H`` when ``A`` is sparse (sparse must be the left
    operand)."""
    return _mm(_adjoint(A), basis).mH if _is_sparse(A) else matmul(basis.mH, A)


def _approximate_basis(A: Any, q: int, niter: int | None = 2,  # noqa: N803
                       M: TensorBase | None = None) -> TensorBase:  # noqa: N803
    """``Q`` with ``q`` orthonormal columns such that ``Q Q^H (A - M)`` approximates ``A - M``
    (Halko et al., Algorithm 4.4: randomized subspace iteration)."""
    niter = 2 if niter is None else niter

    def sketch(x: TensorBase) -> TensorBase:
        y = _mm(A, x)
        return y if M is None else y - matmul(M, x)

    def cosketch(x: TensorBase) -> TensorBase:
        y = _mm(_adjoint(A), x)
        return y if M is None else y - matmul(M.mH, x)

    basis = qr(sketch(randn(A.shape[-1], q, dtype=_floating_dtype(A)))).Q
    for _ in range(niter):
        basis = qr(cosketch(basis)).Q
        basis = qr(sketch(basis)).Q
    return basis


def _check_input(A: Any, op: str) -> None:  # noqa: N803
    if not (isinstance(A, TensorBase) or _is_sparse(A)):
        raise TypeError(f"{op}: expected a Tensor or a sparse COO tensor, got "
                        f"{type(A).__name__}")
    if A.ndim < 2:
        raise ValueError(f"{op}: expected a matrix or a batch of matrices (*, m, n), got a "
                         f"tensor of {A.ndim} dimension(s)")
    if _is_sparse(A) and A.ndim != 2:
        raise ValueError(f"{op}: a sparse input is expected to be 2-dimensional")
    if not A.dtype.is_floating_point:
        raise RuntimeError(f"{op}: expected a floating point input, got {A.dtype}")


def _svd_lowrank(A: Any, q: int | None = 6, niter: int | None = 2,  # noqa: N803
                 M: TensorBase | None = None) -> tuple[TensorBase, TensorBase, TensorBase]:  # noqa: N803
    """Halko et al., Algorithm 5.1 (no argument checks)."""
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    mean = None if M is None else M.broadcast_to(tuple(A.shape))
    if m < n:  # work on the tall matrix
        A = _adjoint(A)  # noqa: N806
        mean = None if mean is None else mean.mH
    basis = _approximate_basis(A, q, niter=niter, M=mean)
    small = _adjoint_mm(basis, A)
    if mean is not None:
        small = small - matmul(basis.mH, mean)
    u, s, vh = svd(small, full_matrices=False)
    u = matmul(basis, u)
    return (vh.mH, s, u) if m < n else (u, s, vh.mH)


@public(method=False)
def svd_lowrank(A: Any, q: int | None = 6, niter: int | None = 2,  # noqa: N803
                M: TensorBase | None = None) -> tuple[TensorBase, TensorBase, TensorBase]:  # noqa: N803
    """``(U, S, V)`` with ``A - M ≈ U diag(S) V^H`` of rank ``q``, by randomized subspace
    iteration (``niter`` power steps); batched or 2-D sparse ``A``, differentiable."""
    _check_input(A, "svd_lowrank")
    return _svd_lowrank(A, q=q, niter=niter, M=M)


@public(method=False)
def pca_lowrank(A: Any, q: int | None = None, center: bool = True,  # noqa: N803
                niter: int = 2) -> tuple[TensorBase, TensorBase, TensorBase]:
    """``(U, S, V)``: the low-rank SVD of the column-centred ``A`` (samples x features); ``V``'s
    columns are the principal directions, ``S**2 / (m - 1)`` the variances along them."""
    _check_input(A, "pca_lowrank")
    m, n = A.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter=niter, M=None)
    if _is_sparse(A):  # the mean as M, so that A itself is never made dense
        column_means = A.sum(dim=(-2,)).to_dense() / m
        return _svd_lowrank(A, q, niter=niter, M=column_means.reshape(1, n))
    return _svd_lowrank(A - A.mean(dim=(-2,), keepdim=True), q, niter=niter, M=None)
