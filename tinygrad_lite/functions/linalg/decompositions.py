"""PyTorch's older decompositions over the primitives of ops/linalg/decompositions.py: svd
(V, not Vh; some=), qr (some=) and tl.linalg.cholesky_ex."""

from __future__ import annotations

import numpy as np

from ..._core.tensor_base import TensorBase, wrap
from ...ops import return_types
from ...ops.linalg import decompositions

__all__ = ["svd", "qr"]


# tl.return_types.svd / qr of the older functions (V, not Vh), as torch.return_types'
OldSVDResult = return_types.svd


OldQRResult = return_types.qr


def cholesky_ex(A: TensorBase, *, upper: bool = False,  # noqa: N803
                check_errors: bool = False) -> return_types.linalg_cholesky_ex:
    """``(L, info)``: info is 0, or for a matrix that is not positive-definite the order of its
    failing leading minor, with LAPACK's partial factor (``check_errors``: ``LinAlgError``)."""
    factor, info = decompositions.cholesky_ex(A, upper, "linalg.cholesky_ex", check_errors)
    return return_types.linalg_cholesky_ex(factor, wrap(info))


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
