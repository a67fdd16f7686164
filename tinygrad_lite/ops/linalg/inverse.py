"""Inverses, determinants and solves over the last two dims (batched): inv, det, slogdet,
solve, pinv (Cholesky is in decompositions.py, cdist's distances in distance.py).

Each backward rule is written with these same ops and matmul, so it is differentiable again:
``d inv(A) = -inv(A)^T g inv(A)^T``; ``d logabsdet(A) = g inv(A)^T``; for ``X = solve(A, B)``
``gB = solve(A^T, g)`` and ``gA = -gB X^T``. A singular input raises
``tl.linalg.LinAlgError``, a RuntimeError, as PyTorch does.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from ..._core.grad_mode import grad_state
from ..._core.graph import Node
from ..._core.tensor_base import TensorBase
from ...dtypes import finfo_of, is_float_dtype, torch_dtype_name
from ..common import is_array, sum_to, swap_last_dims, wrap
from .lapack import getrf, getrs

__all__ = ["LinAlgError", "inv", "det", "slogdet", "solve", "pinv", "torch_dtype_name",
           "low_precision_note", "svd_arrays", "eigh_arrays", "check_square"]


def low_precision_note(dtype: np.dtype) -> str:
    """The reason other linear-algebra errors give for float16, for messages that give none."""
    if is_float_dtype(np.dtype(dtype)) and np.dtype(dtype).itemsize < 4:
        return f" (Low precision dtypes not supported. Got {torch_dtype_name(dtype)})"
    return ""


class LinAlgError(RuntimeError):
    """A linear-algebra failure (singular matrix, not positive-definite, ...)."""


def _square(x: TensorBase, op: str) -> np.ndarray:
    """The array of ``x``, checked as PyTorch checks a square-matrix input; ``op`` is the name
    its messages give (``linalg.inv``, ``logdet``)."""
    a = x._data
    if a.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if not is_float_dtype(a.dtype):
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got "
                           f"{torch_dtype_name(a.dtype)}")
    if a.dtype.itemsize < 4:
        raise RuntimeError(f"{op}: Low precision dtypes not supported. Got "
                           f"{torch_dtype_name(a.dtype)}")
    return a


def check_square(a: np.ndarray, op: str) -> None:
    """PyTorch's error for matrices that are not square, as ``op`` words it."""
    if a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")


def batch_prefix(info: np.ndarray, index: int) -> str:
    """PyTorch's ``(Batch element i): `` before the error of one matrix of a batch."""
    return f"(Batch element {index}): " if info.ndim else ""


def first_failure(info: np.ndarray) -> tuple[int, int] | None:
    """``(batch index, info)`` of the first matrix whose LAPACK info is nonzero."""
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    return (int(bad[0]), int(flat[bad[0]])) if bad.size else None


def _failing_matrix(a: np.ndarray) -> int:
    """The batch index of the first matrix with a NaN or inf entry (0 if none): the one LAPACK
    fails on, as PyTorch names it in its convergence errors."""
    finite = np.isfinite(a.reshape(-1, *a.shape[-2:])).all(axis=(-1, -2))
    bad = np.flatnonzero(~finite)
    return int(bad[0]) if bad.size else 0


def svd_arrays(a: np.ndarray, full_matrices: bool = False, compute_uv: bool = True):
    """NumPy's SVD of a batch of matrices, failing with PyTorch's ``LinAlgError`` (its message
    for non-finite input, naming the batch element) rather than NumPy's."""
    try:
        if not compute_uv:
            return np.linalg.svd(a, compute_uv=False)
        return np.linalg.svd(a, full_matrices=full_matrices)
    except np.linalg.LinAlgError:
        index = _failing_matrix(a)
        prefix = f"(Batch element {index}): " if a.ndim > 2 else ""
        reason = ("the input matrix contained non-finite values." if not np.isfinite(a).all()
                  else "the input matrix is ill-conditioned or has too many repeated singular "
                  "values")
        raise LinAlgError(f"linalg.svd: {prefix}The algorithm failed to converge because "
                          f"{reason}") from None


