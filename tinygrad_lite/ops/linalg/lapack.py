"""LAPACK's LU routines in NumPy, batched over leading dims: ``getrf`` (the packed factor,
its pivots and info), ``getrs`` and ``trsm`` (solves that give inf/NaN at a zero pivot, not an
error) and the permutation of the pivots. The error paths of ``linalg.inv_ex``,
``linalg.solve_ex`` and ``lu_factor_ex`` must return exactly LAPACK's output for singular
matrices, which NumPy's ``linalg`` (raising ``LinAlgError``) does not give.
"""

from __future__ import annotations

import numpy as np

__all__ = ["getrf", "getrs", "trsm", "permutation", "permutation_matrix"]


def getrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LAPACK getrf over a batch (..., m, n): the packed ``L\\U`` (L's unit diagonal implied),
    the 1-based int32 pivots (..., min(m, n)) and info (the first exactly-zero pivot, 1-based,
    else 0)."""
    *batch, m, n = a.shape
    k = min(m, n)
    count = int(np.prod(batch, dtype=np.int64))
    lu = np.array(a, copy=True).reshape(count, m, n)
    piv = np.empty((count, k), np.int32)
    info = np.zeros(count, np.int32)
    rows = np.arange(count)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1)  # the first largest, as idamax
            piv[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
            pivot = lu[:, j, j]
            singular = pivot == 0
            info[(info == 0) & singular] = j + 1
            # a zero pivot leaves its (zero) column unscaled, as getrf does
            lu[:, j + 1:, j] *= np.where(singular, 1, 1 / np.where(singular, 1, pivot))[:, None]
            lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, None, j, j + 1:]
    return lu.reshape(a.shape), piv.reshape(*batch, k), info.reshape(batch)


def permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """``perm`` (..., m) from 1-based pivots: row i of ``P^T A`` is row ``perm[i]`` of A."""
    batch, k = pivots.shape[:-1], pivots.shape[-1]
    count = int(np.prod(batch, dtype=np.int64))
    perm = np.array(np.broadcast_to(np.arange(m), (*batch, m))).reshape(count, m)
    piv = pivots.reshape(count, k).astype(np.int64) - 1
    rows = np.arange(count)
    for j in range(k):
        target = piv[:, j]
        held = perm[rows, j].copy()
        perm[rows, j] = perm[rows, target]
        perm[rows, target] = held
    return perm.reshape(*batch, m)


def permutation_matrix(pivots: np.ndarray, m: int, dtype: np.dtype) -> np.ndarray:
    """``P`` (..., m, m) with ``A = P L U``: ``P[perm[i], i] = 1``."""
    perm = permutation(pivots, m)
    p = np.zeros((*perm.shape, m), dtype)
    np.put_along_axis(p, perm[..., None, :], 1, axis=-2)
    return p


def trsm(t: np.ndarray, b: np.ndarray, lower: bool) -> np.ndarray:
    """``X`` with ``T X = B`` by substitution, reading T's lower or upper triangle (the same
    batch shapes): a zero on the diagonal gives inf/NaN, as LAPACK's trsm, not an error."""
    n = t.shape[-1]
    x = np.array(b, copy=True)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(n) if lower else reversed(range(n)):
            done = slice(0, i) if lower else slice(i + 1, n)
            rest = (t[..., i, None, done] @ x[..., done, :])[..., 0, :]
            x[..., i, :] = (x[..., i, :] - rest) / t[..., i, i, None]
    return x


def getrs(lu: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``X`` with ``A X = B`` from getrf's factors (the same batch shapes), as LAPACK's getrs:
    a zero pivot gives inf/NaN rather than an error."""
    n = lu.shape[-1]
    lower = np.tril(lu, -1) + np.eye(n, dtype=lu.dtype)
    x = np.take_along_axis(b, permutation(pivots, n)[..., None], axis=-2)
    return trsm(lu, trsm(lower, x, True), False)
