"""Kernel family ``pooling``: 2-d max and average pooling, forward and backward, in one pass.

Arrays are C-contiguous planes: input (P, H, W) with P = N * C, output (P, OH, OW). A window
starts at ``o * stride - pad`` and takes ``kernel`` positions ``dilation`` apart; positions
outside the input are skipped (padding never wins a max and adds nothing to a sum). The rules
are PyTorch's: the first maximum of a window in row-major order wins and NaN counts as the
maximum (the last NaN: PyTorch's CPU loop takes ``v`` when ``v > max || isnan(v)``); an
average divides by ``divisor_override``, else by the window's extent clipped to the padded
input (``count_include_pad``) or to the input itself. Sums and quotients are in the arrays'
dtype (``zero`` and the one-element ``cast`` array carry it: a Python number would promote
float32 to float64).
"""

import numba


@numba.njit(cache=True, error_model="numpy")
def _inside(o0, d, size, k):
    """(first, end) of the window offsets i with 0 <= o0 + i * d < size."""
    i0 = 0 if o0 >= 0 else (-o0 + d - 1) // d
    i1 = k if o0 + (k - 1) * d < size else (size - 1 - o0) // d + 1
    return i0, i1


@numba.njit(cache=True, error_model="numpy")
def max_pool2d_forward(x, out, index, kh, kw, sh, sw, ph, pw, dh, dw):
    """Each window's maximum into ``out`` and its flat position ``h * W + w`` into ``index``.
    The scan compares with ``>`` only and notes whether a NaN was seen (a NaN test in the
    comparison made the loop 8x slower); a window with a NaN is scanned again for its last."""
    planes, height, width = x.shape
    _, out_h, out_w = out.shape
    for p in range(planes):
        for oh in range(out_h):
            h0 = oh * sh - ph
            i0, i1 = _inside(h0, dh, height, kh)
            for ow in range(out_w):
                w0 = ow * sw - pw
                j0, j1 = _inside(w0, dw, width, kw)
                best = x[p, h0 + i0 * dh, w0 + j0 * dw]
                at = (h0 + i0 * dh) * width + w0 + j0 * dw
                nan = False
                for i in range(i0, i1):
                    h = h0 + i * dh
                    for j in range(j0, j1):
                        w = w0 + j * dw
                        v = x[p, h, w]
                        nan |= v != v
                        if v > best:
                            best = v
                            at = h * width + w
                if nan:  # PyTorch's rule (``v > best || isnan(v)``): the last NaN wins
                    for i in range(i0, i1):
                        h = h0 + i * dh
                        for j in range(j0, j1):
                            w = w0 + j * dw
                            v = x[p, h, w]
                            if v != v:
                                best = v
                                at = h * width + w
                out[p, oh, ow] = best
                index[p, oh, ow] = at


@numba.njit(cache=True, error_model="numpy")
def max_pool2d_backward(grad, index, grad_in):
    """``grad_in`` (P, H * W), zero on entry: each output's gradient added at its maximum."""
    planes, out_h, out_w = grad.shape
    for p in range(planes):
        for oh in range(out_h):
            for ow in range(out_w):
                grad_in[p, index[p, oh, ow]] += grad[p, oh, ow]


@numba.njit(cache=True, error_model="numpy")
def _divisor(h0, w0, kh, kw, height, width, ph, pw, include_pad, override):
    """The number a window's sum is divided by (PyTorch's rule)."""
    if override > 0:
        return override
    h1 = min(h0 + kh, height + ph)
    w1 = min(w0 + kw, width + pw)
    if include_pad:
        return (h1 - h0) * (w1 - w0)
    return (min(h1, height) - max(h0, 0)) * (min(w1, width) - max(w0, 0))


@numba.njit(cache=True, error_model="numpy")
def avg_pool2d_forward(x, out, kh, kw, sh, sw, ph, pw, include_pad, override, zero, cast):
    """Each window's average (sum over its positions in the input, row-major)."""
    planes, height, width = x.shape
    _, out_h, out_w = out.shape
    for p in range(planes):
        for oh in range(out_h):
            h0 = oh * sh - ph
            for ow in range(out_w):
                w0 = ow * sw - pw
                total = zero
                for h in range(max(h0, 0), min(h0 + kh, height)):
                    for w in range(max(w0, 0), min(w0 + kw, width)):
                        total += x[p, h, w]
                cast[0] = _divisor(h0, w0, kh, kw, height, width, ph, pw, include_pad, override)
                out[p, oh, ow] = total / cast[0]


@numba.njit(cache=True, error_model="numpy")
def avg_pool2d_backward(grad, grad_in, kh, kw, sh, sw, ph, pw, include_pad, override, cast):
    """``grad_in`` (P, H, W), zero on entry: each output's gradient over its divisor added at
    every position of its window."""
    planes, out_h, out_w = grad.shape
    _, height, width = grad_in.shape
    for p in range(planes):
        for oh in range(out_h):
            h0 = oh * sh - ph
            for ow in range(out_w):
                w0 = ow * sw - pw
                cast[0] = _divisor(h0, w0, kh, kw, height, width, ph, pw, include_pad, override)
                g = grad[p, oh, ow] / cast[0]
                for h in range(max(h0, 0), min(h0 + kh, height)):
                    for w in range(max(w0, 0), min(w0 + kw, width)):
                        grad_in[p, h, w] += g
