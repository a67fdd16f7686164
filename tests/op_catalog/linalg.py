"""Catalogue rows of the linear algebra: first and second order gradients through inv, det,
slogdet, solve, cholesky, pinv, eigh, svd, qr, the LU family (lu, lu_factor, lu_unpack,
lu_solve), solve_ex, triangular_solve, householder_product, ormqr, cond, tensorinv/tensorsolve,
matrix_exp and the composites on them.

Eigen- and singular vectors are defined up to sign, so their rows check a sign-invariant function
of them (abs, or U f(S) Vh), as PyTorch's own gradchecks do; symmetric inputs are made as
``a + a^T``. The LU references are written independently of the package (a plain
partial-pivoting loop for LU, explicit reflector products for Householder). Random normal
matrices have distinct pivots, so the pivot order is locally constant and finite differences see
a smooth function. PyTorch refuses these in float16 (``NO_FLOAT16``): they must raise."""

import numpy as np

import tinygrad_lite as tl
from op_catalog.registry import NO_FLOAT16, row


def _well(a):
    """A well-conditioned matrix from a random one."""
    return a + 3 * tl.eye(a.shape[-1], dtype=a.dtype)


def _np_well(a):
    return a + 3 * np.eye(a.shape[-1])


def _spd(a):
    return a @ a.mT + 2 * tl.eye(a.shape[-1], dtype=a.dtype)


def _np_spd(a):
    return a @ np.swapaxes(a, -1, -2) + 2 * np.eye(a.shape[-1])


def _np_t(a):
    return np.swapaxes(a, -1, -2)


def _svd_mix(a):
    """U exp(S) Vh (the sign of each singular pair cancels) plus |U| |Vh|."""
    u, s, vh = tl.linalg.svd(a, full_matrices=False)
    return (u * s.exp().unsqueeze(-2)) @ vh + u.abs() @ vh.abs()


def _np_svd_mix(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * np.exp(s)[..., None, :]) @ vh + np.abs(u) @ np.abs(vh)


def _eigh_mix(a):
    lam, vec = tl.linalg.eigh(a + a.mT)
    return vec.abs() * lam.unsqueeze(-2)


def _np_eigh_mix(a):
    lam, vec = np.linalg.eigh(a + _np_t(a))
    return np.abs(vec) * lam[..., None, :]


def _qr_mix(a):
    q, r = tl.linalg.qr(a)
    return q @ r.sin()


def _np_qr_mix(a):
    q, r = np.linalg.qr(a)
    return q @ np.sin(r)


def _old_svd(a):
    u, s, v = tl.svd(a, some=True)
    return u.abs() @ (v.abs() * s.unsqueeze(-2)).mT


def _np_old_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return np.abs(u) @ (np.abs(vh) * s[..., :, None])


def _np_lu_one(a):
    """``(P, L, U)`` of one matrix by Doolittle's loop with partial pivoting."""
    m, n = a.shape
    k = min(m, n)
    u, perm = a.astype(np.float64).copy(), np.arange(m)
    lower = np.zeros((m, k))
    for j in range(k):
        p = j + int(np.argmax(np.abs(u[j:, j])))
        u[[j, p]], lower[[j, p]], perm[[j, p]] = u[[p, j]], lower[[p, j]], perm[[p, j]]
        lower[j + 1:, j] = u[j + 1:, j] / u[j, j]
        u[j + 1:] -= np.outer(lower[j + 1:, j], u[j])
    lower[:k, :k] += np.eye(k)
    p_mat = np.zeros((m, m))
    p_mat[perm, np.arange(m)] = 1
    return p_mat, lower, np.triu(u[:k])


def _np_lu(a):
    """``(P, L, U)`` over a batch."""
    flat = a.reshape(-1, *a.shape[-2:])
    parts = [_np_lu_one(x) for x in flat]
    return [np.stack([p[i] for p in parts]).reshape(*a.shape[:-2], *parts[0][i].shape)
            for i in range(3)]


