"""Normalisation kernels: layer norm and RMS norm over trailing rows, batch norm per channel
(training and eval), forward and backward, on C-contiguous arrays of one float dtype.

A row (layer/RMS norm: (rows, length)) or a channel (batch norm: (N, C, L), channel c is the
N blocks ``x[n, c, :]``) is the unit of work: its statistics and its output in two or three
passes over data that stays in cache, against the reference's whole-array passes. Sums and dot
products accumulate in float64 (more accurate than the reference's float32 sums, so float32
results differ from it by the reference's own rounding, a few ulps); per-element arithmetic is
the reference's, in its dtype and order. Each kernel has a serial and
a ``parallel`` variant (rows or channels over the threads). No fastmath;
``error_model="numpy"`` (division by zero gives inf or NaN, no exception check per element).
"""

import math

import numba
import numpy as np

# The sums: float64 accumulators, and the one fast-math flag "reassoc" (the order of the additions
# is free, so LLVM vectorises them: 3-5x on these loops). No other flag: NaN and inf still
# propagate (a NaN makes the sum NaN in any order; float64 sums of float32 data cannot overflow).


@numba.njit(cache=True, error_model="numpy", fastmath={"reassoc"})
def _sum(v):
    """``sum(v)`` of a 1-D array, in float64."""
    total = 0.0
    for j in range(v.size):
        total += v[j]
    return total


@numba.njit(cache=True, error_model="numpy", fastmath={"reassoc"})
def _dot(a, b):
    """``sum(a * b)`` of two 1-D arrays, in float64."""
    total = 0.0
    for j in range(a.size):
        total += np.float64(a[j]) * b[j]
    return total


@numba.njit(cache=True, error_model="numpy", fastmath={"reassoc"})
def _dot3(a, b, c):
    """``sum(a * b * c)`` of three 1-D arrays, in float64."""
    total = 0.0
    for j in range(a.size):
        total += np.float64(a[j]) * b[j] * c[j]
    return total


# the parallel backward kernels' blocks of rows, each with its own partial parameter gradients
PARAMETER_BLOCKS = 16


# -- layer norm over (rows, length) ---------------------------------------------------------


@numba.njit(cache=True, error_model="numpy")
def _layer_norm_row(x, w, b, has_w, has_b, eps, one, xhat, out, mean, var, rstd, r):
    row, xr, orow = x[r], xhat[r], out[r]
    n = row.size
    mean[r] = _sum(row) / n  # (rounded to the dtype by the store)
    m = mean[r]
    for j in range(n):
        xr[j] = row[j] - m
    var[r] = _dot(xr, xr) / n
    s = one / math.sqrt(var[r] + eps)
    rstd[r] = s
    for j in range(n):
        h = xr[j] * s
        xr[j] = h
        if has_w:
            h = h * w[j]
        if has_b:
            h = h + b[j]
        orow[j] = h


