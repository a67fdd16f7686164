"""Loss primitives with a hand-written backward: the fused softmax cross-entropy; log-sigmoid
and the elementwise binary cross-entropy with logits (exact gradients at logit 0, where a stable
composite of abs and relu takes their derivative there as 0); the elementwise binary
cross-entropy (PyTorch's clamped, finite gradient at probabilities 0 and 1)."""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from ..dtypes import is_float_dtype
from .common import is_array, wrap
from .elementwise import where_rule
from .kernel_choice import kernels_for, run_kernels

__all__ = ["NllLossBackward0", "fused_cross_entropy", "nll_loss", "LogSigmoidBackward0",
           "log_sigmoid",
           "BinaryCrossEntropyBackward0", "binary_cross_entropy",
           "BinaryCrossEntropyWithLogitsBackward0", "binary_cross_entropy_with_logits",
           "MseLossBackward0", "mse_loss", "SmoothL1LossBackward0", "smooth_l1_loss"]

# PyTorch's floor of x (1 - x) in the gradient of binary_cross_entropy: the float 1e-12
# (9.99999996e-13), so that the gradient at x = 0 or 1 is PyTorch's to the last bit
_BCE_EPS = float(np.float32(1e-12))
_LOG_FLOOR = -100  # PyTorch's clamp of the logs in binary_cross_entropy


class NllLossBackward0(Node):
    """Backward of the fused ``cross_entropy`` (log_softmax and NLL in one node, PyTorch's name
    for its last step): ``(softmax(logits) - onehot) * grad / N``. The probabilities are
    recomputed from the saved logits and log-sum-exp, so nothing of the logits' size is kept."""

    index: tuple  # where each target's logit is: (row numbers, target[, positions...])
    count: int  # the number of targets for reduction="mean", 1 for "sum"
    lse: np.ndarray  # log-sum-exp over the classes (dim 1), kept as a size-1 dim

    def backward(self, grad):
        (logits,) = self.saved_tensors
        scale = grad / self.count
        if not is_array(grad):  # create_graph: the same formula in differentiable tensor ops
            onehot = np.zeros(logits.shape, logits._data.dtype)
            onehot[self.index] = 1
            return (( logits.softmax(1) - wrap(onehot)) * scale, None)
        probs = np.exp(logits - self.lse)
        probs[self.index] -= 1
        probs *= scale
        return (probs, None)


class _NllLossBackward(Node):
    """Backward of ``nll_loss`` of log-probabilities (PyTorch's ``NllLossBackward0``): minus
    the gradient over the count at each target's log-probability, zero elsewhere."""

    index: tuple  # see fused_cross_entropy
    count: int

    def name(self) -> str:
        """PyTorch's node name."""
        return "NllLossBackward0"

    def backward(self, grad):
        (logp,) = self.saved_tensors
        dtype = logp.dtype if is_array(logp) else logp._data.dtype
        picked = np.zeros(logp.shape, dtype)
        picked[self.index] = -1
        if not is_array(grad):  # create_graph: a constant times the incoming gradient
            return (wrap(picked) * (grad / self.count), None)
        picked *= grad / self.count
        return (picked, None)


def _class_index(target: np.ndarray, x: np.ndarray, weight, ignore_index: int, reduction: str,
                 label_smoothing: float) -> tuple | None:
    """Where each target's class entry is in (N, C, ...) ``x`` (open grids), when the loss
    needs no weight, smoothing or ignored entries and reduces by mean or sum; else None."""
    t = target
    if (weight is not None or label_smoothing or reduction not in ("mean", "sum")
            or x.ndim < 2 or t.shape != x.shape[:1] + x.shape[2:] or t.dtype.kind not in "iu"
            or not is_float_dtype(x.dtype) or not t.size or not x.shape[1]):
        return None
    classes = x.shape[1]
    if not (t.min() >= 0 and t.max() < classes):
        return None  # the general path raises the bounds error (or skips ignored entries)
    if 0 <= ignore_index < classes and (t == ignore_index).any():
        return None  # (an ignore_index outside the classes matches no target in range)
    if t.ndim == 1:
        return (np.arange(len(t)), t)
    grids = np.ogrid[tuple(slice(n) for n in t.shape)]  # the batch and the positions
    return (grids[0], t, *grids[1:])


