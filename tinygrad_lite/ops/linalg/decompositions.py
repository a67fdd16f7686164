"""Matrix decompositions with PyTorch's backward rules: cholesky, eigh, svd, qr (batched over
leading dims).

Each rule is written with matmul, elementwise ops, constant masks and ``solve``, so it works on
arrays (first order) and on tensors (``create_graph``: second order). The saved outputs come
back attached to their node under create_graph, and the eigen/singular-value gaps are built
from them, so the rules are differentiable in everything they use. Conditions, as PyTorch's:

- eigh: ``V (diag(gL) + skew(V^T gV)/2 / E) V^T`` with ``E_ij = L_j - L_i``: finite only for
  distinct eigenvalues when the eigenvectors' gradient is used (eigenvalues alone: always).
- svd: PyTorch's ``svd_backward`` (``E_ij = S_j^2 - S_i^2``; the ``(I - UU^T) gU S^-1`` term for
  tall, ``S^-1 gV^T (I - VV^T)`` for wide inputs): distinct, nonzero singular values when the
  singular vectors' gradients are used; ``full_matrices=True`` differentiates the first k
  columns, as PyTorch does.
- qr: ``gA = (gQ + Q copyltu(M)) R^-T`` with ``M = R gR^T - gQ^T Q`` for m >= n (reduced), and
  the split ``A = [X | Y]`` for m < n; R must be invertible (full rank). ``mode='r'`` and
  ``mode='complete'`` with m > n are not differentiable (PyTorch refuses them too).

``cholesky`` (``L = cholesky(A)``): the symmetric ``L^-T Phi(L^T gL) L^-1`` (Phi: the lower
triangle with its diagonal halved); a matrix that is not positive-definite raises
``tl.linalg.LinAlgError``.
"""

from __future__ import annotations

import numpy as np

from ..._core.grad_mode import grad_state
from ..._core.graph import Node
from ..._core.tensor_base import TensorBase
from ...dtypes import is_float_dtype
from .. import return_types
from ..common import constant, is_array, swap_last_dims, wrap
from ..shape import cat
from .inverse import (
    LinAlgError,
    _mm,
    _square,
    check_square,
    eigh_arrays,
    inv,
    solve,
    svd_arrays,
    torch_dtype_name,
)

__all__ = ["eigh", "svd", "qr", "EighResult", "SVDResult", "QRResult", "float_matrix", "cholesky",
           "cholesky_ex", "eigh_input"]

# tl.return_types.linalg_eigh & co (torch.return_types): fields by name, printed as PyTorch's
EighResult = return_types.linalg_eigh
SVDResult = return_types.linalg_svd
QRResult = return_types.linalg_qr


def float_matrix(x: TensorBase, op: str, square: bool = False) -> np.ndarray:
    """The array of ``x``, checked as PyTorch checks a decomposition's input."""
    a = x._data
    if a.ndim < 2:
        raise RuntimeError(f"linalg.{op}: The input tensor A must have at least 2 dimensions.")
    if square and a.shape[-1] != a.shape[-2]:
        raise RuntimeError(f"linalg.{op}: A must be batches of square matrices, but they are "
                           f"{a.shape[-2]} by {a.shape[-1]} matrices")
    if not is_float_dtype(a.dtype):
        raise RuntimeError(f"linalg.{op}: Expected a floating point or complex tensor as input. "
                           f"Got {torch_dtype_name(a.dtype)}")
    if a.dtype.itemsize < 4:
        raise RuntimeError(f"linalg.{op}: Low precision dtypes not supported. Got "
                           f"{torch_dtype_name(a.dtype)}")
    return a


def _record(node: Node, outs: list[np.ndarray]) -> tuple:
    """The outputs of a several-output node, also saved for its rule."""
    # saved as plain tensors sharing the outputs' version counters: holding the outputs would
    # make a reference cycle (out -> grad_fn -> out); the shared counters catch in-place edits
    node.n_outputs = len(outs)
    node._direct = False
    results, plain = [], []
    for i, arr in enumerate(outs):
        t = wrap(arr, node)
        t._output_nr = i
        p = wrap(arr)
        p._version_counter = t._version_counter
        results.append(t)
        plain.append(p)
    node.save_for_backward(*plain)
    return tuple(results)


