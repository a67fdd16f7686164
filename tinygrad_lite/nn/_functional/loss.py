"""Loss functions of ``nn.functional``: composites (their gradients come for free), plus nodes
with hand-written rules from ``ops.loss``: the fused common case of ``cross_entropy``, and the
elementwise binary cross-entropies, whose gradients composites get wrong at logit 0 (the kink
of abs and relu) and at probabilities 0 and 1 (NaN); and the Poisson and Gaussian negative
log-likelihoods."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.autocast_state import autocast_state
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...dtypes import is_float_dtype
from ...ops.elementwise import autocast_fp32, bfloat16_in_float32
from ...ops.linalg.inverse import torch_dtype_name
from ...ops.loss import binary_cross_entropy as _bce_elementwise
from ...ops.loss import binary_cross_entropy_with_logits as _bce_logits_elementwise
from ...ops.loss import fused_cross_entropy, log_sigmoid
from ...ops.loss import mse_loss as _mse_node
from ...ops.loss import nll_loss as _nll_node
from ...ops.loss import smooth_l1_loss as _smooth_l1_node

__all__ = ["mse_loss", "l1_loss", "huber_loss", "smooth_l1_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "legacy_reduction",
           "poisson_nll_loss", "gaussian_nll_loss"]


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """PyTorch's mapping of the deprecated ``size_average``/``reduce`` flags to ``reduction``
    (with its warning when either is given); ``reduction`` itself when both are None."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    legacy = "none" if not reduce else "mean" if size_average else "sum"
    warn(f"size_average and reduce args will be deprecated, please use "
         f"reduction='{legacy}' instead.")
    return legacy


def _weighted(loss: TensorBase, weight: TensorBase | None, input: TensorBase, reduction: str,
              op: str, mean_over_weights: bool = True) -> TensorBase:
    """``loss * weight`` reduced as PyTorch's weighted regression losses do: ``mean`` is
    ``sum(w l) / sum(w)`` (``mean(w l)`` for huber_loss)."""
    if weight is None:
        return _reduce(loss, reduction, op)
    if tuple(weight.shape) != tuple(input.shape):
        raise ValueError(f"{op}: Weights and input must have the same size (weight "
                         f"{tuple(weight.shape)}, input {tuple(input.shape)})")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', "
                         "'mean', 'sum'.")
    weighted = loss * weight
    if reduction == "mean" and mean_over_weights:
        return weighted.sum() / weight.sum()
    return _reduce(weighted, reduction, op)


def _one_node(input: TensorBase, target: TensorBase, weight: TensorBase | None,
              reduction: str) -> bool:
    """Whether a regression loss runs as its one-node primitive (PyTorch's node, reduction
    inside): same shapes and floating dtype, no weight, a known reduction."""
    return (weight is None and reduction in ("none", "mean", "sum")
            and input._data.shape == target._data.shape
            and input._data.dtype == target._data.dtype and is_float_dtype(input._data.dtype))


def _reduce(loss: TensorBase, reduction: str, op: str) -> TensorBase:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{op}: {reduction!r} is not a valid value for reduction "
                     "(expected 'none', 'mean' or 'sum')")


def _as_tensor(x: object, like: TensorBase) -> TensorBase:
    return x if isinstance(x, TensorBase) else wrap(np.asarray(x, like._data.dtype))


def _check_same_shape(input: TensorBase, target: TensorBase, op: str) -> None:
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(
            f"{op}: target size {tuple(target.shape)} must be the same as input size "
            f"{tuple(input.shape)}"
        )


def _warn_if_broadcast(input: TensorBase, target: object, op: str) -> None:
    """PyTorch's warning for the classic (N, 1) prediction against an (N,) target, which
    broadcasts to (N, N) and trains on the wrong loss without any error."""
    target_shape = tuple(getattr(target, "shape", ()))
    if isinstance(target, TensorBase) and target_shape != tuple(input.shape):
        warn(f"{op}: using a target size ({target_shape}) that is different to the input size "
             f"({tuple(input.shape)}). This will likely lead to incorrect results due to "
             "broadcasting. Please ensure they have the same size.")