def nll_loss(logp: TensorBase, target, ignore_index: int, reduction: str) -> TensorBase | None:
    """``nll_loss`` of (N, C, ...) log-probabilities at integer class indices as one node
    (unweighted, mean or sum, nothing ignored); None when the call needs the general path."""
    t = target._data if isinstance(target, TensorBase) else np.asarray(target)
    x = logp._data
    index = _class_index(t, x, None, ignore_index, reduction, 0.0)
    if index is None:
        return None
    count = t.size if reduction == "mean" else 1
    out = np.asarray(-x[index].sum() / count, dtype=x.dtype)
    if not (grad_state.enabled and logp._requires_grad):
        return wrap(out)
    node = _NllLossBackward(logp, target if isinstance(target, TensorBase) else wrap(t))
    node.save_for_backward(logp)
    node.index, node.count = index, count
    return wrap(out, node)


def _cross_entropy_kernel(kern, x: np.ndarray, target: np.ndarray) -> tuple:
    """(row max, log-sum-exp of the shifted logits, per-row losses) of (N, C) logits: the
    shift and max by a kernel, NumPy's exp, the sums, logs and picks by a kernel."""
    row_max = np.empty((x.shape[0], 1), x.dtype)
    shifted = np.empty_like(x)
    kern.shift_rows(x, shifted, row_max.reshape(-1))
    lse, losses = np.empty_like(row_max), np.empty(x.shape[0], x.dtype)
    kern.cross_entropy_losses(shifted, np.exp(shifted), np.ascontiguousarray(target, np.int64),
                              lse.reshape(-1), losses)
    return row_max, lse, losses


def fused_cross_entropy(input: TensorBase, target, weight, ignore_index: int, reduction: str,
                         label_smoothing: float) -> TensorBase | None:
    """``cross_entropy`` of (N, C) or (N, C, d1, ...) logits at integer class indices with no
    weight, smoothing or ignored entries, as one node (measured at B=32: 253 us for the
    composed graph against about a sixth of that; for (N, C, T) sequence logits it also keeps
    no log-probabilities); None when the call needs the general path."""
    t = target._data if isinstance(target, TensorBase) else np.asarray(target)
    x = input._data
    index = _class_index(t, x, weight, ignore_index, reduction, label_smoothing)
    if index is None:
        return None
    kern = kernels_for("softmax", x) if x.ndim == 2 else None
    if kern is not None:  # (N, C): shift and max by a kernel, NumPy's exp, the rest by a kernel
        row_max, lse, losses = run_kernels(_cross_entropy_kernel, kern, x, t)
    else:
        row_max = x.max(axis=1, keepdims=True)
        shifted = x - row_max
        lse = np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        losses = lse[:, 0] - shifted[index]
    count = t.size if reduction == "mean" else 1
    out = np.asarray(losses.sum() / count, dtype=x.dtype)
    if not (grad_state.enabled and input._requires_grad):
        return wrap(out)
    node = NllLossBackward0(input, target if isinstance(target, TensorBase) else wrap(t))
    node.save_for_backward(input)
    node.index, node.count = index, count
    node.lse = lse + row_max  # log-sum-exp of the raw logits
    return wrap(out, node)


def _softplus(x: np.ndarray) -> np.ndarray:
    """``log(1 + exp(x))`` without overflow: ``log1p(exp(-|x|)) + max(x, 0)``."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


class LogSigmoidBackward0(Node):
    """``d/dx log(sigmoid(x)) = sigmoid(-x)``, exact at 0 too (0.5)."""

    def backward(self, grad):
        (x,) = self.saved_tensors
        if not is_array(grad):  # create_graph: differentiable again through sigmoid
            return (grad * (-x).sigmoid(),)
        return (grad * np.exp(-_softplus(x)),)  # sigmoid(-x), with no overflow


def log_sigmoid(x: TensorBase) -> TensorBase:
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large |x|, with the exact gradient
    ``sigmoid(-x)`` everywhere: the composite ``-(log1p(exp(-|x|)) + relu(-x))`` takes the
    derivatives of abs and relu at 0 as 0 and so gives 0 instead of 0.5 at x = 0."""
    out = np.asarray(-_softplus(-x._data))
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = LogSigmoidBackward0(x)
    node.save_for_backward(x)
    return wrap(out, node)