def _outputs(node: Node) -> tuple:
    """The saved outputs: arrays in a plain backward, else tensors attached to ``node``."""
    # attached again under create_graph, so that the second order flows through the node
    saved = node.saved_tensors
    if is_array(saved[0]):
        return saved
    outs = []
    for i, t in enumerate(saved):
        o = wrap(t._data, node)
        o._output_nr = i
        outs.append(o)
    return tuple(outs)


def _dtype(x) -> np.dtype:
    return x.dtype if is_array(x) else x._data.dtype


def _eye(n: int, like):
    return constant(np.eye(n, dtype=_dtype(like)), like)


def _row(v):
    """``v[..., None, :]``: a batch of vectors as rows, for broadcasting over matrices."""
    return v.reshape((*v.shape[:-1], 1, v.shape[-1]))


def _col(v):
    """``v[..., :, None]``."""
    return v.reshape((*v.shape, 1))


def _diag_embed(v, like):
    return _col(v) * _eye(v.shape[-1], like)


def _inverse_gaps(v):
    """``1 / (v_j - v_i)`` off the diagonal, 0 on it (equal values: inf, as PyTorch's)."""
    # an expression in v, not a constant: the second order differentiates it
    n = v.shape[-1]
    eye = np.eye(n, dtype=_dtype(v))
    gaps = _row(v) - _col(v) + constant(eye, v)  # 1 on the diagonal: no 0/0 there
    return (1.0 / gaps) * constant(1.0 - eye, v)


def _solve(a, b):
    return np.linalg.solve(a, b) if is_array(a) else solve(a, b)


# -- eigh ---------------------------------------------------------------------------------------


class LinalgEighBackward0(Node):
    def backward(self, grad_l, grad_v):
        lam, vec = _outputs(self)
        vt = swap_last_dims(vec)
        middle = None
        if grad_v is not None:
            vtgv = vt @ grad_v
            middle = 0.5 * (vtgv - swap_last_dims(vtgv)) * _inverse_gaps(lam)
        if grad_l is not None:
            d = _diag_embed(grad_l, vec)
            middle = d if middle is None else middle + d
        if middle is None:
            return (None,)
        return (vec @ middle @ vt,)


def eigh_input(x: TensorBase, UPLO: str) -> tuple[np.ndarray, str]:  # noqa: N803
    """The array of ``x`` and the triangle to read ('L' or 'U'), checked in PyTorch's order:
    dims, squareness, UPLO (either case), then the dtype (its kernel's NotImplementedError for
    integers)."""
    a = x._data
    if a.ndim < 2:
        raise RuntimeError("linalg.eigh: The input tensor A must have at least 2 dimensions.")
    check_square(a, "linalg.eigh")
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not is_float_dtype(a.dtype):
        raise NotImplementedError(f'"linalg_eigh_cpu" not implemented for '
                                  f"'{torch_dtype_name(a.dtype)}'")
    return float_matrix(x, "eigh", square=True), UPLO.upper()


def eigh(x: TensorBase, UPLO: str = "L") -> EighResult:  # noqa: N803
    """Eigenvalues (ascending) and orthonormal eigenvectors (columns) of symmetric matrices."""
    a, uplo = eigh_input(x, UPLO)
    lam, vec = eigh_arrays(a, uplo)
    lam, vec = lam.astype(a.dtype, copy=False), vec.astype(a.dtype, copy=False)
    if not (grad_state.enabled and x._requires_grad):
        return EighResult(wrap(lam), wrap(vec))
    return EighResult(*_record(LinalgEighBackward0(x), [lam, vec]))


# -- svd ----------------------------------------------------------------------------------------


class LinalgSvdBackward0(Node):
    full_matrices: bool

    def backward(self, grad_u, grad_s, grad_vh):
        u, s, vh = _outputs(self)
        m, n = u.shape[-2], vh.shape[-1]
        k = s.shape[-1]
        if self.full_matrices:  # differentiate the first k singular vectors, as PyTorch
            u, vh = u[..., :, :k], vh[..., :k, :]
            grad_u = None if grad_u is None else grad_u[..., :, :k]
            grad_vh = None if grad_vh is None else grad_vh[..., :k, :]
        if grad_u is None and grad_vh is None:  # svdvals: defined even for repeated values
            if grad_s is None:
                return (None,)
            return ((u * _row(grad_s)) @ vh,)
        ut, v = swap_last_dims(u), swap_last_dims(vh)
        inv_e = _inverse_gaps(s * s)
        ga = None
        if grad_u is not None:
            utgu = ut @ grad_u
            ga = (utgu - swap_last_dims(utgu)) * inv_e * _row(s)
        if grad_vh is not None:
            vtgv = vh @ swap_last_dims(grad_vh)
            term = _col(s) * ((vtgv - swap_last_dims(vtgv)) * inv_e)
            ga = term if ga is None else ga + term
        if grad_s is not None:
            ga = ga + _diag_embed(grad_s, s)
        if m > k and grad_u is not None:  # tall: the part of gU outside span(U)
            gu_sinv = grad_u / _row(s)
            ga = (u @ ga + gu_sinv - u @ (ut @ gu_sinv)) @ vh
        elif n > k and grad_vh is not None:  # wide: the part of gVh outside span(V)
            sinv_gvh = grad_vh / _col(s)
            ga = u @ (ga @ vh + sinv_gvh - (sinv_gvh @ v) @ vh)
        else:
            ga = u @ ga @ vh
        return (ga,)


