"""The connectionist temporal classification loss of ``nn.functional`` (``ctc_loss``): the
forward-backward algorithm in log space, vectorised over the batch and the extended label
sequence (a Python loop over time only), with a hand-written gradient node."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.grad_mode import grad_state
from ..._core.graph import Node
from ..._core.tensor_base import TensorBase, wrap

__all__ = ["ctc_loss"]


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


def _lengths(value: Any, n: int, name: str) -> np.ndarray:
    """Lengths given as a tensor, a sequence or an int, as an int64 array of ``n`` entries."""
    arr = np.asarray(value._data if isinstance(value, TensorBase) else value)
    if arr.dtype.kind not in "iu":
        raise RuntimeError(f"ctc_loss: {name} must be integers, got {arr.dtype}")
    arr = arr.astype(np.int64).reshape(-1)
    if arr.size != n:
        raise RuntimeError(f"ctc_loss: expected {name} to have {n} entries (the batch size), "
                           f"got {arr.size}")
    return arr


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


def _targets_padded(targets: Any, target_lengths: np.ndarray) -> np.ndarray:
    """The targets as an (N, S) array, from the padded 2-D or the concatenated 1-D form."""
    t = np.asarray(targets._data if isinstance(targets, TensorBase) else targets)
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"ctc_loss: targets must be integers, got {t.dtype}")
    n = target_lengths.size
    s_max = int(target_lengths.max()) if n else 0
    if t.ndim == 2:
        if t.shape[0] != n:
            raise RuntimeError(f"ctc_loss: targets has batch size {t.shape[0]}, expected {n}")
        if s_max > t.shape[1]:
            raise RuntimeError(f"ctc_loss: target length {s_max} exceeds the targets' second "
                               f"dimension {t.shape[1]}")
        return t[:, :s_max].astype(np.int64)
    if t.ndim != 1:
        raise RuntimeError(f"ctc_loss: targets must be 1-D or 2-D, got {t.ndim}-D")
    if n == 1 and t.size >= s_max and target_lengths.sum() <= t.size:
        return t[None, :s_max].astype(np.int64)  # one unbatched or padded sequence
    if int(target_lengths.sum()) != t.size:
        raise RuntimeError(f"ctc_loss: concatenated targets have {t.size} entries but the "
                           f"target lengths sum to {int(target_lengths.sum())}")
    starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
    cols = np.arange(s_max)
    idx = np.minimum(starts[:, None] + cols, max(t.size - 1, 0))
    return np.where(cols < target_lengths[:, None], t[idx] if t.size else 0, 0).astype(np.int64)


def _ctc_forward_backward(lp: np.ndarray, targets: np.ndarray, in_len: np.ndarray,
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


def ctc_loss(log_probs: TensorBase, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: str = "mean", zero_infinity: bool = False) -> TensorBase:
    """The CTC loss of ``log_probs`` (T, N, C) or (T, C) against ``targets`` (padded (N, S) or
    concatenated); ``"mean"`` divides each loss by its target length, then averages."""
    if not isinstance(log_probs, TensorBase):
        raise TypeError(f"ctc_loss(): argument 'log_probs' must be Tensor, not "
                        f"{type(log_probs).__name__}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    unbatched = log_probs.ndim == 2
    if log_probs.ndim not in (2, 3):
        raise RuntimeError(f"ctc_loss: log_probs must be (T, N, C) or (T, C), got shape "
                           f"{tuple(log_probs.shape)}")
    lp = log_probs._data if not unbatched else log_probs._data[:, None]
    t_max, n, c = lp.shape
    in_len = _lengths(input_lengths, n, "input_lengths")
    tg_len = _lengths(target_lengths, n, "target_lengths")
    if not 0 <= blank < c:
        raise RuntimeError(f"ctc_loss: blank must be in label range [0, {c}), got {blank}")
    if (in_len > t_max).any() or (in_len < 0).any():
        raise RuntimeError(f"ctc_loss: input_lengths must be in [0, {t_max}], got "
                           f"{in_len.tolist()}")
    if (tg_len < 0).any():
        raise RuntimeError("ctc_loss: target_lengths must be non-negative")
    tg = _targets_padded(targets, tg_len)
    if tg.size and ((tg < 0) | (tg >= c)).any():
        mask = np.arange(tg.shape[1]) < tg_len[:, None]
        if (((tg < 0) | (tg >= c)) & mask).any():
            raise RuntimeError(f"ctc_loss: target labels must be in [0, {c})")
        tg = np.where(mask, tg, blank)
    if t_max == 0 or n == 0:
        nll, grad = np.full(n, np.inf), np.zeros(lp.shape)
    else:
        nll, grad = _ctc_forward_backward(lp.astype(np.float64), tg, in_len, tg_len, blank)
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
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    per_len = np.maximum(tg_len, 1).astype(dtype)
    return (losses / wrap(per_len if not unbatched else per_len[0])).mean()
