"""Activation kernels: exact and tanh GELU, leaky_relu, ReLU's gradient; forward and backward.

Each works on flat C-contiguous arrays of one dtype (the caller passes ``a.reshape(-1)``) and
comes in a serial and a ``parallel`` variant (``prange``). The operations are those of the
NumPy reference in the same order, with the constants passed in the array's dtype, so that
float32 arithmetic stays float32. The transcendental functions (exp, tanh) are left to NumPy's
vectorised loops between two kernels: numba calls libm once per element, 5-40x slower than
NumPy's SIMD exp and tanh on this CPU (no SVML). The rational erf of float32 GELU is plain
arithmetic and runs inside the kernel. No fastmath: NaN and inf propagate as in the reference.
``error_model="numpy"``: a division by zero gives inf or NaN as in NumPy, with no exception
check per element (which also kept LLVM from vectorising the loops: 10x on float32 GELU).
"""

import numba
import numpy as np

# erf(x) ~ x P(x^2) / Q(x^2) on [-4, 4], clipped beyond: the reference's float32 coefficients
P0 = np.float32(-2.72614225801306e-10)
P1 = np.float32(2.77068142495902e-08)
P2 = np.float32(-2.10102402082508e-06)
P3 = np.float32(-5.69250639462346e-05)
P4 = np.float32(-7.34990630326855e-04)
P5 = np.float32(-2.95459980854025e-03)
P6 = np.float32(-1.60960333262415e-02)
Q0 = np.float32(-1.45660718464996e-05)
Q1 = np.float32(-2.13374055278905e-04)
Q2 = np.float32(-1.68282697438203e-03)
Q3 = np.float32(-7.37332916720468e-03)
Q4 = np.float32(-1.42647390514189e-02)
FOUR = np.float32(4.0)
ONE = np.float32(1.0)
HALF = np.float32(0.5)
INV_SQRT2 = np.float32(0.7071067811865476)


@numba.njit(cache=True, error_model="numpy")
def _gelu_erf32(v):
    """(out, Phi) of one float32 value, the reference's passes in their order."""
    s = v * INV_SQRT2
    c = FOUR if s > FOUR else s  # the clip to [-4, 4] as selects (NaN stays NaN)
    c = -FOUR if s < -FOUR else c
    sq = c * c
    num = sq * P0
    num += P1
    num *= sq
    num += P2
    num *= sq
    num += P3
    num *= sq
    num += P4
    num *= sq
    num += P5
    num *= sq
    num += P6
    den = sq * Q0
    den += Q1
    den *= sq
    den += Q2
    den *= sq
    den += Q3
    den *= sq
    den += Q4
    num *= c
    num /= den
    num += ONE
    num *= HALF
    return num * v, num


@numba.njit(cache=True, error_model="numpy")
def gelu_erf32_forward(x, out, saved):
    for i in range(x.size):
        out[i], saved[i] = _gelu_erf32(x[i])


@numba.njit(cache=True, parallel=True, error_model="numpy")
def gelu_erf32_forward_parallel(x, out, saved):
    for i in numba.prange(x.size):
        out[i], saved[i] = _gelu_erf32(x[i])


# exact GELU's backward, grad * (Phi + x phi(x)): t = -x^2 / 2 here, exp(t) by NumPy, then
# the rest


@numba.njit(cache=True, error_model="numpy")
def gelu_erf_backward_exponent(x, t, minus_half):
    for i in range(x.size):
        t[i] = x[i] * minus_half * x[i]


@numba.njit(cache=True, parallel=True, error_model="numpy")
def gelu_erf_backward_exponent_parallel(x, t, minus_half):
    for i in numba.prange(x.size):
        t[i] = x[i] * minus_half * x[i]


@numba.njit(cache=True, error_model="numpy")
def gelu_erf_backward_finish(grad, x, phi, t, inv_sqrt_2pi):
    for i in range(x.size):
        t[i] = (t[i] * inv_sqrt_2pi * x[i] + phi[i]) * grad[i]


@numba.njit(cache=True, parallel=True, error_model="numpy")
def gelu_erf_backward_finish_parallel(grad, x, phi, t, inv_sqrt_2pi):
    for i in numba.prange(x.size):
        t[i] = (t[i] * inv_sqrt_2pi * x[i] + phi[i]) * grad[i]


# tanh GELU: inner = scale (x + cubic x^3) here, tanh by NumPy, then 0.5 x (1 + tanh)


@numba.njit(cache=True, error_model="numpy")
def gelu_tanh_inner(x, t, cubic, scale, one):
    for i in range(x.size):
        v = x[i]
        t[i] = (v * v * cubic + one) * v * scale


@numba.njit(cache=True, parallel=True, error_model="numpy")
def gelu_tanh_inner_parallel(x, t, cubic, scale, one):
    for i in numba.prange(x.size):
        v = x[i]
        t[i] = (v * v * cubic + one) * v * scale


@numba.njit(cache=True, error_model="numpy")
def gelu_tanh_finish(x, t, out, one, half):
    for i in range(x.size):
        out[i] = (t[i] + one) * x[i] * half


@numba.njit(cache=True, parallel=True, error_model="numpy")
def gelu_tanh_finish_parallel(x, t, out, one, half):
    for i in numba.prange(x.size):
        out[i] = (t[i] + one) * x[i] * half


@numba.njit(cache=True, error_model="numpy")
def _gelu_tanh_grad(g, v, th, three_cubic, scale, one, half):
    slope = scale * (one + three_cubic * v * v)
    return g * (half * (one + th) + half * v * (one - th * th) * slope)


@numba.njit(cache=True, error_model="numpy")
def gelu_tanh_backward(grad, x, th, out, three_cubic, scale, one, half):
    for i in range(x.size):
        out[i] = _gelu_tanh_grad(grad[i], x[i], th[i], three_cubic, scale, one, half)


@numba.njit(cache=True, parallel=True, error_model="numpy")
def gelu_tanh_backward_parallel(grad, x, th, out, three_cubic, scale, one, half):
    for i in numba.prange(x.size):
        out[i] = _gelu_tanh_grad(grad[i], x[i], th[i], three_cubic, scale, one, half)


# leaky_relu: x where x > 0, slope x elsewhere (NaN: slope * NaN = NaN); the gradient likewise


@numba.njit(cache=True, error_model="numpy")
def leaky_relu_forward(x, out, slope):
    for i in range(x.size):
        v = x[i]
        out[i] = v if v > 0 else v * slope


@numba.njit(cache=True, parallel=True, error_model="numpy")
def leaky_relu_forward_parallel(x, out, slope):
    for i in numba.prange(x.size):
        v = x[i]
        out[i] = v if v > 0 else v * slope


@numba.njit(cache=True, error_model="numpy")
def leaky_relu_backward(grad, x, out, slope):
    for i in range(x.size):
        g = grad[i]
        out[i] = g if x[i] > 0 else g * slope


@numba.njit(cache=True, parallel=True, error_model="numpy")
def leaky_relu_backward_parallel(grad, x, out, slope):
    for i in numba.prange(x.size):
        g = grad[i]
        out[i] = g if x[i] > 0 else g * slope


# ReLU's gradient: grad where the result is not 0 (NaN results pass it), +0.0 elsewhere


@numba.njit(cache=True, error_model="numpy")
def relu_backward(grad, result, out, zero):
    for i in range(grad.size):
        out[i] = grad[i] if result[i] != zero else zero


@numba.njit(cache=True, parallel=True, error_model="numpy")
def relu_backward_parallel(grad, result, out, zero):
    for i in numba.prange(grad.size):
        out[i] = grad[i] if result[i] != zero else zero