def svd(x: TensorBase, full_matrices: bool = True, driver: str | None = None) -> SVDResult:
    """``U, S, Vh`` with ``A = U diag(S) Vh``, singular values descending. ``driver`` picks a
    cuSOLVER routine in PyTorch: on CPU any value other than None is refused, as there."""
    a = float_matrix(x, "svd")
    if driver is not None:
        raise RuntimeError("torch.linalg.svd: keyword argument `driver=` is only supported on "
                           "CUDA inputs with cuSOLVER backend.")
    u, s, vh = svd_arrays(a, full_matrices)
    u, s, vh = (t.astype(a.dtype, copy=False) for t in (u, s, vh))
    if not (grad_state.enabled and x._requires_grad):
        return SVDResult(wrap(u), wrap(s), wrap(vh))
    node = LinalgSvdBackward0(x)
    node.full_matrices = full_matrices
    return SVDResult(*_record(node, [u, s, vh]))


# -- qr -----------------------------------------------------------------------------------------


def _qr_tall_backward(q, r, grad_q, grad_r):
    """The m >= n rule: ``(gQ + Q copyltu(M)) R^-T`` with ``M = R gR^T - gQ^T Q``."""
    n = r.shape[-1]
    m_ = 0.0
    if grad_r is not None:
        m_ = r @ swap_last_dims(grad_r)
    if grad_q is not None:
        m_ = m_ - swap_last_dims(grad_q) @ q
    strict = m_ * constant(np.tril(np.ones((n, n), _dtype(r)), -1), r)
    b = q @ (strict + swap_last_dims(strict) + m_ * _eye(n, r))
    if grad_q is not None:
        b = b + grad_q
    return swap_last_dims(_solve(r, swap_last_dims(b)))  # b R^-T = (R^-1 b^T)^T


class LinalgQrBackward0(Node):
    mode: str

    def backward(self, grad_q, grad_r):
        if self.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        q, r = _outputs(self)
        m, n = q.shape[-2], r.shape[-1]
        if self.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when mode='complete' "
                               "and nrows > ncols.")
        if grad_q is None and grad_r is None:
            return (None,)
        if m >= n:
            return (_qr_tall_backward(q, r, grad_q, grad_r),)
        # wide: A = [X | Y] with X square, R = [U | V]: X = Q U (a square QR) and Y = Q V
        u, v = r[..., :, :m], r[..., :, m:]
        gu = None if grad_r is None else grad_r[..., :, :m]
        gv = None if grad_r is None else grad_r[..., :, m:]
        gq = grad_q
        if gv is not None:  # V = Q^T Y also moves with Q
            extra = (q @ v) @ swap_last_dims(gv)
            gq = extra if gq is None else gq + extra
        gx = _qr_tall_backward(q, u, gq, gu)
        shape = (*q.shape[:-1], n - m)
        gy = q @ gv if gv is not None else constant(np.zeros(shape, _dtype(q)), q)
        if is_array(gx):
            return (np.concatenate([gx, gy], axis=-1),)
        return (cat([gx, gy], -1),)


