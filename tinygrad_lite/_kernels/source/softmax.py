"""Softmax kernels: softmax and log_softmax over the last dim, forward and backward, and the
fused cross-entropy's forward (log-sum-exp and the picked logits), on (rows, length) C-contiguous
arrays of one float dtype.

exp stays NumPy's (its SIMD loop is 5x faster than numba's per-element libm call on this CPU), so
a forward is: a kernel for each row's max and ``x - max`` (one pass, the row in cache), NumPy's
exp in place, a kernel for each row's sum and the division or log. The backward rules are one
row-wise pass each. A NaN in a row makes the row NaN (the max propagates it); a row of -inf gives
``-inf - -inf = NaN``, as in the reference. Each kernel has a serial and a ``parallel`` variant
(rows split over the threads); no fastmath; ``error_model="numpy"`` (division by zero gives inf
or NaN, no exception check per element).
"""

import math

import numba


@numba.njit(cache=True, error_model="numpy")
def _row_max(x, r):
    """The max of row ``r``, NaN when the row holds one: eight running maxima (which LLVM
    vectorises; a single one is a loop-carried branch) and a NaN flag."""
    n = x.shape[1]
    m0 = m1 = m2 = m3 = m4 = m5 = m6 = m7 = x[r, 0]
    nan = False
    j = 0
    while j + 8 <= n:
        v0, v1, v2, v3 = x[r, j], x[r, j + 1], x[r, j + 2], x[r, j + 3]
        v4, v5, v6, v7 = x[r, j + 4], x[r, j + 5], x[r, j + 6], x[r, j + 7]
        m0 = v0 if v0 > m0 else m0
        m1 = v1 if v1 > m1 else m1
        m2 = v2 if v2 > m2 else m2
        m3 = v3 if v3 > m3 else m3
        m4 = v4 if v4 > m4 else m4
        m5 = v5 if v5 > m5 else m5
        m6 = v6 if v6 > m6 else m6
        m7 = v7 if v7 > m7 else m7
        nan |= (v0 != v0) | (v1 != v1) | (v2 != v2) | (v3 != v3)
        nan |= (v4 != v4) | (v5 != v5) | (v6 != v6) | (v7 != v7)
        j += 8
    while j < n:
        v = x[r, j]
        m0 = v if v > m0 else m0
        nan |= v != v
        j += 1
    m0 = m1 if m1 > m0 else m0
    m2 = m3 if m3 > m2 else m2
    m4 = m5 if m5 > m4 else m4
    m6 = m7 if m7 > m6 else m6
    m0 = m2 if m2 > m0 else m0
    m4 = m6 if m6 > m4 else m4
    m0 = m4 if m4 > m0 else m0
    if nan or m0 != m0:  # the row's NaN (m0 != m0: a NaN first element, kept by every max)
        for j in range(n):
            if x[r, j] != x[r, j]:
                return x[r, j]
    return m0


@numba.njit(cache=True, error_model="numpy")
def _shift_row(x, out, r):
    """``out[r] = x[r] - max(x[r])``; returns the max (NaN when the row holds one)."""
    m = _row_max(x, r)
    for j in range(x.shape[1]):
        out[r, j] = x[r, j] - m
    return m


@numba.njit(cache=True, error_model="numpy")
def shift_rows(x, out, maxima):
    for r in range(x.shape[0]):
        maxima[r] = _shift_row(x, out, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def shift_rows_parallel(x, out, maxima):
    for r in numba.prange(x.shape[0]):
        maxima[r] = _shift_row(x, out, r)


@numba.njit(cache=True, error_model="numpy")
def _block_sum(a, r, lo, n):
    """The sum of ``a[r, lo:lo + n]``, ``n <= 128``, in NumPy's order (its pairwise summation:
    eight running sums, which LLVM also vectorises), so that short rows sum to NumPy's bits."""
    if n < 8:
        total = a[r, lo]
        for j in range(lo + 1, lo + n):
            total += a[r, j]
        return total
    else:
        s0, s1, s2, s3 = a[r, lo], a[r, lo + 1], a[r, lo + 2], a[r, lo + 3]
        s4, s5, s6, s7 = a[r, lo + 4], a[r, lo + 5], a[r, lo + 6], a[r, lo + 7]
        j = lo + 8
        stop = lo + n - n % 8
        while j < stop:
            s0 += a[r, j]
            s1 += a[r, j + 1]
            s2 += a[r, j + 2]
            s3 += a[r, j + 3]
            s4 += a[r, j + 4]
            s5 += a[r, j + 5]
            s6 += a[r, j + 6]
            s7 += a[r, j + 7]
            j += 8
        total = ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))
        while j < lo + n:
            total += a[r, j]
            j += 1
    return total


