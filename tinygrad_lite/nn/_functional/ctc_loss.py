"""The connectionist temporal classification loss of ``nn.functional`` (``ctc_loss``): the
arguments are checked and the targets padded here, the loss and its gradient are the primitive
``ops.ctc_loss`` (the forward-backward algorithm in log space)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..._core.tensor_base import TensorBase, wrap
from ...ops import ctc_loss as ops_ctc_loss

__all__ = ["ctc_loss"]


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
    losses = ops_ctc_loss.ctc_loss(log_probs, tg, in_len, tg_len, blank, zero_infinity)
    dtype = log_probs._data.dtype
    if reduction == "none":
        return losses
    if reduction == "sum":
        return losses.sum()
    per_len = np.maximum(tg_len, 1).astype(dtype)
    return (losses / wrap(per_len if not unbatched else per_len[0])).mean()
