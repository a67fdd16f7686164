"""Kernel family ``rnn``: one LSTM or GRU time step's elementwise work in one pass.

The layer nodes in ``ops/rnn.py`` keep the matrix products in BLAS (per step, the product of
the gates' gradient with the recurrent weights) and hand each step's elementwise backward to
these kernels. Layout is the nodes' feature-major one: a step's gates are a C-contiguous
(G * H, B) block, states (H, B) blocks, so the inner loop runs over B contiguous elements.

The backward kernels have no transcendental functions: their arithmetic
follows the NumPy reference operation by operation, in the arrays' own dtype (the constants
``one`` come in as that dtype: a Python ``1`` would promote float32 to float64), so they give
the reference's bits.

There is no forward kernel: the forward's elementwise work is mostly ``exp`` and ``tanh``, and
without a vector math library numba calls libm's scalar functions, 10-20x slower than NumPy's
SIMD loops (a vectorizable float64 polynomial exp was still 4x slower than NumPy's float32 one).
"""

import numba


@numba.njit(cache=True)
def lstm_backward_step(gates, c_prev, tanh_c, dh, dc, grad_out, dz, one):
    """Backward of one step: from the activated ``gates`` (4H, B), the previous cell state and
    tanh of the new one, the incoming ``dh`` and ``dc`` (updated in place: ``dh`` gets the
    step's output gradient ``grad_out`` added when it has rows, ``dc`` becomes the previous
    cell's gradient except for the recurrent GEMM's part) and the gates' gradient ``dz``."""
    h, b = dh.shape
    add_out = grad_out.shape[0] > 0
    for k in range(h):
        for j in range(b):
            i = gates[k, j]
            f = gates[h + k, j]
            o = gates[2 * h + k, j]
            g = gates[3 * h + k, j]
            tc = tanh_c[k, j]
            d_h = dh[k, j]
            if add_out:
                d_h = d_h + grad_out[k, j]
            d_c = dc[k, j] + d_h * ((one - tc * tc) * o)
            dz[k, j] = (g * i * (one - i)) * d_c
            dz[h + k, j] = (c_prev[k, j] * f * (one - f)) * d_c
            dz[2 * h + k, j] = (tc * o * (one - o)) * d_h
            dz[3 * h + k, j] = ((one - g * g) * i) * d_c
            dc[k, j] = d_c * f


@numba.njit(cache=True)
def gru_backward_step(gates, hn, h_prev, dh_direct, d_rec, grad_out, d, one):
    """Backward of one GRU step. ``gates`` (3H, B) holds the activated r, z, n; ``hn`` the
    recurrent product of the n rows (bias included); the hidden state's gradient is
    ``dh_direct + d_rec`` (the direct path and the last GEMM's product) plus the step's output
    gradient ``grad_out`` when that has rows. Writes ``d`` (4H, B) = [dn, dr, dz, dhn] (the n
    pre-activation, the r and z pre-activations, the recurrent n product) and the direct path
    ``dh * z`` to the previous state into ``dh_direct``."""
    h, b = dh_direct.shape
    add_out = grad_out.shape[0] > 0
    for k in range(h):
        for j in range(b):
            r = gates[k, j]
            z = gates[h + k, j]
            n = gates[2 * h + k, j]
            d_h = dh_direct[k, j] + d_rec[k, j]
            if add_out:
                d_h = d_h + grad_out[k, j]
            d_an = ((one - z) * d_h) * (one - n * n)
            d[k, j] = d_an
            d[h + k, j] = (d_an * hn[k, j]) * ((one - r) * r)
            d[2 * h + k, j] = ((h_prev[k, j] - n) * d_h) * ((one - z) * z)
            d[3 * h + k, j] = d_an * r
            dh_direct[k, j] = d_h * z