def _check_class_weight(weight: TensorBase | None, input: TensorBase, op: str) -> None:
    """A class weight must have one entry per class (the size of dim 1, or dim 0 unbatched)."""
    if weight is None or input.ndim == 0:
        return
    classes = input.shape[0 if input.ndim == 1 else 1]
    if tuple(weight.shape) != (classes,):
        raise RuntimeError(
            f"{op}: weight tensor should be defined either for all {classes} classes or no "
            f"classes but got weight tensor of shape: {list(weight.shape)}")
    if weight._data.dtype != input._data.dtype:  # PyTorch's kernels take one dtype, no promotion
        raise RuntimeError(f"{op}: expected scalar type {torch_dtype_name(input._data.dtype)} "
                           f"but found {torch_dtype_name(weight._data.dtype)}")


def _check_index_target_dtype(input: TensorBase, target: object, op: str) -> None:
    """A float target shaped like class indices is a mistake (indices must be integers);
    say so rather than complain about the shape probabilities would need."""
    t = target._data if isinstance(target, TensorBase) else np.asarray(target)
    if t.dtype.kind in "iu" and t.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"{op}: expected target dtype to be Long or Byte (int64 or uint8 "
                           f"class indices), but got {t.dtype}; use target.long()")
    index_shape = tuple(input.shape[:1]) + tuple(input.shape[2:]) if input.ndim > 1 else ()
    if is_float_dtype(t.dtype) and tuple(t.shape) == index_shape and input.ndim > 0:
        raise RuntimeError(
            f"{op}: target of shape {tuple(t.shape)} looks like class indices but has dtype "
            f"{t.dtype}; class indices must be integers (use target.long()), and class "
            f"probabilities must have the input's shape {tuple(input.shape)}")


@bfloat16_in_float32(autocast_fp32=True)
def mse_loss(input: TensorBase, target: TensorBase, size_average: Any = None,
             reduce: Any = None, reduction: str = "mean",
             weight: TensorBase | None = None) -> TensorBase:
    """Squared error ``(input - target) ** 2``, reduced (``weight``: per-element weights)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    input, target = autocast_fp32(input, _as_tensor(target, input))  # float32 under autocast
    _warn_if_broadcast(input, target, "mse_loss")
    if _one_node(input, target, weight, reduction):
        return _mse_node(input, target, reduction)
    diff = input - target
    return _weighted(diff * diff, weight, input, reduction, "mse_loss")


@bfloat16_in_float32(autocast_fp32=True)
def l1_loss(input: TensorBase, target: TensorBase, size_average: Any = None, reduce: Any = None,
            reduction: str = "mean", weight: TensorBase | None = None) -> TensorBase:
    """Absolute error ``|input - target|``, reduced (``weight``: per-element weights)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    input, target = autocast_fp32(input, _as_tensor(target, input))
    _warn_if_broadcast(input, target, "l1_loss")
    return _weighted(_fn.abs(input - target), weight, input, reduction, "l1_loss")


@bfloat16_in_float32(autocast_fp32=True)
def huber_loss(input: TensorBase, target: TensorBase, reduction: str = "mean", delta: float = 1.0,
               weight: TensorBase | None = None) -> TensorBase:
    """Quadratic for ``|d| < delta``, linear (slope delta) beyond (``weight``: per-element
    weights, averaged over the element count as PyTorch does)."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = autocast_fp32(input, _as_tensor(target, input))
    _warn_if_broadcast(input, target, "huber_loss")
    if _one_node(input, target, weight, reduction):
        return _smooth_l1_node(input, target, delta, reduction, delta=delta)
    d = input - target
    a = _fn.abs(d)
    loss = _fn.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    return _weighted(loss, weight, input, reduction, "huber_loss", mean_over_weights=False)


@bfloat16_in_float32(autocast_fp32=True)
def smooth_l1_loss(input: TensorBase, target: TensorBase, size_average: Any = None,
                   reduce: Any = None, reduction: str = "mean", beta: float = 1.0
                   ) -> TensorBase:
    """``0.5 d^2 / beta`` for ``|d| < beta``, ``|d| - 0.5 beta`` beyond (L1 when beta=0)."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = autocast_fp32(input, _as_tensor(target, input))
    _warn_if_broadcast(input, target, "smooth_l1_loss")
    if _one_node(input, target, None, reduction) and beta > 0:
        return _smooth_l1_node(input, target, beta, reduction)
    d = input - target
    a = _fn.abs(d)
    if beta == 0.0:
        return _reduce(a, reduction, "smooth_l1_loss")
    loss = _fn.where(a < beta, (0.5 / beta) * d * d, a - 0.5 * beta)
    return _reduce(loss, reduction, "smooth_l1_loss")


