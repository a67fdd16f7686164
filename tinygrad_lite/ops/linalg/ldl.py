"""LDL^T factorisation of symmetric matrices with Bunch-Kaufman pivoting (LAPACK sytrf, lower
storage, as PyTorch's ``linalg.ldl_factor``) and the solve with its factors (sytrs), in NumPy,
one matrix of the batch at a time. Pivots are LAPACK's: 1-based, positive for a 1 x 1 block of
D, and the same negative value on both rows of a 2 x 2 block. Neither is differentiable in
PyTorch (backward raises there, and here)."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["sytrf", "sytrs"]

_ALPHA = (1.0 + math.sqrt(17.0)) / 8.0  # Bunch-Kaufman's growth bound


def _first_largest(v: np.ndarray) -> int:
    """``idamax``: the index of the first largest magnitude."""
    return int(np.argmax(np.abs(v)))


def _interchange(a: np.ndarray, k: int, kk: int, kp: int, kstep: int) -> None:
    """Swap rows and columns ``kk`` and ``kp`` of the trailing lower triangle ``A[k:, k:]``."""
    if kp + 1 < a.shape[0]:
        held = a[kp + 1:, kk].copy()
        a[kp + 1:, kk] = a[kp + 1:, kp]
        a[kp + 1:, kp] = held
    held = a[kk + 1:kp, kk].copy()
    a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
    a[kp, kk + 1:kp] = held
    a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
    if kstep == 2:
        a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]


def _choose_pivot(a: np.ndarray, k: int, colmax: float, imax: int) -> tuple[int, int]:
    """Bunch-Kaufman's choice at column ``k``: ``(kp, kstep)``."""
    n = a.shape[0]
    absakk = abs(a[k, k])
    if absakk >= _ALPHA * colmax:
        return k, 1
    jmax = k + _first_largest(a[imax, k:imax])
    rowmax = abs(a[imax, jmax])
    if imax + 1 < n:
        jmax = imax + 1 + _first_largest(a[imax + 1:, imax])
        rowmax = max(rowmax, abs(a[jmax, imax]))
    if absakk >= _ALPHA * colmax * (colmax / rowmax):
        return k, 1
    if abs(a[imax, imax]) >= _ALPHA * rowmax:
        return imax, 1
    return imax, 2


def _sytf2(a: np.ndarray) -> tuple[np.ndarray, int]:
    """LAPACK dsytf2 (lower) on one matrix, in place: its pivots and info."""
    n = a.shape[0]
    ipiv = np.zeros(n, np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        imax, colmax = k, 0.0
        if k + 1 < n:
            imax = k + 1 + _first_largest(a[k + 1:, k])
            colmax = abs(a[imax, k])
        if max(absakk, colmax) == 0 or math.isnan(absakk):
            info = info or k + 1  # a zero (or NaN) column: D singular, go on
            kp = k
        else:
            kp, kstep = _choose_pivot(a, k, colmax, imax)
            kk = k + kstep - 1
            if kp != kk:
                _interchange(a, k, kk, kp, kstep)
            if kstep == 1 and k + 1 < n:
                d11 = 1.0 / a[k, k]
                x = a[k + 1:, k].copy()
                a[k + 1:, k + 1:] += np.outer(x, -d11 * x)  # dsyr's order of operations
                a[k + 1:, k] *= d11
            elif kstep == 2 and k + 2 < n:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                d21 = 1.0 / (d11 * d22 - 1.0) / d21
                for j in range(k + 2, n):
                    wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                    wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                    a[j:, j] = a[j:, j] - a[j:, k] * wk - a[j:, k + 1] * wkp1
                    a[j, k], a[j, k + 1] = wk, wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def sytrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(LD, pivots, info)`` over a batch (..., n, n), reading the lower triangle; LD's upper
    triangle is zero, as PyTorch's."""
    *batch, n, _ = a.shape
    count = int(np.prod(batch, dtype=np.int64))
    work = np.array(a, copy=True).reshape(count, n, n)
    piv = np.zeros((count, n), np.int32)
    info = np.zeros(count, np.int32)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(work.shape[0]):
            piv[i], info[i] = _sytf2(work[i])
    return np.tril(work).reshape(a.shape), piv.reshape(*batch, n), info.reshape(batch)


def _swap_rows(b: np.ndarray, i: int, j: int) -> None:
    if i != j:
        b[[i, j]] = b[[j, i]]


def _sytrs(ld: np.ndarray, ipiv: np.ndarray, b: np.ndarray) -> None:
    """LAPACK dsytrs (lower) on one matrix, in place on ``b`` (n, k)."""
    n = ld.shape[0]
    k = 0
    while k < n:  # L D y = P^T b
        if ipiv[k] > 0:
            _swap_rows(b, k, ipiv[k] - 1)
            b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
            b[k] /= ld[k, k]
            k += 1
        else:
            _swap_rows(b, k + 1, -ipiv[k] - 1)
            b[k + 2:] -= np.outer(ld[k + 2:, k], b[k])
            b[k + 2:] -= np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1.0
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k], b[k + 1] = (ak * bkm1 - bk) / denom, (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T P^T x = y
        if ipiv[k] > 0:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            _swap_rows(b, k, ipiv[k] - 1)
            k -= 1
        else:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= ld[k + 1:, k - 1] @ b[k + 1:]
            _swap_rows(b, k, -ipiv[k] - 1)
            k -= 2


def sytrs(ld: np.ndarray, pivots: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``X`` with ``A X = B`` from sytrf's factors (the three with the same batch shape)."""
    *batch, n, cols = b.shape
    count = int(np.prod(batch, dtype=np.int64))
    x = np.array(b, copy=True).reshape(count, n, cols)
    lds, pivs = ld.reshape(count, n, n), pivots.reshape(count, n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in range(x.shape[0]):
            _sytrs(lds[i], pivs[i], x[i])
    return x.reshape(b.shape)
