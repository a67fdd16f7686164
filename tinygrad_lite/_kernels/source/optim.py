"""Kernel family ``optim``: one optimizer update of one parameter in one pass over memory.

The NumPy updates in ``tinygrad_lite/optim`` read and write each parameter-sized array several
times (a gradient copy, a temporary per product); these loops read each element once. Every
operation is the NumPy reference's, in the same order and in the arrays' dtype: the
hyper-parameters come in already rounded to that dtype (as NumPy rounds a Python float operand
of a float32 array), and ``y += a * x`` is written as the reference's separate product and sum
(without fastmath numba never fuses them into one FMA), so a step gives the reference's bits.
All arrays are 1-D views of C-contiguous arrays of one dtype. ``error_model="numpy"``: a
division by zero gives inf or NaN as in NumPy (and the loops vectorize without a zero test).
"""

import numba
import numpy as np


@numba.njit(cache=True, error_model="numpy")
def adam(p, grad, m, v, vmax, negate, decoupled, decay, coupled, wd, one_minus_b1, b2,
         one_minus_b2, bc2_sqrt, eps, neg_step_size):
    """Adam/AdamW: ``negate`` (maximize) flips the gradient; ``decoupled`` scales ``p`` by
    ``decay`` first (AdamW's weight decay), ``coupled`` adds ``wd * p`` to the gradient;
    ``vmax`` has the parameter's size with amsgrad, else no elements."""
    amsgrad = vmax.shape[0] > 0
    for i in range(p.shape[0]):
        g = -grad[i] if negate else grad[i]
        w = p[i]
        if decoupled:
            w = w * decay
        elif coupled:
            g = g + w * wd
        mi = m[i] + (g - m[i]) * one_minus_b1
        m[i] = mi
        vi = v[i] * b2 + (g * g) * one_minus_b2
        v[i] = vi
        if amsgrad:
            top = vmax[i]
            top = vi if (vi > top or vi != vi) else top  # np.maximum: NaN wins
            vmax[i] = top
            vi = top
        denom = np.sqrt(vi) / bc2_sqrt + eps
        p[i] = w + (mi / denom) * neg_step_size


@numba.njit(cache=True, error_model="numpy")
def sgd(p, grad, buf, negate, wd, momentum, one_minus_dampening, nesterov, first, neg_lr):
    """SGD: the gradient (negated with maximize, plus ``wd * p`` when ``wd`` != 0); with a
    momentum buffer (``buf`` has elements) ``b = momentum b + (1 - dampening) g`` or ``b = g``
    on the ``first`` step, then ``g + momentum b`` (Nesterov) or ``b``; ``p += -lr * that``."""
    has_momentum = buf.shape[0] > 0
    decay = wd != 0
    for i in range(p.shape[0]):
        d = -grad[i] if negate else grad[i]
        w = p[i]
        if decay:
            d = d + w * wd
        if has_momentum:
            b = d if first else buf[i] * momentum + d * one_minus_dampening
            buf[i] = b
            d = d + b * momentum if nesterov else b
        p[i] = w + d * neg_lr


@numba.njit(cache=True, error_model="numpy")
def rmsprop(p, grad, sq, grad_avg, buf, negate, wd, alpha, one_minus_alpha, eps, momentum,
            neg_lr):
    """RMSprop: ``s = alpha s + (1 - alpha) g^2``; the denominator ``sqrt(s - ga^2) + eps``
    when ``grad_avg`` has elements (centered), else ``sqrt(s) + eps``; with a momentum buffer
    ``b = momentum b + g / avg`` and ``p += -lr b``, else ``p += (g / avg) * -lr``."""
    centered = grad_avg.shape[0] > 0
    has_momentum = buf.shape[0] > 0
    decay = wd != 0
    for i in range(p.shape[0]):
        g = -grad[i] if negate else grad[i]
        w = p[i]
        if decay:
            g = g + w * wd
        s = sq[i] * alpha + (g * g) * one_minus_alpha
        sq[i] = s
        if centered:
            ga = grad_avg[i] + (g - grad_avg[i]) * one_minus_alpha
            grad_avg[i] = ga
            avg = np.sqrt(s - ga * ga) + eps
        else:
            avg = np.sqrt(s) + eps
        if has_momentum:
            b = buf[i] * momentum + g / avg
            buf[i] = b
            p[i] = w + b * neg_lr
        else:
            p[i] = w + (g / avg) * neg_lr