def _class_last(x: TensorBase) -> TensorBase:
    """(N, C, d1, ...) -> (N * d1 * ..., C); (C,) -> (1, C)."""
    if x.ndim == 1:
        return x.reshape(1, -1)
    if x.ndim > 2:
        x = x.permute(0, *range(2, x.ndim), 1)
    return x.reshape(-1, x.shape[-1])


def _nll(logp: TensorBase, target: TensorBase, weight: TensorBase | None, ignore_index: int,
         reduction: str, label_smoothing: float, op: str) -> TensorBase:
    """NLL of log-probabilities ``logp`` (class dim 1, or 0 unbatched) at class indices."""
    t = target._data if isinstance(target, TensorBase) else np.asarray(target)
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"{op}: expected target of integer dtype (class indices), got "
                           f"{t.dtype}; probabilities need a floating target of the input's shape")
    batch_shape = logp.shape[:1] + logp.shape[2:] if logp.ndim > 1 else ()
    if tuple(t.shape) != tuple(batch_shape):
        raise ValueError(f"{op}: expected target of shape {tuple(batch_shape)} for input of "
                         f"shape {tuple(logp.shape)}, got {tuple(t.shape)}")
    flat = _class_last(logp)
    m, c = flat.shape
    tf = t.reshape(-1)
    valid = tf != ignore_index
    if np.any((tf[valid] < 0) | (tf[valid] >= c)):
        raise IndexError(f"{op}: target {tf[valid].min()}..{tf[valid].max()} is out of bounds "
                         f"for {c} classes")
    safe = np.where(valid, tf, 0)
    dtype = logp._data.dtype
    w_all = np.ones(c, dtype) if weight is None else weight._data.astype(dtype)
    w_row = (w_all[safe] * valid).astype(dtype)  # per-sample weight, 0 where ignored
    picked = flat[np.arange(m), safe]  # advanced indexing selects the target log-prob
    loss = -picked * wrap(w_row)
    smooth = None
    if label_smoothing > 0.0:
        wl = flat if weight is None else flat * weight.reshape(1, c)
        smooth = -wl.sum(1) * wrap(valid.astype(dtype))
    if reduction == "none":
        out = loss if smooth is None else (1 - label_smoothing) * loss + \
            (label_smoothing / c) * smooth
        return out.reshape(batch_shape)
    if reduction == "sum":
        out = loss.sum()
        return out if smooth is None else (1 - label_smoothing) * out + \
            (label_smoothing / c) * smooth.sum()
    if reduction != "mean":
        raise ValueError(f"{op}: {reduction!r} is not a valid value for reduction")
    denom = float(w_row.sum())
    if not valid.any():  # every target ignored: NaN (PyTorch's 0 / 0), zero gradients (weights
        # summing to 0 over kept targets do divide by 0, NaN gradients, as there)
        return (loss.sum() if smooth is None else loss.sum() + smooth.sum()) + math.nan
    out = loss.sum() / denom
    if smooth is None:
        return out
    smooth_denom = denom if weight is not None else float(valid.sum())
    return (1 - label_smoothing) * out + (label_smoothing / c) * (smooth.sum() / smooth_denom)