def eigh_arrays(a: np.ndarray, uplo: str = "L", vectors: bool = True):
    """NumPy's ``eigh`` (``vectors=False``: ``eigvalsh``) of a batch of symmetric matrices,
    failing with PyTorch's ``LinAlgError``: the batch element and LAPACK syevd's error code,
    which for a NaN in the triangle read is n - 1 with eigenvectors and n - 2 without (the
    codes of the LAPACK PyTorch ships)."""
    side: Literal["L", "U"] = "L" if uplo == "L" else "U"
    try:
        return np.linalg.eigh(a, UPLO=side) if vectors else np.linalg.eigvalsh(a, UPLO=side)
    except np.linalg.LinAlgError:
        index = _failing_matrix(a)
        prefix = f"(Batch element {index}): " if a.ndim > 2 else ""
        code = a.shape[-1] - (1 if vectors else 2)
        raise LinAlgError(f"linalg.eigh: {prefix}The algorithm failed to converge because the "
                          "input matrix is ill-conditioned or has too many repeated eigenvalues "
                          f"(error code: {code}).") from None


def _lu_inverse(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(inverse, info)`` as PyTorch's ``linalg.inv_ex`` (``solve(A, I)`` by getrf/getrs):
    info is the 1-based index of the first zero pivot of a singular matrix, whose inverse is
    LAPACK's inf/NaN."""
    lu, piv, info = getrf(a)
    eye = np.broadcast_to(np.eye(a.shape[-1], dtype=a.dtype), a.shape)
    return getrs(lu, piv, eye), info


def _mm(a, b):
    return a @ b


class LinalgInvExBackward0(Node):
    def backward(self, grad):
        y = self.saved_output()
        yt = swap_last_dims(y)
        return (-_mm(_mm(yt, grad), yt),)


def inv_ex(x: TensorBase, op: str = "linalg.inv",
           check_errors: bool = True) -> tuple[TensorBase, np.ndarray]:
    """``(inverse, info)`` of each square matrix; a singular one raises ``LinAlgError`` naming
    its zero pivot (``op`` names the caller), or with ``check_errors=False`` gives info > 0 and
    LAPACK's inf/NaN inverse, as PyTorch's ``linalg.inv_ex``."""
    a = _square(x, op.removesuffix("_ex"))  # PyTorch checks as linalg.inv
    try:
        out, info = np.linalg.inv(a), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:  # the error path: LAPACK's info and inf/NaN inverse
        with np.errstate(all="ignore"):
            out, info = _lu_inverse(a)
        failure = first_failure(info)
        if check_errors and failure is not None:
            index, pivot = failure
            raise LinAlgError(f"{op}: {batch_prefix(info, index)}The diagonal element {pivot} "
                              "is zero, the inversion could not be completed because the input "
                              "matrix is singular.") from None
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out), info
    node = LinalgInvExBackward0(x)
    result = wrap(out, node)
    node.save_output(result)
    return result, info


def inv(x: TensorBase) -> TensorBase:
    """The inverse of each square matrix (a singular one raises ``LinAlgError``)."""
    return inv_ex(x)[0]


def _cofactors(a: np.ndarray) -> np.ndarray:
    """The cofactor matrix of each square matrix (the gradient of its determinant):
    ``det(A) A^-T`` where A is invertible; from the SVD where it is singular,
    ``det(U V^T) U diag(the product of the other singular values) V^T``. (PyTorch's first-order
    rule gives 0 at an exactly singular matrix, a known error of its LU formula: the cofactor
    matrix of ``[[1, 2], [2, 4]]`` is ``[[4, -2], [-2, 1]]``, README's differences.)"""
    with np.errstate(all="ignore"):  # inf/NaN entries give NaN, as PyTorch, without a warning
        return _cofactors_of(a)


def _cofactors_of(a: np.ndarray) -> np.ndarray:
    dets = np.asarray(np.linalg.det(a))
    out = np.empty_like(a)
    singular = dets == 0
    if (~singular).any():
        regular = a[~singular]
        out[~singular] = dets[~singular][..., None, None] * np.swapaxes(np.linalg.inv(regular),
                                                                         -1, -2)
    if singular.any():
        u, s, vt = np.linalg.svd(a[singular])
        ones = np.ones_like(s[..., :1])
        before = np.cumprod(np.concatenate([ones, s[..., :-1]], -1), -1)
        after = np.cumprod(np.concatenate([ones, s[..., :0:-1]], -1), -1)[..., ::-1]
        sign = np.linalg.det(u) * np.linalg.det(vt)
        out[singular] = sign[..., None, None] * ((u * (before * after)[..., None, :]) @ vt)
    return out


