"""Piecewise-linear activations (hardtanh, relu6, hardshrink, softshrink, threshold, rrelu in
eval mode, hardsigmoid) as one node each, and the zero-slope tie their gradients carry.

Between its kinks such a function has a constant slope, so its second derivative is zero. PyTorch
still records the first derivative as a function of the input (``threshold_backward(grad, x)``
has the derivative ``zeros_like(grad)`` with respect to ``x``): under ``create_graph`` the
gradient requires grad and a second ``grad`` returns a zero tensor rather than raising that
nothing requires grad. ``tie_zero_slope`` gives a gradient computed under ``create_graph`` that
same recorded zero derivative towards the inputs it was computed from.
"""

from __future__ import annotations

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import constant, is_array, masked_bits, wrap
from .elementwise import where_rule

__all__ = ["piecewise_linear", "tie_zero_slope", "hardtanh", "hardshrink", "softshrink",
           "threshold", "hardsigmoid", "random_leaky_relu"]


class ZeroSlopeBackward(Node):
    """The node of a tied gradient: the upstream gradient passes to the gradient's own graph,
    a zero tensor (or a refusal, for the rules PyTorch cannot differentiate twice) goes to each
    input of the first-order rule."""

    sources: tuple  # (shape, dtype) of each tied input
    refuse: str | None = None  # PyTorch's "derivative for aten::<x> is not implemented"

    def name(self) -> str:
        """PyTorch's name for the node of a backward rule's own backward."""
        return "ThresholdBackwardBackward0"

    def backward(self, grad):
        if self.refuse is not None:
            raise RuntimeError(f"derivative for aten::{self.refuse} is not implemented")
        zeros = [np.zeros(shape, dtype) for shape, dtype in self.sources]
        if not is_array(grad):
            zeros = [wrap(z) for z in zeros]
        return (grad, *zeros)


def tie_zero_slope(gradient, *inputs, refuse: str | None = None):
    """``gradient`` (a rule's result) tied to ``inputs`` with a zero derivative when it was
    computed under ``create_graph`` (a tensor); arrays pass as they are. With ``refuse`` the
    second derivative raises instead, as PyTorch's does for that rule."""
    if is_array(gradient) or not grad_state.enabled:
        return gradient
    tied = [t for t in inputs if isinstance(t, TensorBase) and t._requires_grad]
    if not tied:
        return gradient
    node = ZeroSlopeBackward(gradient, *tied)
    node.sources = tuple((t._data.shape, t._data.dtype) for t in tied)
    if refuse is not None:
        node.refuse = refuse
    return wrap(gradient._data, node)


class PiecewiseLinearBackward(Node):
    """``grad * slope`` where the slope is nonzero, 0 elsewhere (an infinite or NaN gradient
    included, as PyTorch's masks give); the slopes are saved, constant between the kinks: a
    bool mask when they are 1 or 0 (the gradient is then selected, exactly)."""

    label: str
    slope: np.ndarray  # bool (slope 1 where True, else 0) or the slopes in x's dtype
    refuse: str | None = None

    def name(self) -> str:
        """PyTorch's node name for the op."""
        return self.label

    def backward(self, grad):
        (x,) = self.saved_tensors
        slope = self.slope
        passes = slope if slope.dtype == np.bool_ else slope != 0
        if is_array(grad):
            if slope.dtype == np.bool_:
                kept = masked_bits(grad, slope) if grad.size > _WHERE_MAX_SIZE else None
                if kept is not None:
                    return (kept,)
                return (np.where(slope, grad, np.zeros((), grad.dtype)),)
            return (np.where(passes, grad * slope, np.zeros((), grad.dtype)),)
        scaled = grad if slope.dtype == np.bool_ else grad * constant(slope, grad)
        return (tie_zero_slope(where_rule(passes, scaled, 0.0), x, refuse=self.refuse),)