@numba.njit(cache=True, error_model="numpy")
def layer_norm_forward(x, w, b, has_w, has_b, eps, one, xhat, out, mean, var, rstd):
    """Per row: mean, biased variance, ``rstd = 1 / sqrt(var + eps)``, ``xhat = (x - mean) *
    rstd`` (kept for backward) and ``out = xhat * w + b``."""
    for r in range(x.shape[0]):
        _layer_norm_row(x, w, b, has_w, has_b, eps, one, xhat, out, mean, var, rstd, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def layer_norm_forward_parallel(x, w, b, has_w, has_b, eps, one, xhat, out, mean, var, rstd):
    for r in numba.prange(x.shape[0]):
        _layer_norm_row(x, w, b, has_w, has_b, eps, one, xhat, out, mean, var, rstd, r)


@numba.njit(cache=True, error_model="numpy")
def _layer_norm_grad_rows(g, w, has_w, xhat, rstd, dx, dw, db, lo, hi):
    """Rows ``lo:hi`` of the input gradient ``dx = ((g' - xhat * mean(g' xhat)) - mean(g')) *
    rstd``, ``g' = g * w``; adds ``g * xhat`` and ``g`` into the float64 ``dw`` and ``db``."""
    n = g.shape[1]
    means = np.empty(2, dx.dtype)  # the row means, rounded to the dtype as the reference's
    for r in range(lo, hi):
        gr, hr, dr = g[r], xhat[r], dx[r]
        if has_w:
            means[0] = _dot(gr, w) / n
            means[1] = _dot3(gr, w, hr) / n
        else:
            means[0] = _sum(gr) / n
            means[1] = _dot(gr, hr) / n
        mean_g, mean_gh, s = means[0], means[1], rstd[r]
        for j in range(n):
            sc = gr[j] * w[j] if has_w else gr[j]
            dr[j] = (sc - hr[j] * mean_gh - mean_g) * s
            dw[j] += np.float64(gr[j]) * hr[j]
            db[j] += gr[j]


@numba.njit(cache=True, error_model="numpy")
def layer_norm_backward(g, w, has_w, xhat, rstd, dx, dw, db):
    """The input gradient into ``dx``; the weight and bias gradients (sums over the rows of
    ``g * xhat`` and ``g``) into the float64 ``dw`` and ``db`` (zeroed by the caller)."""
    _layer_norm_grad_rows(g, w, has_w, xhat, rstd, dx, dw, db, 0, g.shape[0])


@numba.njit(cache=True, parallel=True, error_model="numpy")
def layer_norm_backward_parallel(g, w, has_w, xhat, rstd, dx, dw, db):
    """As ``layer_norm_backward``, the rows split into blocks that the threads share, each
    adding into its own partial weight and bias gradients, summed at the end (a fixed number of
    blocks: the result does not depend on the thread count)."""
    rows = g.shape[0]
    blocks = min(PARAMETER_BLOCKS, rows)
    dw_part = np.zeros((blocks, g.shape[1]))
    db_part = np.zeros((blocks, g.shape[1]))
    for t in numba.prange(blocks):
        lo, hi = t * rows // blocks, (t + 1) * rows // blocks
        _layer_norm_grad_rows(g, w, has_w, xhat, rstd, dx, dw_part[t], db_part[t], lo, hi)
    for t in range(blocks):
        dw += dw_part[t]
        db += db_part[t]


# -- RMS norm over (rows, length): x * rstd * w, rstd = 1 / sqrt(mean(x^2) + eps) -----------


@numba.njit(cache=True, error_model="numpy")
def _rms_norm_row(x, w, has_w, eps, one, out, rstd, r):
    row, orow = x[r], out[r]
    rstd[r] = _dot(row, row) / row.size
    s = one / math.sqrt(rstd[r] + eps)
    rstd[r] = s
    for j in range(row.size):
        h = row[j] * s
        orow[j] = h * w[j] if has_w else h


@numba.njit(cache=True, error_model="numpy")
def rms_norm_forward(x, w, has_w, eps, one, out, rstd):
    """Per row ``rstd = 1 / sqrt(mean(x^2) + eps)`` (kept for backward), ``out = x * rstd *
    w``."""
    for r in range(x.shape[0]):
        _rms_norm_row(x, w, has_w, eps, one, out, rstd, r)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def rms_norm_forward_parallel(x, w, has_w, eps, one, out, rstd):
    for r in numba.prange(x.shape[0]):
        _rms_norm_row(x, w, has_w, eps, one, out, rstd, r)


@numba.njit(cache=True, error_model="numpy")
def _rms_norm_grad_rows(g, x, w, has_w, rstd, dx, dw, lo, hi):
    """Rows ``lo:hi`` of ``dx = (g' - xhat * mean(g' xhat)) * rstd``, ``xhat = x * rstd``,
    ``g' = g * w``; adds ``g * xhat`` into the float64 ``dw``."""
    n = g.shape[1]
    means = np.empty(1, dx.dtype)  # the row mean, rounded to the dtype
    for r in range(lo, hi):
        gr, xr, dr, s = g[r], x[r], dx[r], rstd[r]
        # mean(g' * xhat) = mean(g' * x) * rstd
        means[0] = (_dot3(gr, w, xr) if has_w else _dot(gr, xr)) / n * s
        mean_gh = means[0]
        for j in range(n):
            h = xr[j] * s
            sc = gr[j] * w[j] if has_w else gr[j]
            dr[j] = (sc - h * mean_gh) * s
            dw[j] += np.float64(gr[j]) * h


@numba.njit(cache=True, error_model="numpy")
def rms_norm_backward(g, x, w, has_w, rstd, dx, dw):
    """The input gradient into ``dx``, the weight's (sum over rows of ``g * xhat``) into the
    float64 ``dw`` (zeroed by the caller)."""
    _rms_norm_grad_rows(g, x, w, has_w, rstd, dx, dw, 0, g.shape[0])


@numba.njit(cache=True, parallel=True, error_model="numpy")
def rms_norm_backward_parallel(g, x, w, has_w, rstd, dx, dw):
    rows = g.shape[0]
    blocks = min(PARAMETER_BLOCKS, rows)
    dw_part = np.zeros((blocks, g.shape[1]))
    for t in numba.prange(blocks):
        lo, hi = t * rows // blocks, (t + 1) * rows // blocks
        _rms_norm_grad_rows(g, x, w, has_w, rstd, dx, dw_part[t], lo, hi)
    for t in range(blocks):
        dw += dw_part[t]


# -- batch norm over (N, C, L) -------------------------------------------------------------------
# The statistics per channel (reads), then the output per sample in memory order. The centred
# input x - mean is not stored: the backward recomputes it from the input (which the node keeps
# anyway) and the mean, so a forward is three reads of x and one write, where the reference
# writes and rereads a centred copy (and keeps it, as large as the input, for backward).


@numba.njit(cache=True, error_model="numpy", fastmath={"reassoc"})
def _centred_square_sum(v, m):
    """``sum((v - m)^2)`` of a 1-D array, the difference in its dtype, the sum in float64."""
    total = 0.0
    for j in range(v.size):
        d = v[j] - m
        total += np.float64(d) * d
    return total


@numba.njit(cache=True, error_model="numpy", fastmath={"reassoc"})
def _centred_dot(g, v, m):
    """``sum(g * (v - m))`` of two 1-D arrays, the difference in their dtype, the sum in
    float64."""
    total = 0.0
    for j in range(v.size):
        total += np.float64(g[j]) * (v[j] - m)
    return total


@numba.njit(cache=True, error_model="numpy")
def _batch_norm_statistics(x, w, b, has_w, has_b, eps, one, mean, var, rstd, scale, shift, c):
    """Channel ``c``'s mean, biased variance, rstd, and its output's scale and shift."""
    batch, length = x.shape[0], x.shape[2]
    count = batch * length
    total = 0.0
    for i in range(batch):
        total += _sum(x[i, c])
    mean[c] = total / count
    m = mean[c]
    square = 0.0
    for i in range(batch):
        square += _centred_square_sum(x[i, c], m)
    var[c] = square / count
    s = one / math.sqrt(var[c] + eps)
    rstd[c] = s
    scale[c] = s * w[c] if has_w else s
    shift[c] = b[c] if has_b else s  # (not used without a bias)


@numba.njit(cache=True, error_model="numpy")
def _batch_norm_output(x, mean, scale, shift, has_b, out, i):
    """Sample ``i``'s output ``(x - mean) * scale + shift``, channel by channel: the output is
    written in memory order (written channel-major, the first touch of a fresh array's pages
    cost twice the kernel's time)."""
    for c in range(x.shape[1]):
        xr, orow = x[i, c], out[i, c]
        m, sc, sh = mean[c], scale[c], shift[c]
        if has_b:  # (two loops: a branch inside keeps LLVM from vectorising)
            for j in range(xr.size):
                orow[j] = (xr[j] - m) * sc + sh
        else:
            for j in range(xr.size):
                orow[j] = (xr[j] - m) * sc


@numba.njit(cache=True, error_model="numpy")
def batch_norm_forward(x, w, b, has_w, has_b, eps, one, out, mean, var, rstd):
    """Per channel: mean, biased variance, ``rstd = 1 / sqrt(var + eps)``; then ``out = (x -
    mean) * (rstd * w) + b``."""
    scale, shift = np.empty(x.shape[1], x.dtype), np.empty(x.shape[1], x.dtype)
    for c in range(x.shape[1]):
        _batch_norm_statistics(x, w, b, has_w, has_b, eps, one, mean, var, rstd, scale, shift, c)
    for i in range(x.shape[0]):
        _batch_norm_output(x, mean, scale, shift, has_b, out, i)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def batch_norm_forward_parallel(x, w, b, has_w, has_b, eps, one, out, mean, var, rstd):
    scale, shift = np.empty(x.shape[1], x.dtype), np.empty(x.shape[1], x.dtype)
    for c in numba.prange(x.shape[1]):
        _batch_norm_statistics(x, w, b, has_w, has_b, eps, one, mean, var, rstd, scale, shift, c)
    for i in numba.prange(x.shape[0]):
        _batch_norm_output(x, mean, scale, shift, has_b, out, i)


@numba.njit(cache=True, error_model="numpy")
def _batch_norm_grad_sums(g, x, mean, rstd, count, grad_sum, dot, k1, k2, c):
    """Channel ``c``'s ``sum(g)``, ``sum(g * (x - mean))`` and the input gradient's two
    per-channel terms ``rstd^2 dot / count`` and ``sum(g) / count``."""
    m = mean[c]
    total = 0.0
    product = 0.0
    for i in range(g.shape[0]):
        total += _sum(g[i, c])
        product += _centred_dot(g[i, c], x[i, c], m)
    grad_sum[c] = total
    dot[c] = product
    s = rstd[c]
    k1[c] = s * s * dot[c] / count
    k2[c] = grad_sum[c] / count


@numba.njit(cache=True, error_model="numpy")
def _batch_norm_grad_input(g, x, mean, k1, k2, scale, dx, i):
    """Sample ``i``'s ``dx = (g - ((x - mean) * k1 + k2)) * scale``, in memory order."""
    for c in range(g.shape[1]):
        gr, xr, dr = g[i, c], x[i, c], dx[i, c]
        m, a, b, sc = mean[c], k1[c], k2[c], scale[c]
        for j in range(gr.size):
            dr[j] = (gr[j] - ((xr[j] - m) * a + b)) * sc


@numba.njit(cache=True, error_model="numpy")
def batch_norm_backward(g, x, mean, rstd, scale, count, want_dx, dx, grad_sum, dot):
    """Per channel: ``grad_sum = sum(g)`` and ``dot = sum(g * (x - mean))`` (the bias and,
    times rstd, the weight gradient); when ``want_dx``, ``dx = (g - ((x - mean) * rstd^2 dot /
    count + grad_sum / count)) * scale``, ``scale = rstd * w``."""
    k1, k2 = np.empty(g.shape[1], g.dtype), np.empty(g.shape[1], g.dtype)
    for c in range(g.shape[1]):
        _batch_norm_grad_sums(g, x, mean, rstd, count, grad_sum, dot, k1, k2, c)
    if want_dx:
        for i in range(g.shape[0]):
            _batch_norm_grad_input(g, x, mean, k1, k2, scale, dx, i)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def batch_norm_backward_parallel(g, x, mean, rstd, scale, count, want_dx, dx, grad_sum, dot):
    k1, k2 = np.empty(g.shape[1], g.dtype), np.empty(g.shape[1], g.dtype)
    for c in numba.prange(g.shape[1]):
        _batch_norm_grad_sums(g, x, mean, rstd, count, grad_sum, dot, k1, k2, c)
    if want_dx:
        for i in numba.prange(g.shape[0]):
            _batch_norm_grad_input(g, x, mean, k1, k2, scale, dx, i)


@numba.njit(cache=True, error_model="numpy")
def _affine_sample(x, scale, shift, out, i):
    for c in range(x.shape[1]):
        xr, orow = x[i, c], out[i, c]
        sc, sh = scale[c], shift[c]
        for j in range(xr.size):
            orow[j] = xr[j] * sc + sh


@numba.njit(cache=True, error_model="numpy")
def channel_affine(x, scale, shift, out):
    """Batch norm with fixed statistics: ``out = x * scale[c] + shift[c]``, in memory order."""
    for i in range(x.shape[0]):
        _affine_sample(x, scale, shift, out, i)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def channel_affine_parallel(x, scale, shift, out):
    for i in numba.prange(x.shape[0]):
        _affine_sample(x, scale, shift, out, i)
