"""The ``orthogonal`` parametrization of ``nn.utils.parametrizations``: an orthogonal matrix
(or batch) from a free one by the matrix exponential or the Cayley map of its skew-symmetric
part, or by a product of Householder reflections; with the default trivialization the value at
registration is kept in the buffer ``base`` and the free matrix starts at "-identity". The maps
are written in tensor ops (so gradients reach the free matrix); the one-off decompositions of
``right_inverse`` run in NumPy."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ...dtypes import finfo_of
from ...functions import creation as _creation
from ...ops.linalg.inverse import solve as linalg_solve
from ...tensor import Tensor
from ..modules.module import Module

__all__ = ["matrix_exp", "householder_product", "Orthogonal", "MAPS"]

MAPS = ("matrix_exp", "cayley", "householder")


def matrix_exp(a: TensorBase) -> TensorBase:
    """``exp(a)`` of square matrices by scaling and squaring a degree-18 Taylor polynomial."""
    n = a.shape[-1]
    norm = float(np.abs(a._data).sum(-2).max()) if a._data.size else 0.0
    squarings = max(0, math.ceil(math.log2(norm / 0.5))) if norm > 0.5 else 0
    b = a / float(2 ** squarings)
    eye = wrap(np.broadcast_to(np.eye(n, dtype=a._data.dtype), a.shape).copy())
    result = eye
    for k in range(18, 0, -1):  # Horner: I + b/1 (I + b/2 (I + ... ))
        result = eye + (b @ result) / float(k)
    for _ in range(squarings):
        result = result @ result
    return result


def householder_product(a: TensorBase, tau: TensorBase) -> TensorBase:
    """The first k columns of ``H_1 ... H_k``, ``H_i = I - tau_i v_i v_i^T`` with ``v_i`` the
    i-th column of ``a`` below the diagonal and 1 on it (LAPACK's ``orgqr``)."""
    n, k = a.shape[-2], a.shape[-1]
    dt = a._data.dtype
    q: Any = wrap(np.broadcast_to(np.eye(n, dtype=dt), (*a.shape[:-2], n, n)).copy())
    rows = np.arange(n)
    for i in reversed(range(k)):  # apply H_k first to the identity: Q = H_1 (H_2 (... H_k))
        below = wrap((rows > i).astype(dt))
        unit = wrap((rows == i).astype(dt))
        v = a[..., :, i] * below + unit  # (..., n)
        vq = (v.unsqueeze(-1) * q).sum(-2)  # v^T Q: (..., n)
        q = q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * v.unsqueeze(-1) * vq.unsqueeze(-2)
    return q[..., :, :k]


def _make_orthogonal(a: np.ndarray) -> np.ndarray:
    """The Q of the QR decomposition with a positive diagonal of R."""
    q, r = np.linalg.qr(a)
    sign = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    return q * np.where(sign == 0, 1, sign)[..., None, :]


def _is_orthogonal(q: np.ndarray) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    eps = 10 * n * finfo_of(q.dtype).eps
    return bool(np.allclose(np.swapaxes(q, -2, -1).conj() @ q, np.eye(k), atol=eps))


class Orthogonal(Module):
    """The parametrization module (PyTorch's ``_Orthogonal``)."""

    def __init__(self, weight: Tensor, orthogonal_map: str, *, use_trivialization: bool = True
                 ) -> None:
        super().__init__()
        if weight._data.dtype.kind == "c" and orthogonal_map == "householder":
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = tuple(weight.shape)
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def _trivialized(self) -> bool:
        return "base" in self._buffers

    def forward(self, x: Any) -> Any:
        """The orthogonal matrix (times ``base`` with the trivialization)."""
        n, k = x.shape[-2], x.shape[-1]
        transposed = n < k
        q: Any
        if transposed:
            x = x.transpose(-2, -1)
            n, k = k, n
        if self.orthogonal_map in ("matrix_exp", "cayley"):
            x = x.tril()
            if n != k:
                x = _fn.cat([x, x.new_zeros(*x.shape[:-2], n, n - k)], dim=-1)
            a = x - x.transpose(-2, -1)
            if self.orthogonal_map == "matrix_exp":
                q = matrix_exp(a)
            else:  # (I - A/2)^{-1} (I + A/2)
                eye = wrap(np.eye(n, dtype=x._data.dtype))
                q = linalg_solve(eye - a * 0.5, eye + a * 0.5)
            if n != k:
                q = q[..., :k]
        else:
            a = x.tril(-1)
            tau = 2.0 / (1.0 + (a * a).sum(-2))
            q = householder_product(a, tau)
            # the signs on the diagonal of x (not differentiated, as PyTorch's int cast)
            signs = np.trunc(np.diagonal(x._data, axis1=-2, axis2=-1))
            q = q * wrap(signs[..., None, :].astype(x._data.dtype))
        if self._trivialized():
            q = self.base @ q
        if transposed:
            q = q.transpose(-2, -1)
        return q

    def right_inverse(self, q: Tensor) -> Any:
        """Assigning an orthogonal matrix: with the trivialization it becomes ``base`` and the
        free matrix is -identity; else (householder only) its Householder QR factors."""
        if tuple(q.shape) != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {tuple(q.shape)}.")
        data = np.asarray(q._data)
        n, k = data.shape[-2], data.shape[-1]
        transposed = n < k
        if transposed:
            data = np.swapaxes(data, -2, -1)
            n, k = k, n
        if not self._trivialized():
            if self.orthogonal_map != "householder":
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            h, tau = np.linalg.qr(data, mode="raw")
            a = np.swapaxes(h, -2, -1).copy()
            diag = np.sign(np.diagonal(a, axis1=-2, axis2=-1)).copy()
            diag[tau == 0] *= -1
            idx = np.arange(k)
            a[..., idx, idx] = diag
            a = np.swapaxes(a, -2, -1) if transposed else a
            return Tensor._wrap(np.ascontiguousarray(a).astype(q._data.dtype))
        if n == k:
            base = data.copy() if _is_orthogonal(data) else _make_orthogonal(data)
        else:  # complete the columns to a square orthogonal matrix
            rng = _creation.default_rng()
            extra = rng.standard_normal((*data.shape[:-1], n - k)).astype(data.dtype)
            base = _make_orthogonal(np.concatenate([data, extra], axis=-1))
        self.base = Tensor._wrap(np.ascontiguousarray(base).astype(q._data.dtype))
        neg_id = np.zeros(q.shape, q._data.dtype)
        idx = np.arange(min(q.shape[-2], q.shape[-1]))
        neg_id[..., idx, idx] = -1.0
        return Tensor._wrap(neg_id)