@numba.njit(cache=True, error_model="numpy")
def _row_sum(a, r):
    """The sum of row ``r`` (rows are never empty: the callers take only non-empty arrays).
    Longer rows than 128 add their blocks of 128 in turn (NumPy halves them recursively: a
    few ulps apart; recursion is not used here, numba's cache mishandles it)."""
    n = a.shape[1]
    total = _block_sum(a, r, 0, min(n, 128))
    for lo in range(128, n, 128):
        total += _block_sum(a, r, lo, min(n - lo, 128))
    return total


@numba.njit(cache=True, error_model="numpy")
def _divide_row(e, r):
    s = _row_sum(e, r)
    for j in range(e.shape[1]):
        e[r, j] /= s


@numba.njit(cache=True, error_model="numpy")
def softmax_normalize(e):
    """``e[r] /= sum(e[r])`` for each row of exponentials."""
    for r in range(e.shape[0]):
        _divide_row(e, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def softmax_normalize_parallel(e):
    for r in numba.prange(e.shape[0]):
        _divide_row(e, r)


@numba.njit(cache=True, error_model="numpy")
def _log_normalize_row(shifted, e, r):
    s = math.log(_row_sum(e, r))
    for j in range(shifted.shape[1]):
        shifted[r, j] -= s


@numba.njit(cache=True, error_model="numpy")
def log_softmax_normalize(shifted, e):
    """``shifted[r] -= log(sum(e[r]))``, ``e`` the exponentials of ``shifted``."""
    for r in range(shifted.shape[0]):
        _log_normalize_row(shifted, e, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def log_softmax_normalize_parallel(shifted, e):
    for r in numba.prange(shifted.shape[0]):
        _log_normalize_row(shifted, e, r)


@numba.njit(cache=True, error_model="numpy")
def _softmax_grad_row(grad, y, out, r):
    n = y.shape[1]
    # y is in [0, 1] (or NaN, which makes the dot NaN anyway): y * 0 is a zero of its dtype
    d1 = d2 = d3 = d4 = d5 = d6 = d7 = y[r, 0] * 0
    d0 = grad[r, 0] * y[r, 0]
    j = 1
    while j < n and j % 8:
        d0 += grad[r, j] * y[r, j]
        j += 1
    while j + 8 <= n:  # eight running dots, which LLVM vectorises
        d0 += grad[r, j] * y[r, j]
        d1 += grad[r, j + 1] * y[r, j + 1]
        d2 += grad[r, j + 2] * y[r, j + 2]
        d3 += grad[r, j + 3] * y[r, j + 3]
        d4 += grad[r, j + 4] * y[r, j + 4]
        d5 += grad[r, j + 5] * y[r, j + 5]
        d6 += grad[r, j + 6] * y[r, j + 6]
        d7 += grad[r, j + 7] * y[r, j + 7]
        j += 8
    dot = ((d0 + d1) + (d2 + d3)) + ((d4 + d5) + (d6 + d7))
    while j < n:
        dot += grad[r, j] * y[r, j]
        j += 1
    for j in range(n):
        out[r, j] = (grad[r, j] - dot) * y[r, j]


@numba.njit(cache=True, error_model="numpy")
def softmax_backward(grad, y, out):
    """``out = (grad - sum(grad * y)) * y`` per row."""
    for r in range(y.shape[0]):
        _softmax_grad_row(grad, y, out, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def softmax_backward_parallel(grad, y, out):
    for r in numba.prange(y.shape[0]):
        _softmax_grad_row(grad, y, out, r)


@numba.njit(cache=True, error_model="numpy")
def _log_softmax_grad_row(grad, e, r):
    s = _row_sum(grad, r)
    for j in range(e.shape[1]):
        e[r, j] = grad[r, j] - e[r, j] * s


@numba.njit(cache=True, error_model="numpy")
def log_softmax_backward(grad, e):
    """``e = grad - e * sum(grad)`` per row, ``e`` holding ``exp(y)`` on entry."""
    for r in range(e.shape[0]):
        _log_softmax_grad_row(grad, e, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def log_softmax_backward_parallel(grad, e):
    for r in numba.prange(e.shape[0]):
        _log_softmax_grad_row(grad, e, r)


@numba.njit(cache=True, error_model="numpy")
def cross_entropy_losses(shifted, e, target, lse, losses):
    """Per row: ``lse = log(sum(e))`` (the log-sum-exp of the shifted logits) and the loss
    ``lse - shifted[target]``; ``e`` holds ``exp(shifted)``."""
    for r in range(shifted.shape[0]):
        s = math.log(_row_sum(e, r))
        lse[r] = s
        losses[r] = s - shifted[r, target[r]]