@bfloat16_in_float32(autocast_fp32=True)
def nll_loss(input: TensorBase, target: TensorBase, weight: TensorBase | None = None,
             size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
             reduction: str = "mean") -> TensorBase:
    """Negative log-likelihood of log-probabilities ``input`` (N, C, ...) at class indices;
    ``mean`` divides by the summed weights of the non-ignored targets."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    (input,) = autocast_fp32(input)
    _check_class_weight(weight, input, "nll_loss")
    _check_index_target_dtype(input, target, "nll_loss")
    fused = _nll_node(input, target, ignore_index, reduction) if weight is None else None
    if fused is not None:  # one node, PyTorch's NllLossBackward0
        return fused
    return _nll(input, target, weight, ignore_index, reduction, 0.0, "nll_loss")


@bfloat16_in_float32(autocast_fp32=True)
def cross_entropy(input: TensorBase, target: TensorBase, weight: TensorBase | None = None,
                  size_average: Any = None, ignore_index: int = -100, reduce: Any = None,
                  reduction: str = "mean", label_smoothing: float = 0.0) -> TensorBase:
    """``nll_loss(log_softmax(input, 1), target)`` for class indices, or ``-sum(target *
    log_softmax(input))`` per sample for class probabilities (a float target of input's shape);
    with ``label_smoothing`` the target is mixed with the uniform distribution."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    (input,) = autocast_fp32(input)  # PyTorch's CPU autocast runs losses in float32
    if label_smoothing > 1.0:  # PyTorch's check; a negative value smooths nothing (no error)
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")
    _check_class_weight(weight, input, "cross_entropy")
    _check_index_target_dtype(input, target, "cross_entropy")
    fused = fused_cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)
    if fused is not None:
        return fused
    class_dim = 0 if input.ndim == 1 else 1
    logp = _fn.log_softmax(input, class_dim)
    t = target._data if isinstance(target, TensorBase) else np.asarray(target)
    if not is_float_dtype(t.dtype):
        return _nll(logp, target, weight, ignore_index, reduction, label_smoothing,
                    "cross_entropy")
    target = _as_tensor(target, input)
    if tuple(input.shape) != tuple(target.shape):  # PyTorch: a RuntimeError (BCE's is ValueError)
        raise RuntimeError(f"cross_entropy: class-probability target of shape "
                           f"{tuple(target.shape)} must have the input's shape "
                           f"{tuple(input.shape)}")
    c = input.shape[class_dim]
    if label_smoothing > 0.0:
        target = target * (1 - label_smoothing) + label_smoothing / c
    terms = logp * target
    if weight is not None:
        wshape = (c,) + (1,) * (input.ndim - class_dim - 1)
        terms = terms * weight.reshape(wshape)
    loss = -terms.sum(class_dim)
    if reduction == "mean" and input.ndim > 1:
        return loss.sum() / (input.numel() // c)
    return _reduce(loss, reduction, "cross_entropy")


@bfloat16_in_float32(autocast_fp32=True)
def binary_cross_entropy(input: TensorBase, target: TensorBase, weight: TensorBase | None = None,
                         size_average: Any = None, reduce: Any = None,
                         reduction: str = "mean") -> TensorBase:
    """``-(t log x + (1 - t) log(1 - x))``, the logs clamped at -100 as in PyTorch."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    (input,) = autocast_fp32(input)
    target = _as_tensor(target, input)
    _check_same_shape(input, target, "binary_cross_entropy")
    if input._data.size and (input._data.min() < 0 or input._data.max() > 1):
        raise RuntimeError("binary_cross_entropy: all elements of input should be between 0 "
                           "and 1")
    if target._data.dtype != input._data.dtype:
        if autocast_state.dtype is None:  # PyTorch's kernel takes one dtype, no promotion
            raise RuntimeError(f"Found dtype {torch_dtype_name(target._data.dtype)} but "
                               f"expected {torch_dtype_name(input._data.dtype)}")
        target = target.to(input.dtype)  # autocast casts the input alone to float32
    # one node: PyTorch's gradient (x - t) / max(x (1 - x), 1e-12) stays finite at 0 and 1
    if weight is None and reduction in ("none", "mean", "sum"):
        return _bce_elementwise(input, target, reduction)
    loss = _bce_elementwise(input, target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy")


@bfloat16_in_float32(autocast_fp32=True)
def binary_cross_entropy_with_logits(input: TensorBase, target: TensorBase,
                                     weight: TensorBase | None = None,
                                     size_average: Any = None, reduce: Any = None,
                                     reduction: str = "mean",
                                     pos_weight: TensorBase | None = None) -> TensorBase:
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably; ``pos_weight`` scales
    the positive term."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    (input,) = autocast_fp32(input)
    target = _as_tensor(target, input)
    _check_same_shape(input, target, "binary_cross_entropy_with_logits")
    # (1 - t) x - log(sigmoid(x)) with the exact gradient sigmoid(x) - t: a stable composite of
    # abs and relu would take their derivative 0 at x = 0 and give 1 - t there
    pw_grad = isinstance(pos_weight, TensorBase) and pos_weight._requires_grad
    if not (target._requires_grad or pw_grad) and target._data.dtype == input._data.dtype:
        pw = None if pos_weight is None else \
            _as_tensor(pos_weight, input)._data.astype(input._data.dtype, copy=False)
        if weight is None and reduction in ("none", "mean", "sum"):
            return _bce_logits_elementwise(input, target._data, pw, reduction)
        loss = _bce_logits_elementwise(input, target._data, pw)  # PyTorch's rule, one node
    elif pos_weight is not None:  # a composite, for gradients of the target or pos_weight
        log_weight = (pos_weight - 1.0) * target + 1.0
        loss = (1.0 - target) * input - log_weight * log_sigmoid(input)
    else:  # log_sigmoid: the gradient sigmoid(-x), exact at 0 too
        loss = (1.0 - target) * input - log_sigmoid(input)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction, "binary_cross_entropy_with_logits")


@bfloat16_in_float32(autocast_fp32=True)
def kl_div(input: TensorBase, target: TensorBase, size_average: Any = None, reduce: Any = None,
           reduction: str = "mean", log_target: bool = False) -> TensorBase:
    """``target * (log(target) - input)`` with log-probabilities ``input``; ``batchmean``
    divides the sum by the batch size (the mathematically correct KL)."""
    if reduction == "mean" and size_average is None and reduce is None:
        warn("reduction: 'mean' divides the total loss by both the batch size and the support "
             "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
             "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
             "major release.")
    reduction = legacy_reduction(size_average, reduce, reduction)
    (input,) = autocast_fp32(input)
    target = _as_tensor(target, input)
    if log_target:
        loss = _fn.exp(target) * (target - input)
    else:
        # PyTorch's xlogy(t, t): 0 at t = 0, NaN below, and its rules: the target's gradient
        # log(t) + 1 - input, NaN at t = 0 (the t / t of xlogy's second argument)
        loss = _fn.xlogy(target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / (input.shape[0] if input.ndim else 1)
    return _reduce(loss, reduction, "kl_div")


@bfloat16_in_float32
def poisson_nll_loss(input: TensorBase, target: TensorBase, log_input: bool = True,
                     full: bool = False, size_average: Any = None, eps: float = 1e-8,
                     reduce: Any = None, reduction: str = "mean") -> TensorBase:
    """Negative log-likelihood of a Poisson target: ``exp(x) - t x`` with ``log_input``,
    else ``x - t log(x + eps)``; ``full`` adds Stirling's term for targets > 1."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        # PyTorch's Stirling term of every target, masked to 0 where t <= 1: the mask passes
        # no gradient, but the target's gradient there is still 0 * d(stirling)/dt, NaN at t = 0
        # (log(0) and 1 / 0), as in PyTorch
        t = target
        stirling = t * t.log() - t + 0.5 * (2 * math.pi * t).log()
        loss = loss + _fn.where(t > 1, stirling, 0.0)
    return _reduce(loss, reduction, "poisson_nll_loss")


@bfloat16_in_float32
def gaussian_nll_loss(input: TensorBase, target: TensorBase, var: Any, full: bool = False,
                      eps: float = 1e-6, reduction: str = "mean") -> TensorBase:
    """``0.5 (log(var) + (input - target)^2 / var)`` (+ ``0.5 log(2 pi)`` with ``full``);
    ``var`` is clamped to ``eps`` (without gradient through the clamp, as PyTorch)."""
    if not isinstance(var, TensorBase):  # a Python number: a constant of the input's dtype
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = wrap(np.full(input._data.shape, var, input._data.dtype))
    elif (var.detach() < 0).any():
        raise ValueError("var has negative entry/entries")
    v = var
    in_shape, var_shape = tuple(input.shape), tuple(v.shape)
    if var_shape != in_shape:
        if var_shape == in_shape[:-1]:  # one variance per sample (homoscedastic)
            v = v.unsqueeze(-1)
        # else PyTorch's rule: the same rank, and the sizes where they differ from the
        # input's sum to 1 (one dim of size 1 that broadcasts, (N, 1, H, W) for (N, C, H, W))
        elif not (len(var_shape) == len(in_shape) and sum(
                b for a, b in zip(in_shape, var_shape) if a != b) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not valid")
    v = _fn.where(v.detach() < eps, v - v.detach() + eps, v)
    loss = 0.5 * (v.log() + (input - target) ** 2 / v)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction, "gaussian_nll_loss")
