"""The connectionist temporal classification loss as a primitive: the forward-backward algorithm
in log space, vectorised over the batch and the extended label sequence (a Python loop over time
only), with ``CtcLossBackward0``, whose gradient the same pass computes."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase, wrap

__all__ = ["CtcLossBackward0", "ctc_loss"]


class CtcLossBackward0(Node):
    """Gradient of the per-sample CTC negative log-likelihoods with respect to ``log_probs``
    (PyTorch's formula ``exp(lp) - occupancy``, which assumes normalised log-probabilities)."""

    grad_lp: np.ndarray  # (T, N, C): the gradient for an upstream gradient of one per sample
    unbatched: bool

    def backward(self, grad: Any) -> tuple:
        """The input gradients for the output gradient ``grad``."""
        shape = (1, -1, 1) if not self.unbatched else (1, 1)
        if isinstance(grad, TensorBase):  # create_graph: a constant (PyTorch has no 2nd order)
            g = wrap(self.grad_lp if not self.unbatched else self.grad_lp[:, 0])
            return (g * grad.reshape(shape), None)
        g = self.grad_lp if not self.unbatched else self.grad_lp[:, 0]
        return ((g * np.reshape(grad, shape)).astype(g.dtype, copy=False), None)


def _logsumexp3(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Elementwise ``log(exp(a) + exp(b) + exp(c))``, -inf where all three are -inf."""
    m = np.maximum(np.maximum(a, b), c)
    safe = np.where(np.isfinite(m), m, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.exp(a - safe) + np.exp(b - safe) + np.exp(c - safe))


def _shift(x: np.ndarray, k: int) -> np.ndarray:
    """``x`` moved ``k`` places along the last axis (right for k > 0), filled with -inf."""
    out = np.full_like(x, -np.inf)
    if k > 0:
        out[..., k:] = x[..., :-k]
    else:
        out[..., :k] = x[..., -k:]
    return out


def ctc_forward_backward(lp: np.ndarray, targets: np.ndarray, in_len: np.ndarray,
                          tg_len: np.ndarray, blank: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample negative log-likelihoods (N,) and their gradient (T, N, C) of float64 ``lp``."""
    t_max, n, c = lp.shape
    s_ext = 2 * targets.shape[1] + 1
    ext = np.full((n, s_ext), blank, np.int64)  # blank, l1, blank, l2, ..., blank
    ext[:, 1::2] = targets
    valid = np.arange(s_ext) < (2 * tg_len + 1)[:, None]
    # the skip from s-2 to s is allowed onto a label that differs from the previous label
    skip = np.zeros((n, s_ext), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    lp_ext = lp[:, np.arange(n)[:, None], ext]  # (T, N, S')
    neg = np.float64(-np.inf)
    alpha = np.full((t_max, n, s_ext), neg)
    first = np.full((n, s_ext), neg)
    first[:, 0] = lp_ext[0, :, 0]
    first[:, 1] = np.where(tg_len > 0, lp_ext[0, :, 1], neg) if s_ext > 1 else neg
    alpha[0] = np.where(valid & (in_len > 0)[:, None], first, neg)
    for t in range(1, t_max):
        a = alpha[t - 1]
        step = _logsumexp3(a, _shift(a, 1), np.where(skip, _shift(a, 2), neg)) + lp_ext[t]
        alpha[t] = np.where(valid & np.asarray(in_len > t)[:, None], step, neg)
    beta = np.full((t_max, n, s_ext), neg)
    rows = np.arange(n)
    last = np.full((n, s_ext), neg)
    end = 2 * tg_len
    has = np.nonzero(tg_len > 0)[0]
    skip_next = np.zeros((n, s_ext), bool)  # may s jump to s+2
    skip_next[:, :-2] = skip[:, 2:]
    for t in range(t_max - 1, -1, -1):
        last[:] = neg
        last[rows, end] = lp_ext[t, rows, end]
        last[has, end[has] - 1] = lp_ext[t, has, end[has] - 1]
        if t + 1 < t_max:
            b = beta[t + 1]
            step = _logsumexp3(b, _shift(b, -1), np.where(skip_next, _shift(b, -2), neg)) \
                + lp_ext[t]
        else:
            step = np.full((n, s_ext), neg)
        at_end = np.asarray(in_len - 1 == t)
        cur = np.where(at_end[:, None], last, step)
        beta[t] = np.where(valid & np.asarray(in_len > t)[:, None], cur, neg)
    final = alpha[np.maximum(in_len - 1, 0), rows]  # (N, S')
    ll = np.logaddexp(final[rows, end], np.where(tg_len > 0, final[rows, np.maximum(end - 1, 0)],
                                                 neg))
    nll = -ll
    # occupancy of class c at time t: logsumexp over s with ext[s] == c of alpha + beta - lp
    ab = alpha + beta
    m = ab.max(axis=2, keepdims=True)
    m = np.where(np.isfinite(m), m, 0.0)
    onehot = (ext[:, :, None] == np.arange(c)).astype(np.float64)  # (N, S', C)
    summed = np.einsum("tns,nsc->tnc", np.exp(ab - m), onehot)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        occ = np.exp(np.log(summed) + m + nll[None, :, None] - lp)
        grad = np.exp(lp) - occ
    grad = np.where((np.arange(t_max)[:, None] < in_len)[:, :, None], grad, 0.0)
    return nll, grad


def ctc_loss(log_probs: TensorBase, targets: np.ndarray, in_len: np.ndarray, tg_len: np.ndarray,
             blank: int, zero_infinity: bool) -> TensorBase:
    """The per-sample CTC negative log-likelihoods of ``log_probs`` (T, N, C) or (T, C) against
    the padded (N, S) ``targets`` (checked labels, lengths ``tg_len``) over ``in_len`` steps."""
    unbatched = log_probs.ndim == 2
    lp = log_probs._data if not unbatched else log_probs._data[:, None]
    t_max, n = lp.shape[:2]
    tg = targets
    if t_max == 0 or n == 0:
        nll, grad = np.full(n, np.inf), np.zeros(lp.shape)
    else:
        nll, grad = ctc_forward_backward(lp.astype(np.float64), tg, in_len, tg_len, blank)
    if zero_infinity:
        bad = np.isinf(nll)
        nll = np.where(bad, 0.0, nll)
        grad = np.where(bad[None, :, None], 0.0, grad)
    dtype = log_probs._data.dtype
    node = None
    if grad_state.enabled and log_probs._requires_grad:
        node = CtcLossBackward0(log_probs, wrap(tg))
        node.grad_lp, node.unbatched = grad.astype(dtype), unbatched
    losses = wrap(nll.astype(dtype) if not unbatched else nll[0].astype(dtype), node)
    return losses
