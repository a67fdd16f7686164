"""matrix_exp: the exponential of each square matrix (batched), a primitive.

The forward is scaling and squaring with the [13/13] Padé approximant (Higham 2005, the
algorithm of ``scipy.linalg.expm``), computed in float64 whatever the input dtype and rounded
once at the end. The backward uses the block-matrix identity: the adjoint of the Fréchet
derivative at ``A`` applied to ``G`` is the top-right block of ``exp([[A^T, G], [0, A^T]])``.
It calls matrix_exp again (on tensors under create_graph), so it is differentiable to any order.
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import is_array, swap_last_dims, wrap
from .linalg.inverse import torch_dtype_name
from .movement import getitem
from .shape import cat

__all__ = ["matrix_exp", "expm_array"]

# The [13/13] Padé coefficients b_0..b_13 and the 1-norm up to which it is accurate to float64
# rounding (Higham 2005, table 2.3); larger matrices are scaled by 2^-s first.
_PADE13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0,
           129060195264000.0, 10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0,
           40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def expm_array(a: np.ndarray) -> np.ndarray:
    """``exp`` of each matrix of a ``(..., n, n)`` array, as float64."""
    work = np.asarray(a, dtype=np.float64)
    if work.size == 0:
        return work.copy()
    n = work.shape[-1]
    with np.errstate(all="ignore"):  # NaN/inf entries give NaN/inf results, as in PyTorch
        norm = np.abs(work).sum(axis=-2).max(axis=-1)
        steps = np.ceil(np.log2(norm / _THETA13))
    squarings = np.where(np.isfinite(steps), np.maximum(steps, 0), 0).astype(np.int64)
    b = _PADE13
    eye = np.eye(n)
    with np.errstate(all="ignore"):
        x = work / np.ldexp(1.0, squarings)[..., None, None]
        x2 = x @ x
        x4 = x2 @ x2
        x6 = x4 @ x2
        u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2)
                 + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
        v = (x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2)
             + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye)
        try:
            r = np.linalg.solve(v - u, v + u)
        except np.linalg.LinAlgError:  # only with non-finite entries: NaN, as PyTorch gives
            r = np.full(work.shape, np.nan)
        for k in range(int(squarings.max())):  # each matrix squared its own number of times
            r = np.where((squarings > k)[..., None, None], r @ r, r)
    return r


def _check(a: np.ndarray) -> None:
    if a.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they "
                           f"are {a.shape[-2]} by {a.shape[-1]} matrices")
    if not is_float_dtype(a.dtype):
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as "
                           f"input. Got {torch_dtype_name(a.dtype)}")


class LinalgMatrixExpBackward0(Node):
    def backward(self, grad):
        (x,) = self.saved_tensors
        n = x.shape[-1]
        xt = swap_last_dims(x)
        if is_array(grad):
            block = np.zeros(grad.shape[:-2] + (2 * n, 2 * n))
            block[..., :n, :n] = xt
            block[..., n:, n:] = xt
            block[..., :n, n:] = grad
            return (expm_array(block)[..., :n, n:].astype(grad.dtype),)
        zeros = wrap(np.zeros(xt.shape, xt._data.dtype))
        block = cat([cat([xt, grad], -1), cat([zeros, xt], -1)], -2)
        return (getitem(matrix_exp(block), (Ellipsis, slice(None, n), slice(n, None))),)


def matrix_exp(x: TensorBase) -> TensorBase:
    """``exp(A) = sum_k A^k / k!`` of each square matrix of ``x`` (``(..., n, n)``)."""
    a = x._data
    _check(a)
    out = expm_array(a).astype(a.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = LinalgMatrixExpBackward0(x)
    node.save_for_backward(x)
    return wrap(out, node)
