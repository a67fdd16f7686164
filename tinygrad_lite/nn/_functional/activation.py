"""Activation functions of ``nn.functional``: ReLU and its leaky, exponential, hard (piecewise
linear) and randomised kin, GELU, SiLU, Mish, SELU/CELU, the shrinks, GLU, PReLU, softmax,
softmin, log-softmax and Gumbel-softmax. Those without a primitive op are composed from existing
ops, so gradients (first and second order) come from them. The ``inplace`` variants overwrite
their input through the package's in-place machinery (version bump, graph rebased), as in
PyTorch."""

from __future__ import annotations

from typing import Any

import numpy as np

from ... import functions as _fn
from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...dtypes import bool as bool_
from ...dtypes import is_float_dtype
from ...functions import sigmoid, tanh
from ...functions.creation import default_rng
from ...ops import inplace as ops_inplace
from ...ops import piecewise
from ...ops.activation import elu as _elu_op
from ...ops.activation import gelu as _gelu_op
from ...ops.activation import hardswish as _hardswish_op
from ...ops.activation import leaky_relu as _leaky_relu_op
from ...ops.common import FAST_FLOATS as _FAST_FLOATS
from ...ops.special import erf

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "gelu", "silu", "elu", "elu_", "softplus",
           "sigmoid", "tanh", "softmax", "log_softmax", "erf", "relu6", "hardtanh", "hardtanh_",
           "hardswish", "hardsigmoid", "hardshrink", "softshrink", "mish", "logsigmoid", "softsign",
           "tanhshrink", "threshold", "threshold_", "glu", "celu", "celu_", "selu", "selu_",
           "rrelu", "rrelu_", "softmin", "prelu", "gumbel_softmax"]


def implicit_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's deprecated default dim of softmax-like functions called without one: 0 for
    0-, 1- and 3-D input, else 1 (with its warning)."""
    warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
         "to include dim=X as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: TensorBase, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> TensorBase:
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed in ``dtype`` when given)."""
    if dim is None:
        dim = implicit_softmax_dim("softmax", input.ndim, _stacklevel)
    return _fn.softmax(input, dim, dtype=dtype)


def log_softmax(input: TensorBase, dim: int | None = None, _stacklevel: int = 3,
                dtype: Any = None) -> TensorBase:
    """``x - logsumexp(x)`` along ``dim`` (computed in ``dtype`` when given)."""
    if dim is None:
        dim = implicit_softmax_dim("log_softmax", input.ndim, _stacklevel)
    return _fn.log_softmax(input, dim, dtype=dtype)


def relu(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``max(x, 0)``; with ``inplace=True`` the input itself is overwritten and returned."""
    return input.relu_() if inplace else _fn.relu(input)


def relu_(input: TensorBase) -> TensorBase:
    """In place: ``max(x, 0)`` written into ``input``."""
    return input.relu_()


def _leaky_relu(input: TensorBase, negative_slope: float) -> TensorBase:
    if is_float_dtype(input._data.dtype) and isinstance(negative_slope, (int, float)):
        return _leaky_relu_op(input, float(negative_slope))  # one node, PyTorch's
    return _fn.where(input > 0, input, input * negative_slope)


def leaky_relu(input: TensorBase, negative_slope: float = 0.01, inplace: bool = False
               ) -> TensorBase:
    """``x`` where positive, ``negative_slope * x`` elsewhere (in place with ``inplace``)."""
    if inplace:
        return leaky_relu_(input, negative_slope)
    return _leaky_relu(input, negative_slope)


def leaky_relu_(input: TensorBase, negative_slope: float = 0.01) -> TensorBase:
    """In place: ``leaky_relu`` written into ``input``."""
    return ops_inplace.apply(input, "leaky_relu_", lambda s: _leaky_relu(s, negative_slope))


def gelu(input: TensorBase, approximate: str = "none") -> TensorBase:
    """``x * Phi(x)`` (exact, with erf) or its tanh approximation (``approximate='tanh'``)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"gelu: approximate argument must be either none or tanh, got "
                           f"{approximate!r}")
    return _gelu_op(input, approximate)  # one node: see ops/activation.py


def _silu(input: TensorBase) -> TensorBase:
    return input * sigmoid(input)


