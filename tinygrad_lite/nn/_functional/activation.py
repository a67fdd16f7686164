"""Activation functions of ``nn.functional``; the ``inplace`` variants overwrite their input
through the package's in-place machinery (version bump, graph rebased), as in PyTorch."""

from __future__ import annotations

from typing import Any

from ... import functions as _fn
from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn
from ...dtypes import is_float_dtype
from ...functions import sigmoid, tanh
from ...ops import inplace as ops_inplace
from ...ops.activation import gelu as _gelu_op
from ...ops.activation import leaky_relu as _leaky_relu_op
from ...ops.elementwise import bfloat16_in_float32
from ...ops.special import erf

__all__ = ["relu", "relu_", "leaky_relu", "leaky_relu_", "gelu", "silu", "elu", "elu_",
           "softplus", "sigmoid", "tanh", "softmax", "log_softmax", "erf"]


def implicit_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's deprecated default dim of softmax-like functions called without one: 0 for
    0-, 1- and 3-D input, else 1 (with its warning)."""
    warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
         "to include dim=X as an argument.")
    return 0 if ndim in (0, 1, 3) else 1


@bfloat16_in_float32
def softmax(input: TensorBase, dim: int | None = None, _stacklevel: int = 3,
            dtype: Any = None) -> TensorBase:
    """``exp(x) / sum(exp(x))`` along ``dim`` (computed in ``dtype`` when given)."""
    if dim is None:
        dim = implicit_softmax_dim("softmax", input.ndim, _stacklevel)
    return _fn.softmax(input, dim, dtype=dtype)


@bfloat16_in_float32
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
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _gelu_op(input, approximate)  # one node: see ops/activation.py


def _silu(input: TensorBase) -> TensorBase:
    return input * sigmoid(input)


def silu(input: TensorBase, inplace: bool = False) -> TensorBase:
    """``x * sigmoid(x)`` (in place with ``inplace``)."""
    if inplace:
        return ops_inplace.apply(input, "silu_", _silu)
    return _silu(input)


def _elu(input: TensorBase, alpha: float) -> TensorBase:
    positive = input > 0
    # PyTorch's kink at 0: first derivative alpha (the x <= 0 branch), second derivative 0 (its
    # double backward tests x < 0). Split x into its strictly negative part ``u`` and the rest:
    # alpha * (exp(u) - 1) + alpha * rest is the ELU branch with exactly those derivatives at 0,
    # adds no gradient terms that cancel (exp(-30) stays exact), and exp sees no positive value,
    # which could overflow (0 * inf is nan).
    negative = input < 0
    u = _fn.where(negative, input, 0.0)
    rest = _fn.where(negative, 0.0, input)
    neg = alpha * (_fn.exp(u) - 1.0) + alpha * rest
    return _fn.where(positive, input, neg)


def elu(input: TensorBase, alpha: float = 1.0, inplace: bool = False) -> TensorBase:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere (in place with ``inplace``)."""
    if inplace:
        return elu_(input, alpha)
    return _elu(input, alpha)


def elu_(input: TensorBase, alpha: float = 1.0) -> TensorBase:
    """In place: ``elu`` written into ``input``."""
    return ops_inplace.apply(input, "elu_", lambda s: _elu(s, alpha))


def softplus(input: TensorBase, beta: float = 1.0, threshold: float = 20.0) -> TensorBase:
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    scaled = input * beta
    linear_part = scaled > threshold
    safe = _fn.where(linear_part, 0.0, scaled)
    # log1p keeps the tiny values of very negative inputs (log(1 + 4e-18) would round to 0)
    return _fn.where(linear_part, input, _fn.log1p(_fn.exp(safe)) / beta)
