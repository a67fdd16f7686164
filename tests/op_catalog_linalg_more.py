"""Catalogue rows of the LU family and the other linear algebra of functions/linalg_lu.py and
functions/linalg_more.py: first and second order gradients through lu (square, tall, wide),
lu_factor, lu_unpack, lu_solve, solve_ex, triangular_solve, the older cholesky,
householder_product, ormqr, cond, tensorinv and tensorsolve. The NumPy references are written
independently of the package (a plain partial-pivoting loop for LU, explicit reflector products
for Householder). Random normal matrices have distinct pivots, so the pivot order is locally
constant and finite differences see a smooth function."""

import numpy as np

import tinygrad_lite as tl


def _well(a):
    """A well-conditioned matrix from a random one."""
    return a + 3 * tl.eye(a.shape[-1], dtype=a.dtype)


def _np_well(a):
    return a + 3 * np.eye(a.shape[-1])


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


def add_rows(row) -> None:
    from op_catalog import NO_FLOAT16

    NO_FLOAT16.update({"linalg-lu", "linalg-lu-tall", "linalg-lu-wide", "linalg-lu_factor",
                       "lu_unpack", "linalg-lu_solve", "linalg-lu_solve-right-adjoint",
                       "lu_solve-old", "linalg-solve_ex", "linalg-solve-right",
                       "triangular_solve", "triangular_solve-lower-transpose-unit",
                       "cholesky-old-upper", "linalg-householder_product", "ormqr",
                       "ormqr-right-transpose", "linalg-cond-2", "linalg-cond-fro",
                       "linalg-cond-inf", "linalg-tensorinv", "linalg-tensorsolve"})
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