class LinalgDetBackward0(Node):
    """The cofactor matrix (see ``_cofactors``), finite for singular matrices; under
    ``create_graph`` the recorded rule is ``det(A) A^-T`` (invertible matrices)."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        if is_array(x) and is_array(grad):
            return (grad[..., None, None] * _cofactors(x),)
        d = det(x).unsqueeze(-1).unsqueeze(-1)
        return (grad.unsqueeze(-1).unsqueeze(-1) * d * swap_last_dims(inv(x)),)


def det(x: TensorBase) -> TensorBase:
    """The determinant of each square matrix (the product of its LU factors' diagonal)."""
    a = _square(x, "linalg.det")
    with np.errstate(all="ignore"):  # inf/NaN entries: NaN as PyTorch, without a warning
        out = np.asarray(np.linalg.det(a), a.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = LinalgDetBackward0(x)
    node.save_for_backward(x)
    return wrap(out, node)


def _inverse_transpose_scaled(a: np.ndarray, g: np.ndarray) -> np.ndarray:
    """``g * A^-T`` as PyTorch's first-order ``slogdet_backward`` computes it (getrs on the
    LU of ``A^T`` with ``diag(g)``): a singular matrix gives LAPACK's inf/NaN, not an error."""
    try:
        return g[..., None, None] * np.swapaxes(np.linalg.inv(a), -1, -2)
    except np.linalg.LinAlgError:
        at = np.swapaxes(a, -1, -2)
        lu, piv, _ = getrf(at)
        diag = g[..., None, None] * np.eye(a.shape[-1], dtype=a.dtype)
        with np.errstate(all="ignore"):
            return getrs(lu, piv, np.broadcast_to(diag, a.shape).astype(a.dtype))


class LinalgSlogdetBackward0(Node):
    """``g_logabsdet * A^-T`` (the sign has no gradient for real input)."""

    def backward(self, grad_sign, grad_logabs):
        (x,) = self.saved_tensors
        if grad_logabs is None:
            return (None,)
        if is_array(x) and is_array(grad_logabs):
            return (_inverse_transpose_scaled(x, np.asarray(grad_logabs)),)
        inverse_t = swap_last_dims(np.linalg.inv(x) if is_array(x) else inv(x))
        g = grad_logabs[..., None, None] if is_array(grad_logabs) else \
            grad_logabs.unsqueeze(-1).unsqueeze(-1)
        return (g * inverse_t,)


def slogdet(x: TensorBase, op: str = "linalg.slogdet") -> tuple[TensorBase, TensorBase]:
    """``(sign, log|det|)`` of each square matrix (sign 0 and -inf when singular); ``op``
    names the caller in errors."""
    a = _square(x, op)
    with np.errstate(invalid="ignore"):  # inf/NaN entries: NaN as PyTorch, without a warning
        sign, logabs = np.linalg.slogdet(a)
    sign, logabs = np.asarray(sign, a.dtype), np.asarray(logabs, a.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(sign), wrap(logabs)
    node = LinalgSlogdetBackward0(x)
    node.n_outputs = 2
    node._direct = False
    node.save_for_backward(x)
    s, lg = wrap(sign, node), wrap(logabs, node)
    lg._output_nr = 1
    return s, lg


class LinalgSolveExBackward0(Node):
    vector: bool  # B was a batch of vectors

    def backward(self, grad):
        a, b = self.saved_tensors
        x = self.saved_output()
        vector = self.vector
        g = grad[..., None] if vector else grad
        xm = x[..., None] if vector else x
        at = swap_last_dims(a)
        gb = np.linalg.solve(at, g) if is_array(a) else solve(at, g)
        ga = -_mm(gb, swap_last_dims(xm))
        ea, eb = self.next_edges
        gb_out = gb[..., 0] if vector else gb
        # broadcast batch dims: each gradient summed back to its input's shape
        return (sum_to(ga, tuple(a.shape)) if ea else None,
                sum_to(gb_out, tuple(b.shape)) if eb else None)


def solve(a: TensorBase, b: TensorBase) -> TensorBase:
    """``X`` with ``A X = B``: ``B`` a batch of vectors (1-D, or A's shape without its last dim,
    PyTorch's rule) or of matrices; the batch dims of A and B broadcast."""
    am = _square(a, "linalg.solve")
    bm = b._data
    vector = bm.ndim == 1 or (bm.ndim == am.ndim - 1 and bm.shape == am.shape[:-1])
    try:
        out = np.linalg.solve(am, bm[..., None] if vector else bm)
    except np.linalg.LinAlgError:
        raise LinAlgError("linalg.solve: The solver failed because the input matrix is "
                          "singular.") from None
    except ValueError as err:
        raise RuntimeError(f"linalg.solve: incompatible shapes {am.shape} and {bm.shape} "
                           f"({err})") from None
    out = out[..., 0] if vector else out
    if not (grad_state.enabled and (a._requires_grad or b._requires_grad)):
        return wrap(out)
    node = LinalgSolveExBackward0(a, b)
    node.vector = vector
    node.save_for_backward(a, b)
    result = wrap(out, node)
    node.save_output(result)
    return result


class LinalgPinvBackward0(Node):
    def backward(self, grad):
        # PyTorch's pinv_backward: matmuls of A, pinv(A) and the gradient only, so defined at
        # any rank (constant-rank perturbations) and differentiable again
        (a,) = self.saved_tensors
        p = self.saved_output()
        m, n = a.shape[-2], a.shape[-1]
        ph, gh = swap_last_dims(p), swap_last_dims(grad)
        if m <= n:
            k = gh @ p
            kph = k @ ph
            return (-swap_last_dims(p @ k) + kph - (a @ p) @ kph + (ph @ p) @ (gh - k @ a),)
        k = p @ gh
        phk = ph @ k
        return (-swap_last_dims(k @ p) + (gh - a @ k) @ p @ ph + phk - (phk @ p) @ a,)


def _tolerance(value, dtype: np.dtype) -> np.ndarray:
    """A tolerance (float or tensor, one per matrix) as an array that broadcasts over a batch
    of singular values (a trailing 1)."""
    arr = np.asarray(value._data if isinstance(value, TensorBase) else value, dtype)
    return arr[..., None]


def pinv(x: TensorBase, *, atol=None, rtol=None, hermitian: bool = False) -> TensorBase:
    """The pseudo-inverse, dropping singular values <= ``max(atol, rtol * largest)``."""
    # with ``hermitian``, |eigenvalues| of the lower triangle stand for the singular values
    a = x._data
    if a.ndim < 2 or not is_float_dtype(a.dtype) or a.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.pinv({torch_dtype_name(a.dtype)}{{{list(a.shape)}}}): "
                           "expected a tensor with 2 or more dimensions of float, double, "
                           "cfloat or cdouble types" + low_precision_note(a.dtype))
    m, n = a.shape[-2:]
    default_rtol = np.asarray(finfo_of(a.dtype).eps * max(m, n), a.dtype)
    atol_ = _tolerance(0.0 if atol is None else atol, a.dtype)
    if rtol is not None:
        rtol_ = _tolerance(rtol, a.dtype)
    elif atol is not None:  # PyTorch: an explicit atol > 0 alone turns the relative one off
        rtol_ = np.where(atol_ > 0, np.zeros((), a.dtype), default_rtol)
    else:
        rtol_ = default_rtol
    if a.size == 0:  # PyTorch's empty result comes before its squareness check for hermitian
        out = np.zeros((*a.shape[:-2], n, m), a.dtype)
    elif hermitian:  # PyTorch reads the lower triangle
        check_square(a, "linalg.eigh")
        lam, vec = eigh_arrays(a)
        tol = np.maximum(atol_, rtol_ * np.abs(lam).max(-1, keepdims=True))
        with np.errstate(divide="ignore"):
            inv_lam = np.where(np.abs(lam) > tol, 1.0 / lam, 0.0).astype(a.dtype)
        out = (vec * inv_lam[..., None, :]) @ vec.swapaxes(-1, -2)
    else:
        u, s, vh = svd_arrays(a)
        with np.errstate(divide="ignore"):
            tol = np.maximum(atol_, rtol_ * s[..., :1])
            inv_s = np.where(s > tol, 1.0 / s, 0.0).astype(a.dtype)
        out = ((u * inv_s[..., None, :]) @ vh).swapaxes(-1, -2)
    out = np.ascontiguousarray(out, a.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = LinalgPinvBackward0(x)
    node.save_for_backward(x)
    result = wrap(out, node)
    node.save_output(result)
    return result


# -- cdist's direct path --------------------------------------------------------------------