class BinaryCrossEntropyBackward0(Node):
    """PyTorch's rules: ``(x - t) / max(x (1 - x), 1e-12)`` for the input, finite at x = 0 and 1;
    the derivative of the (clamped) loss, ``max(log(1 - x), -100) - max(log x, -100)``, for the
    target."""

    count: int | None  # see _reduced

    def backward(self, grad):
        x, t = self.saved_tensors
        want_target = self.next_edges[1] is not None
        grad = _per_element(grad, self.count)
        if not is_array(grad):  # create_graph: the same formulas in differentiable tensor ops
            gx = grad * (x - t) / (x * (1 - x)).clamp(min=_BCE_EPS)
            if not want_target:
                return (gx, None)
            with np.errstate(divide="ignore"):
                logs = (-x).log1p().clamp(min=_LOG_FLOOR) - x.log().clamp(min=_LOG_FLOOR)
            return (gx, grad * logs)
        gx = grad * (x - t) / np.maximum(x * (1 - x), _BCE_EPS)
        if not want_target:
            return (gx, None)
        with np.errstate(divide="ignore"):
            logs = np.maximum(np.log1p(-x), _LOG_FLOOR) - np.maximum(np.log(x), _LOG_FLOOR)
        return (gx, grad * logs)


def binary_cross_entropy(x: TensorBase, target: TensorBase, reduction: str = "none"
                         ) -> TensorBase:
    """``-(t max(log x, -100) + (1 - t) max(log(1 - x), -100))`` of probabilities ``x`` and a
    target of the same shape and dtype (unweighted), reduced inside the node."""
    xd, td = x._data, target._data
    with np.errstate(divide="ignore"):  # log(0) = -inf, clamped
        out, count = _reduced(-(td * np.maximum(np.log(xd), _LOG_FLOOR)
                                + (1 - td) * np.maximum(np.log1p(-xd), _LOG_FLOOR)), reduction)
    if not (grad_state.enabled and (x._requires_grad or target._requires_grad)):
        return wrap(out)
    node = BinaryCrossEntropyBackward0(x, target)
    node.save_for_backward(x, target)
    node.count = count
    return wrap(out, node)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    """``1 / (1 + exp(-x))`` as PyTorch computes it (exactly 0.5 at 0; 0 below about -745)."""
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-x))


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """PyTorch's rule for the logits: ``sigmoid(x) - t``, or with ``pos_weight`` ``(pw t + 1 - t)
    sigmoid(x) - pw t``; the target and pos_weight are constants here."""

    target: np.ndarray
    pos_weight: np.ndarray | None
    count: int | None  # see _reduced

    def backward(self, grad):
        (x,) = self.saved_tensors
        t, pw = self.target, self.pos_weight
        grad = _per_element(grad, self.count)
        if not is_array(grad):  # create_graph: the same formula in differentiable tensor ops
            sig = x.sigmoid()
            if pw is None:
                return ((sig - wrap(t)) * grad,)
            pt = pw * t
            return (((pt + 1 - t) * sig - wrap(pt)) * grad,)
        sig = _sigmoid(x)
        if pw is None:
            return ((sig - t) * grad,)
        pt = pw * t
        return (((pt + 1 - t) * sig - pt) * grad,)


def binary_cross_entropy_with_logits(x: TensorBase, target: np.ndarray,
                                     pos_weight: np.ndarray | None, reduction: str = "none"
                                     ) -> TensorBase:
    """``(1 - t) x - (1 + (pw - 1) t) log(sigmoid(x))`` of logits ``x`` at a constant target
    (and pos_weight), unweighted, reduced inside the node, with PyTorch's exact gradient."""
    log_sig = -_softplus(-x._data)
    if pos_weight is None:
        out = (1 - target) * x._data - log_sig
    else:
        out = (1 - target) * x._data - ((pos_weight - 1) * target + 1) * log_sig
    out, count = _reduced(out, reduction)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = BinaryCrossEntropyWithLogitsBackward0(x)
    node.save_for_backward(x)
    node.target, node.pos_weight, node.count = target, pos_weight, count
    return wrap(out, node)


def _reduced(losses: np.ndarray, reduction: str) -> tuple[np.ndarray, int | None]:
    """(the reduced loss, the count its gradient is divided by: the element count for
    'mean', 1 for 'sum', None for 'none', where the gradient is per element already). The
    loss nodes reduce inside themselves, as PyTorch's (``MseLossBackward0``, not
    ``MeanBackward0``): one node, the same values as ``losses.mean()``."""
    if reduction == "none":
        return np.asarray(losses), None
    if reduction == "mean" and not losses.size:  # the mean of nothing: NaN, without NumPy's
        total = np.asarray(np.nan, losses.dtype)  # "Mean of empty slice" warning (PyTorch has none)
    else:
        total = losses.mean() if reduction == "mean" else losses.sum()
    return np.asarray(total, dtype=losses.dtype), losses.size if reduction == "mean" else 1


