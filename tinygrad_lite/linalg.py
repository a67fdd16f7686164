"""``tl.linalg``: PyTorch's ``torch.linalg`` names over ``functions/linalg.py`` and the
primitives of ``ops/linalg.py``. Gradients exist wherever the matrix is invertible (and, for
cholesky, symmetric positive-definite). Not here yet: eigh/eigvalsh, svd/svdvals, qr, pinv,
lstsq, matrix_rank and the nuclear/2-norm of matrices (they need decompositions with their own
backward rules)."""

from .functions.basic import matmul
from .functions.linalg import (
    cholesky_ex,
    det,
    diagonal,
    inv_ex,
    linalg_cross,
    matrix_norm,
    matrix_power,
    multi_dot,
    norm,
    slogdet,
    solve_triangular,
    vecdot,
    vector_norm,
)
from .ops.linalg import LinAlgError, cholesky, inv, solve

cross = linalg_cross

__all__ = ["LinAlgError", "inv", "inv_ex", "det", "slogdet", "solve", "solve_triangular",
           "cholesky", "cholesky_ex", "norm", "vector_norm", "matrix_norm", "matrix_power",
           "multi_dot", "cross", "vecdot", "matmul", "diagonal"]