def _np_packed(a):
    _, lower, upper = _np_lu(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    out = np.zeros(a.shape)
    out[..., :, :k] += np.tril(lower, -1)
    out[..., :k, :] += upper
    return out


def _lu_mix(a):
    """L and U through different functions (P is a constant)."""
    p, lower, upper = tl.linalg.lu(a)
    return p @ lower.sin() @ upper.exp()


def _np_lu_mix(a):
    p, lower, upper = _np_lu(a)
    return p @ np.sin(lower) @ np.exp(upper)


def _np_q(a, tau, m):
    """The full m x m ``H_1 ... H_k`` of a's reflectors."""
    q = np.eye(m)
    for i in range(tau.shape[-1]):
        v = np.zeros(m)
        v[i], v[i + 1:] = 1.0, a[i + 1:, i]
        q = q @ (np.eye(m) - tau[i] * np.outer(v, v))
    return q


def _np_expm(a):
    """exp by a 30-term Taylor series of a / 2^8, squared back 8 times (float64 reference)."""
    x = a / 256.0
    term = result = np.broadcast_to(np.eye(a.shape[-1]), a.shape).copy()
    for k in range(1, 30):
        term = term @ x / k
        result = result + term
    for _ in range(8):
        result = result @ result
    return result


NO_FLOAT16.update({"linalg-inv", "linalg-det", "linalg-slogdet", "linalg-solve",
                   "linalg-cholesky", "linalg-svd-tall", "linalg-svd-wide-full",
                   "linalg-svdvals", "linalg-eigh", "linalg-eigvalsh-upper", "linalg-qr-tall",
                   "linalg-qr-wide", "linalg-pinv-tall", "linalg-pinv-wide",
                   "linalg-pinv-hermitian", "linalg-lstsq", "linalg-matrix_norm-2",
                   "linalg-matrix_norm--2", "linalg-matrix_norm-nuc", "svd-old", "pinverse"})
NO_FLOAT16.update({"linalg-lu", "linalg-lu-tall", "linalg-lu-wide", "linalg-lu_factor",
                   "lu_unpack", "linalg-lu_solve", "linalg-lu_solve-right-adjoint",
                   "lu_solve-old", "linalg-solve_ex", "linalg-solve-right",
                   "triangular_solve", "triangular_solve-lower-transpose-unit",
                   "cholesky-old-upper", "linalg-householder_product", "ormqr",
                   "ormqr-right-transpose", "linalg-cond-2", "linalg-cond-fro",
                   "linalg-cond-inf", "linalg-tensorinv", "linalg-tensorsolve"})
row("linalg-inv", lambda a: tl.linalg.inv(_well(a)), [(2, 3, 3)], "real",
    lambda a: np.linalg.inv(_np_well(a)))
row("linalg-det", lambda a: tl.linalg.det(_well(a)), [(2, 3, 3)], "real",
    lambda a: np.linalg.det(_np_well(a)))
row("linalg-slogdet", lambda a: tl.linalg.slogdet(_well(a))[1], [(3, 3)], "real",
    lambda a: np.linalg.slogdet(_np_well(a))[1])
row("linalg-solve", lambda a, b: tl.linalg.solve(_well(a), b), [(2, 3, 3), (2, 3, 2)],
    "real", lambda a, b: np.linalg.solve(_np_well(a), b))
row("linalg-cholesky", lambda a: tl.linalg.cholesky(_spd(a)), [(3, 3)], "real",
    lambda a: np.linalg.cholesky(_np_spd(a)))
# decompositions (distinct singular values/eigenvalues: random normal input has them)
row("linalg-svd-tall", _svd_mix, [(2, 4, 3)], "real", _np_svd_mix)
row("linalg-svd-wide-full",
    lambda a: tl.linalg.svd(a).U.abs() @ tl.linalg.svd(a).Vh[..., :3, :].abs(), [(3, 4)],
    "real", lambda a: np.abs(np.linalg.svd(a)[0]) @ np.abs(np.linalg.svd(a)[2][:3]))
row("linalg-svdvals", tl.linalg.svdvals, [(2, 3, 4)], "real",
    lambda a: np.linalg.svd(a, compute_uv=False))
row("linalg-eigh", _eigh_mix, [(2, 3, 3)], "real", _np_eigh_mix)
row("linalg-eigvalsh-upper", lambda a: tl.linalg.eigvalsh(a + a.mT, UPLO="U"), [(3, 3)],
    "real", lambda a: np.linalg.eigvalsh(a + a.T, UPLO="U"))
row("linalg-qr-tall", _qr_mix, [(2, 4, 3)], "real", _np_qr_mix)
row("linalg-qr-wide", _qr_mix, [(3, 4)], "real", _np_qr_mix)
row("linalg-pinv-tall", tl.linalg.pinv, [(2, 4, 3)], "real", np.linalg.pinv)
row("linalg-pinv-wide", tl.linalg.pinv, [(3, 4)], "real", np.linalg.pinv)
row("linalg-pinv-hermitian", lambda a: tl.linalg.pinv(_well(a + a.mT), hermitian=True),
    [(3, 3)], "real", lambda a: np.linalg.pinv(_np_well(a + a.T)))
row("linalg-lstsq", lambda a, b: tl.linalg.lstsq(a, b).solution, [(2, 4, 3), (2, 4, 2)],
    "real", lambda a, b: np.linalg.pinv(a) @ b)
for _ord, _ref in ((2, lambda s: s.max(-1)), (-2, lambda s: s.min(-1)),
                   ("nuc", lambda s: s.sum(-1))):
    row(f"linalg-matrix_norm-{_ord}", lambda a, _ord=_ord: tl.linalg.matrix_norm(a, _ord),
        [(2, 3, 4)], "real",
        lambda a, _ref=_ref: _ref(np.linalg.svd(a, compute_uv=False)))
row("svd-old", _old_svd, [(3, 4)], "real", _np_old_svd)
row("pinverse", tl.pinverse, [(3, 3)], "real", np.linalg.pinv)
row("linalg-matrix_power", lambda a: tl.linalg.matrix_power(a, 3), [(3, 3)], "real",
    lambda a: np.linalg.matrix_power(a, 3))
row("linalg-vector_norm-3", lambda a: tl.linalg.vector_norm(a, 3, dim=1), [(3, 4)],
    "nonzero", lambda a: (np.abs(a) ** 3).sum(1) ** (1 / 3))
row("linalg-cross", lambda a, b: tl.linalg.cross(a, b), [(4, 3), (4, 3)], "real",
    lambda a, b: np.cross(a, b))
row("cdist", lambda a, b: tl.cdist(a, b), [(3, 2), (4, 2)], "nonzero",
    lambda a, b: np.sqrt(((a[:, None] - b[None]) ** 2).sum(-1)))
row("trace", tl.trace, [(3, 3)], "real", np.trace)
row("diag_embed", lambda a: tl.diag_embed(a, 1), [(2, 3)], "real",
    lambda a: np.stack([np.diag(r, 1) for r in a]))
row("linalg-lu", _lu_mix, [(2, 3, 3)], "real", _np_lu_mix)
row("linalg-lu-tall", _lu_mix, [(4, 3)], "real", _np_lu_mix)
row("linalg-lu-wide", _lu_mix, [(2, 3, 4)], "real", _np_lu_mix)
row("linalg-lu_factor", lambda a: tl.linalg.lu_factor(a).LU, [(2, 3, 3)], "real",
    _np_packed)
row("lu_unpack", lambda a: (lambda r: r.L @ r.U.cos())(tl.lu_unpack(*tl.linalg.lu_factor(a))),
    [(3, 4)], "real", lambda a: (lambda p, lo, up: lo @ np.cos(up))(*_np_lu(a)))
row("linalg-lu_solve",
    lambda a, b: tl.linalg.lu_solve(*tl.linalg.lu_factor(_well(a)), b),
    [(2, 3, 3), (2, 3, 2)], "real", lambda a, b: np.linalg.solve(_np_well(a), b))
row("linalg-lu_solve-right-adjoint",
    lambda a, b: tl.linalg.lu_solve(*tl.linalg.lu_factor(_well(a)), b, left=False,
                                    adjoint=True),
    [(3, 3), (2, 4, 3)], "real",
    lambda a, b: np.swapaxes(np.linalg.solve(_np_well(a), np.swapaxes(b, -1, -2)), -1, -2))
row("lu_solve-old", lambda a, b: b.lu_solve(*tl.lu(_well(a))), [(3, 3), (3, 2)], "real",
    lambda a, b: np.linalg.solve(_np_well(a), b))
row("linalg-solve_ex", lambda a, b: tl.linalg.solve_ex(_well(a), b).result,
    [(2, 3, 3), (2, 3)], "real",
    lambda a, b: np.linalg.solve(_np_well(a), b[..., None])[..., 0])
row("linalg-solve-right", lambda a, b: tl.linalg.solve(_well(a), b, left=False),
    [(3, 3), (2, 3)], "real",
    lambda a, b: np.linalg.solve(_np_well(a).T, b.T).T)
row("triangular_solve",
    lambda b, a: tl.triangular_solve(b, _well(a)).solution, [(2, 3, 2), (3, 3)], "real",
    lambda b, a: np.linalg.solve(np.triu(_np_well(a)), b))
row("triangular_solve-lower-transpose-unit",
    lambda b, a: b.triangular_solve(a, upper=False, transpose=True,
                                    unitriangular=True).solution,
    [(3, 2), (3, 3)], "real",
    lambda b, a: np.linalg.solve((np.tril(a, -1) + np.eye(3)).T, b))
row("cholesky-old-upper", lambda a: tl.cholesky(a @ a.mT + tl.eye(3, dtype=a.dtype), True),
    [(3, 3)], "real", lambda a: np.linalg.cholesky(a @ a.T + np.eye(3)).T)
row("linalg-householder_product", tl.linalg.householder_product, [(2, 4, 3), (2, 2)],
    "real", lambda a, t: np.stack([_np_q(x, y, 4)[:, :3] for x, y in zip(a, t)]))
row("ormqr", tl.ormqr, [(4, 3), (3,), (4, 2)], "real", lambda a, t, c: _np_q(a, t, 4) @ c)
row("ormqr-right-transpose", lambda a, t, c: a.ormqr(t, c, left=False, transpose=True),
    [(3, 4), (3,), (2, 3)], "real", lambda a, t, c: c @ _np_q(a, t, 3).T)
row("linalg-cond-2", tl.linalg.cond, [(2, 3, 4)], "real", np.linalg.cond)
row("linalg-cond-fro", lambda a: tl.linalg.cond(_well(a), "fro"), [(3, 3)], "real",
    lambda a: np.linalg.cond(_np_well(a), "fro"))
row("linalg-cond-inf", lambda a: tl.linalg.cond(_well(a), float("inf")), [(2, 3, 3)],
    "real", lambda a: np.linalg.cond(_np_well(a), np.inf))
row("linalg-tensorinv", lambda a: tl.linalg.tensorinv(_well(a.reshape(6, 6)).reshape(2, 3, 6),
                                                      ind=2),
    [(36,)], "real",
    lambda a: np.linalg.tensorinv(_np_well(a.reshape(6, 6)).reshape(2, 3, 6), ind=2))
row("linalg-tensorsolve",
    lambda a, b: tl.linalg.tensorsolve(_well(a.reshape(6, 6)).reshape(2, 3, 2, 3), b),
    [(36,), (2, 3)], "real",
    lambda a, b: np.linalg.tensorsolve(_np_well(a.reshape(6, 6)).reshape(2, 3, 2, 3), b))
row("matrix_exp", lambda a: tl.matrix_exp(a * 0.5), [(3, 3)], "real",
    lambda a: _np_expm(a * 0.5))
row("linalg-matrix_exp-batch-scaled", lambda a: tl.linalg.matrix_exp(a * 3), [(2, 2, 2)],
    "real", lambda a: _np_expm(a * 3))