# as in ReluBackward0: above this many elements the mask multiplies the gradient's bits
_WHERE_MAX_SIZE = 1024


def piecewise_linear(x: TensorBase, out: np.ndarray, slope: np.ndarray, label: str,
                     refuse: str | None = None) -> TensorBase:
    """Wrap ``out``, a piecewise-linear function of ``x`` whose derivative is ``slope`` (an
    array of x's shape: a bool mask for slopes 1 and 0), as one node named ``label``."""
    out = np.asarray(out, dtype=x._data.dtype)
    if not (grad_state.enabled and x._requires_grad):
        return wrap(out)
    node = PiecewiseLinearBackward(x)
    node.label = label
    slope = np.asarray(slope)
    node.slope = slope if slope.dtype == np.bool_ else slope.astype(x._data.dtype, copy=False)
    if refuse is not None:
        node.refuse = refuse
    node.save_for_backward(x)
    return wrap(out, node)


def slopes(mask: np.ndarray, inside: float, outside: float, dtype: np.dtype) -> np.ndarray:
    """The derivative ``inside`` where ``mask`` holds, ``outside`` elsewhere."""
    return np.where(mask, dtype.type(inside), dtype.type(outside))


def hardtanh(x: TensorBase, low: float, high: float) -> TensorBase:
    """``x`` clamped to ``[low, high]``; the gradient passes strictly inside (not at NaN)."""
    data = x._data
    # maximum then minimum: NaN propagates, and faster than np.clip
    out = np.minimum(np.maximum(data, data.dtype.type(low)), data.dtype.type(high))
    return piecewise_linear(x, out, (data > low) & (data < high), "HardtanhBackward0")


def hardshrink(x: TensorBase, lambd: float) -> TensorBase:
    """``x`` outside ``[-lambd, lambd]``, 0 inside (NaN stays NaN, with a zero gradient)."""
    data = x._data
    outside = (data > lambd) | (data < -lambd)
    out = np.where((data >= -lambd) & (data <= lambd), np.zeros((), data.dtype), data)
    return piecewise_linear(x, out, outside, "HardshrinkBackward0")


def softshrink(x: TensorBase, lambd: float) -> TensorBase:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, 0 between (NaN stays)."""
    data = x._data
    above, below = data > lambd, data < -lambd
    zero_or_nan = np.where(np.isnan(data), data, np.zeros((), data.dtype))
    out = np.where(above, data - lambd, np.where(below, data + lambd, zero_or_nan))
    return piecewise_linear(x, out, above | below, "SoftshrinkBackward0")


def threshold(x: TensorBase, limit: float, value: float) -> TensorBase:
    """``value`` where ``x <= limit``, else ``x`` (a NaN passes, gradient and all)."""
    data = x._data
    kept = ~(data <= limit)
    out = np.where(kept, data, np.asarray(value, data.dtype))
    return piecewise_linear(x, out, kept, "ThresholdBackward0")


def hardsigmoid(x: TensorBase) -> TensorBase:
    """``clamp(x / 6 + 1/2, 0, 1)``, slope 1/6 strictly inside (-3, 3). Its gradient cannot be
    differentiated again: PyTorch has no derivative for hardsigmoid_backward."""
    data = x._data
    linear = data / 6.0 + 0.5
    inside = (data > -3.0) & (data < 3.0)
    return piecewise_linear(x, np.clip(linear, 0.0, 1.0), slopes(inside, 1 / 6, 0.0, data.dtype),
                            "HardsigmoidBackward0", refuse="hardsigmoid_backward")


def random_leaky_relu(x: TensorBase, slope: np.ndarray) -> TensorBase:
    """``x`` where positive, ``slope * x`` elsewhere, ``slope`` an array (rrelu's draws)."""
    data = x._data
    positive = data > 0
    out = np.where(positive, data, data * slope)
    return piecewise_linear(x, out, np.where(positive, np.ones((), data.dtype), slope),
                            "RreluWithNoiseBackward0")