def _per_element(grad, count: int | None):
    """The loss gradient per element: the reduced loss's gradient over ``count``."""
    if not count or count == 1:  # (0: an empty loss, whose elementwise gradient is empty)
        return grad
    return grad / count


class MseLossBackward0(Node):
    """``2 (x - t) grad`` for the input and its negative for the target (over the element
    count for 'mean')."""

    count: int | None
    diff: np.ndarray | None  # x - t, for the array rule

    def backward(self, grad):
        x, t = self.saved_tensors
        edges = self.next_edges
        grad = _per_element(grad, self.count)
        if not is_array(grad) or not is_array(x):  # create_graph: differentiable tensor ops
            gx = 2 * (x - t) * grad
        else:
            gx = np.multiply(self.diff, 2)
            gx *= grad
        return (gx if edges[0] else None, -gx if edges[1] else None)


def mse_loss(x: TensorBase, target: TensorBase, reduction: str) -> TensorBase:
    """``(x - t) ** 2`` of a same-shape, same-dtype input and target, reduced in the node."""
    diff = x._data - target._data
    out, count = _reduced(diff * diff, reduction)
    if not (grad_state.enabled and (x._requires_grad or target._requires_grad)):
        return wrap(out)
    node = MseLossBackward0(x, target)
    node.save_for_backward(x, target)
    node.count, node.diff = count, diff
    return wrap(out, node)


class SmoothL1LossBackward0(Node):
    """``clip((x - t) / beta, -1, 1) grad`` for the input (times ``delta`` for Huber: the node
    named ``HuberLossBackward0``), its negative for the target."""

    count: int | None
    beta: float
    scale: float  # 1 for smooth L1, delta for Huber
    huber: bool

    def name(self) -> str:
        """PyTorch's node name for the loss."""
        return "HuberLossBackward0" if self.huber else "SmoothL1LossBackward0"

    def backward(self, grad):
        x, t = self.saved_tensors
        edges = self.next_edges
        grad = _per_element(grad, self.count)
        if is_array(x):
            slope = np.clip((x - t) / self.beta, -1.0, 1.0)
        else:  # create_graph: PyTorch's second derivative is 1 / beta strictly inside
            # |d| < beta, through a product with the mask: a NaN coming back stays NaN outside.
            # The slope's value selects (+-1 beyond beta; a product made an infinite
            # difference's slope inf * 0), and a zero multiple of the finite differences
            # carries the mask's product into the derivative
            with np.errstate(invalid="ignore"):
                d = x._data - t._data
            inside, finite = np.abs(d) < self.beta, np.isfinite(d)
            diff = x - t
            slope = where_rule(inside, diff * (1.0 / self.beta),
                               wrap(np.sign(d).astype(d.dtype, copy=False)))
            slope = slope + where_rule(finite, diff, 0.0) * wrap(np.zeros_like(d))
        gx = slope * (grad * self.scale) if self.scale != 1.0 else slope * grad
        return (gx if edges[0] else None, -gx if edges[1] else None)


def smooth_l1_loss(x: TensorBase, target: TensorBase, beta: float, reduction: str,
                   delta: float | None = None) -> TensorBase:
    """``0.5 d^2 / beta`` for ``|d| < beta``, ``|d| - 0.5 beta`` beyond (d = x - t, beta > 0);
    with ``delta`` the Huber loss, ``delta`` times smooth L1 with beta = delta."""
    d = x._data - target._data
    a = np.abs(d)
    if delta is None:
        losses = np.where(a < beta, (0.5 / beta) * d * d, a - 0.5 * beta)
    else:
        losses = np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
    out, count = _reduced(losses.astype(d.dtype, copy=False), reduction)
    if not (grad_state.enabled and (x._requires_grad or target._requires_grad)):
        return wrap(out)
    node = SmoothL1LossBackward0(x, target)
    node.save_for_backward(x, target)
    node.count, node.huber = count, delta is not None
    node.beta, node.scale = (beta, 1.0) if delta is None else (delta, delta)
    return wrap(out, node)