def qr(x: TensorBase, mode: str = "reduced") -> QRResult:
    """``Q, R`` with ``A = Q R``, Q orthonormal columns and R upper triangular."""
    a = float_matrix(x, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    q, r = np.linalg.qr(a, mode="complete" if mode == "complete" else "reduced")
    q, r = q.astype(a.dtype, copy=False), r.astype(a.dtype, copy=False)
    q_out = np.empty((0,), a.dtype) if mode == "r" else q  # PyTorch's empty Q for mode='r'
    if not (grad_state.enabled and x._requires_grad):
        return QRResult(wrap(q_out), wrap(r))
    node = LinalgQrBackward0(x)
    node.mode = mode
    return QRResult(*_record(node, [q_out, r]))


class LinalgCholeskyExBackward0(Node):
    def backward(self, grad):
        lower = self.saved_output()
        if is_array(lower):
            linv = np.linalg.inv(lower)
            phi = np.tril(swap_last_dims(lower) @ grad)
            diag = np.einsum("...ii->...i", phi)
            phi = phi - 0.5 * (diag[..., None] * np.eye(lower.shape[-1], dtype=lower.dtype))
        else:
            linv = inv(lower)
            s = _mm(swap_last_dims(lower), grad)
            eye = wrap(np.eye(lower.shape[-1], dtype=lower._data.dtype))
            mask = wrap(np.tril(np.ones(lower.shape[-2:], lower._data.dtype)))
            phi = s * mask - 0.5 * s * eye
        ga = _mm(_mm(swap_last_dims(linv), phi), linv)
        return (0.5 * (ga + swap_last_dims(ga)),)


def _potf2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK's unblocked potf2 (lower) over a batch, for the error path: ``(L, info)`` with
    info the order of the first leading minor that is not positive-definite (0 if none) and,
    for such a matrix, L factored up to that column, as PyTorch's ``cholesky_ex`` returns it."""
    *batch, n, _ = a.shape
    count = int(np.prod(batch, dtype=np.int64))
    out = np.array(a, copy=True).reshape(count, n, n)
    info = np.zeros(count, np.int32)
    with np.errstate(all="ignore"):
        for j in range(n):
            active = info == 0
            row = out[:, j, :j]
            ajj = out[:, j, j] - np.einsum("bk,bk->b", row, row)
            failed = active & ~(ajj > 0)  # NaN fails too
            info[failed] = j + 1
            out[failed, j, j] = ajj[failed]
            ok = active & ~failed
            root = np.sqrt(np.where(ok, ajj, 1))
            out[ok, j, j] = root[ok]
            below = (out[:, j + 1:, j] - (out[:, j + 1:, :j] @ row[..., None])[..., 0]) \
                / root[:, None]
            out[ok, j + 1:, j] = below[ok]
    return np.tril(out).reshape(a.shape), info.reshape(batch)


def cholesky_ex(x: TensorBase, upper: bool = False, op: str = "linalg.cholesky",
                check_errors: bool = True) -> tuple[TensorBase, np.ndarray]:
    """``(L, info)``: the lower Cholesky factor of each symmetric positive-definite matrix, read
    from its lower triangle (``upper``: the upper factor, read from the upper triangle, as
    PyTorch). A matrix that is not positive-definite raises ``LinAlgError`` naming the order of
    its failing leading minor (``op`` names the caller), or with ``check_errors=False`` gives
    that order as info and LAPACK's partial factor."""
    a = _square(x, op.removesuffix("_ex"))  # PyTorch checks as linalg.cholesky
    if upper:  # the upper factor of A is the transposed lower factor of A^T
        x = x.mT
        a = np.swapaxes(a, -1, -2)
    try:
        out, info = np.linalg.cholesky(a), np.zeros(a.shape[:-2], np.int32)
    except np.linalg.LinAlgError:  # the error path: LAPACK's info and partial factor
        out, info = _potf2(a)
        flat = info.reshape(-1)
        bad = np.flatnonzero(flat)
        if check_errors and bad.size:
            prefix = f"(Batch element {bad[0]}): " if info.ndim else ""
            raise LinAlgError(f"{op}: {prefix}The factorization could not be completed because "
                              "the input is not positive-definite (the leading minor of order "
                              f"{flat[bad[0]]} is not positive-definite).") from None
    if not (grad_state.enabled and x._requires_grad):
        result = wrap(out)
    else:
        node = LinalgCholeskyExBackward0(x)
        result = wrap(out, node)
        node.save_output(result)
    return (result.mT if upper else result), info


def cholesky(x: TensorBase, upper: bool = False, op: str = "linalg.cholesky") -> TensorBase:
    """The lower Cholesky factor of each symmetric positive-definite matrix (``upper``: the
    upper factor); one that is not positive-definite raises ``LinAlgError``."""
    return cholesky_ex(x, upper, op)[0]