def silu(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``x * sigmoid(x)`` (in place with ``inplace``)."""
    if inplace:
        return ops_inplace.apply(input, "silu_", _silu)
    return _silu(input)


def _elu(input: TensorBase, alpha: float, scale: float = 1.0, input_scale: float = 1.0,
         label: str = "EluBackward0", grad_input_scale: float | None = None) -> TensorBase:
    """PyTorch's ELU with its three coefficients: the primitive (``ops/activation.py``) for
    float32/float64, else a composite with the same kink (first derivative ``alpha * scale *
    input_scale`` at 0, the x <= 0 branch; second derivative 0 there)."""
    dtype = input._data.dtype
    if dtype in _FAST_FLOATS:
        return _elu_op(input, alpha, scale, input_scale, label, grad_input_scale)
    if not is_float_dtype(dtype):
        raise NotImplementedError(f"\"elu_cpu\" not implemented for '{dtype}' (ELU, SELU and "
                                  f"CELU take floating tensors; got shape "
                                  f"{tuple(input._data.shape)})")
    positive = input > 0
    # split x into its strictly negative part ``u`` and the rest: alpha * expm1(u) + alpha *
    # rest is the negative branch with those derivatives at 0, and expm1 sees no positive
    # value, which could overflow (0 * inf is nan)
    negative = input < 0
    u = _fn.where(negative, input, 0.0) * input_scale
    rest = _fn.where(negative, 0.0, input) * input_scale
    neg = (alpha * scale) * (_fn.expm1(u) + rest)
    return _fn.where(positive, input * scale, neg)


def elu(input: TensorBase, alpha: float = 1.0, inplace: bool = False) -> TensorBase:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (in place with ``inplace``)."""
    if inplace:
        return elu_(input, alpha)
    return _elu(input, alpha)


def elu_(input: TensorBase, alpha: float = 1.0) -> TensorBase:
    """In place: ``elu`` written into ``input``."""
    return ops_inplace.apply(input, "elu_", lambda s: _elu(s, alpha, label="EluBackward1"))


def softplus(input: TensorBase, beta: float = 1.0, threshold: float = 20.0) -> TensorBase:
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    scaled = input * beta
    linear_part = scaled > threshold
    safe = _fn.where(linear_part, 0.0, scaled)
    # log1p keeps the tiny values of very negative inputs (log(1 + 4e-18) would round to 0)
    out = _fn.where(linear_part, input, _fn.log1p(_fn.exp(safe)) / beta)
    at_threshold = scaled._data == threshold
    if at_threshold.any():
        # exactly at the threshold PyTorch's first derivative is the smooth branch's, its second
        # derivative the linear branch's (0): a line through the value with that slope
        with np.errstate(over="ignore", invalid="ignore"):
            z = np.exp(np.asarray(threshold, scaled._data.dtype))
            slope = float(z / (z + 1)) if np.isfinite(z) else 1.0
        line = out.detach() + (input - input.detach()) * slope
        out = _fn.where(wrap(at_threshold), line, out)
    return out


_SELU_ALPHA = 1.6732632423543772848170429916717


_SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace(input: TensorBase, inplace: bool, name: str, fn: Any) -> TensorBase:
    return ops_inplace.apply(input, name, fn) if inplace else fn(input)


def hardtanh(input: TensorBase, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> TensorBase:
    """``x`` clamped to ``[min_val, max_val]``."""
    if min_val > max_val:
        raise ValueError("hardtanh: min_val cannot be greater than max_val")
    kind = input._data.dtype.kind
    if kind == "b":
        raise RuntimeError("Bool inputs not supported for hardtanh")
    if kind in "iu":  # PyTorch converts the limits to the integer type (truncating)
        min_val, max_val = int(min_val), int(max_val)
        if kind == "u" and min(min_val, max_val) < 0:
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")

    def fn(x: TensorBase) -> TensorBase:
        if is_float_dtype(x._data.dtype):  # one node; its gradient differentiates to 0
            return piecewise.hardtanh(x, min_val, max_val)
        # PyTorch passes the gradient only strictly inside (min_val, max_val)
        return _fn.where((x > min_val) & (x < max_val), x, x.clamp(min_val, max_val).detach())

    return _maybe_inplace(input, inplace, "hardtanh_", fn)


def hardtanh_(input: TensorBase, min_val: float = -1.0, max_val: float = 1.0) -> TensorBase:
    """In place: ``hardtanh``."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``min(max(x, 0), 6)``."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardsigmoid(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``relu6(x + 3) / 6``: a piecewise linear sigmoid."""
    def fn(x: TensorBase) -> TensorBase:
        if is_float_dtype(x._data.dtype):
            return piecewise.hardsigmoid(x)
        linear = x / 6.0 + 0.5  # gradient only strictly inside (-3, 3), as PyTorch
        return _fn.where((x > -3.0) & (x < 3.0), linear, linear.clamp(0.0, 1.0).detach())

    return _maybe_inplace(input, inplace, "hardsigmoid_", fn)


def hardswish(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``x * relu6(x + 3) / 6``."""
    def fn(x: TensorBase) -> TensorBase:
        dtype = x._data.dtype
        if dtype in _FAST_FLOATS:  # one node, PyTorch's rule and double backward
            return _hardswish_op(x)
        if not is_float_dtype(dtype):
            raise NotImplementedError(f"\"hardswish_cpu\" not implemented for '{dtype}' "
                                      f"(hardswish takes floating tensors; got shape "
                                      f"{tuple(x._data.shape)})")
        return _fn.where(x >= 3.0, x, _fn.where(x > -3.0, x * (x + 3.0) / 6.0, 0.0))

    return _maybe_inplace(input, inplace, "hardswish_", fn)


def hardshrink(input: TensorBase, lambd: float = 0.5) -> TensorBase:
    """``x`` where ``|x| > lambd``, else 0."""
    if is_float_dtype(input._data.dtype):
        return piecewise.hardshrink(input, lambd)
    return _fn.where(input.abs() > lambd, input, 0.0)


def softshrink(input: TensorBase, lambd: float = 0.5) -> TensorBase:
    """``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    if lambd < 0:
        raise RuntimeError(f"softshrink: lambda must be >= 0, got {lambd}")
    if is_float_dtype(input._data.dtype):
        return piecewise.softshrink(input, lambd)
    return _fn.where(input > lambd, input - lambd, _fn.where(input < -lambd, input + lambd, 0.0))


def mish(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``x * tanh(softplus(x))``."""
    return _maybe_inplace(input, inplace, "mish_", lambda x: x * softplus(x).tanh())


def logsigmoid(input: TensorBase) -> TensorBase:
    """``log(sigmoid(x))`` without overflow: ``-softplus(-x)``."""
    return -softplus(-input)


def softsign(input: TensorBase) -> TensorBase:
    """``x / (1 + |x|)``."""
    return input / (input.abs() + 1.0)


def tanhshrink(input: TensorBase) -> TensorBase:
    """``x - tanh(x)``."""
    return input - input.tanh()


def _replacement(input: TensorBase, value: float) -> float | int:
    """``value`` in the input's kind: the result keeps the input's dtype, as in PyTorch (an
    integer tensor gets ``value`` truncated)."""
    if input.dtype == bool_:
        raise RuntimeError("threshold: not implemented for bool tensors")
    return float(value) if input.is_floating_point() else int(value)


def threshold(input: TensorBase, threshold: float, value: float,
              inplace: bool = False) -> TensorBase:
    """``x`` where ``x > threshold``, else ``value`` (in the input's dtype)."""
    fill = _replacement(input, value)
    return _maybe_inplace(input, inplace, "threshold_", lambda x: _threshold(x, threshold, fill))


def _threshold(x: TensorBase, threshold: float, fill: float | int) -> TensorBase:
    if is_float_dtype(x._data.dtype):  # one node, a NaN passing as in PyTorch
        return piecewise.threshold(x, threshold, fill)
    return _fn.where(x > threshold, x, fill)


def threshold_(input: TensorBase, threshold: float, value: float) -> TensorBase:
    """In place: ``threshold``."""
    fill = _replacement(input, value)
    return ops_inplace.apply(input, "threshold_", lambda x: _threshold(x, threshold, fill))


def glu(input: TensorBase, dim: int = -1) -> TensorBase:
    """The gated linear unit: the first half of ``dim`` times the sigmoid of the second."""
    size = input.shape[dim]
    if size % 2:
        raise RuntimeError(f"glu: halving dimension must be even, but dimension {dim} is size "
                           f"{size}")
    a, b = input.chunk(2, dim)
    return a * b.sigmoid()


def celu(input: TensorBase, alpha: float = 1.0, inplace: bool = False) -> TensorBase:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``: PyTorch's ELU with
    ``input_scale = 1 / alpha``."""
    if alpha == 0:
        raise RuntimeError("celu: alpha of 0 is not supported")
    label = "CeluBackward1" if inplace else "CeluBackward0"
    # PyTorch's gradient takes 1 / alpha with alpha rounded to float32 first
    grad_scale = 1.0 / float(np.float32(alpha))
    return _maybe_inplace(input, inplace, "celu_",
                          lambda x: _elu(x, alpha, 1.0, 1.0 / alpha, label, grad_scale))


def celu_(input: TensorBase, alpha: float = 1.0) -> TensorBase:
    """In place: ``celu``."""
    return celu(input, alpha, inplace=True)


def selu(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``scale * elu(x, alpha)`` with SELU's self-normalising constants."""
    label = "EluBackward1" if inplace else "EluBackward0"
    return _maybe_inplace(input, inplace, "selu_",
                          lambda x: _elu(x, _SELU_ALPHA, _SELU_SCALE, 1.0, label))


def selu_(input: TensorBase) -> TensorBase:
    """In place: ``selu``."""
    return selu(input, inplace=True)


def rrelu(input: TensorBase, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> TensorBase:
    """Leaky ReLU with a random slope in ``[lower, upper]`` per element while training, the
    mean slope otherwise."""
    def fn(x: TensorBase) -> TensorBase:
        if training:
            draws = default_rng().uniform(lower, upper, x._data.shape)
            if is_float_dtype(x._data.dtype):
                return piecewise.random_leaky_relu(x, draws.astype(x._data.dtype))
            slope: Any = _fn.tensor(draws.astype(x._data.dtype))
        else:
            slope = (lower + upper) / 2.0
            if is_float_dtype(x._data.dtype):
                return _leaky_relu_op(x, slope)
        return _fn.where(x > 0, x, x * slope)  # at 0 PyTorch takes the slope

    return _maybe_inplace(input, inplace, "rrelu_", fn)


def rrelu_(input: TensorBase, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> TensorBase:
    """In place: ``rrelu``."""
    return rrelu(input, lower, upper, training, inplace=True)


def softmin(input: TensorBase, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> TensorBase:
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        dim = implicit_softmax_dim("softmin", input.ndim, _stacklevel)
    x = input if dtype is None else input.to(dtype)
    return _fn.softmax(-x, dim)


def prelu(input: TensorBase, weight: TensorBase) -> TensorBase:
    """Leaky ReLU with a learned slope: one for all channels or one per channel (dim 1)."""
    w = weight
    if weight.numel() > 1:
        if input.ndim < 2 or input.shape[1] != weight.numel():
            raise RuntimeError(f"prelu: mismatch of parameter numbers ({weight.numel()}) and "
                               f"input channel size ({input.shape[1] if input.ndim > 1 else 1})")
        w = weight.reshape(-1, *([1] * (input.ndim - 2)))
    if not weight.requires_grad and is_float_dtype(input._data.dtype):
        # a fixed slope: one piecewise-linear node, its gradient recorded with a zero second
        # derivative as PyTorch's (the composite's would not require grad)
        data = input._data
        slope = np.broadcast_to(w._data.astype(data.dtype), data.shape)
        positive = data > 0
        return piecewise.piecewise_linear(input, np.where(positive, data, data * slope),
                                          np.where(positive, np.ones((), data.dtype), slope),
                                          "PreluKernelBackward0")
    return _fn.where(input > 0, input, input * w)


def gumbel_softmax(logits: TensorBase, tau: float = 1.0, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> TensorBase:
    """``softmax((logits + g) / tau)`` with Gumbel(0, 1) noise ``g`` from the package's RNG
    (``manual_seed`` makes it reproducible); ``hard`` returns the one-hot argmax whose gradient
    is the soft sample's (straight-through). ``eps`` is unused, as in PyTorch."""
    data = logits._data
    # -log(Exp(1)) is Gumbel(0, 1), drawn as PyTorch draws it; the noise needs no gradient
    gumbels = -np.log(default_rng().exponential(1.0, data.shape).astype(data.dtype))
    y_soft = _fn.softmax((logits + _fn.tensor(gumbels)) / tau, dim)
    if not hard:
        return y_soft
    axis = dim % data.ndim if data.ndim else 0
    index = np.expand_dims(np.argmax(y_soft._data, axis=axis), axis)
    one_hot = np.zeros_like(y_soft._data)
    np.put_along_axis(one_hot, index, 1.0, axis=axis)
    # the forward value is the one-hot; the gradient flows through y_soft alone
    return _fn.tensor(one_hot) - y_soft.detach() + y_soft
