"""QR as Householder reflections: ``tl.linalg.householder_product`` (and ``tl.orgqr``) and
``tl.ormqr`` apply them, ``tl.geqrf`` computes them (LAPACK's packed result).

householder_product and ormqr are composites (reflections applied with matmul, cumprod), so
their gradients, first and second order, come for free. geqrf is a NumPy kernel PyTorch does
not differentiate either: backward through it raises NotImplementedError."""

from __future__ import annotations

import numpy as np

from ... import ops
from ..._core.tensor_base import TensorBase, wrap
from ...ops import return_types
from ...ops.linalg.inverse import torch_dtype_name
from ...ops.linalg.lu import check_float_matrix, not_differentiable

__all__ = ["geqrf", "orgqr", "ormqr"]

# tl.return_types (torch.return_types): fields by name, printed as PyTorch's
GeqrfResult = return_types.geqrf


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


# -- LDL^T ----------------------------------------------------------------------------------------


# -- eig ------------------------------------------------------------------------------------------


