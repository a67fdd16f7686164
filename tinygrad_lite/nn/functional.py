"""``tinygrad_lite.nn.functional``: stateless layers with PyTorch's signatures, composed from the
primitive ops (their gradients come for free). Convolution and pooling live in
``functional_conv``, losses in ``loss``, attention in ``functional_attention``; all are
re-exported here, so ``import tinygrad_lite.nn.functional as F`` gives everything."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..functions import creation as _creation
from .. import functions as _fn
from .. import ops as _ops_prims
from .._core.grad_mode import no_grad
from ..functions import log_softmax, relu, sigmoid, softmax, tanh
from ..tensor import Tensor
from ..ops import nn as _ops
from .functional_attention import multi_head_attention_forward, scaled_dot_product_attention
from .functional_conv import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    conv_transpose1d,
    conv_transpose2d,
    max_pool1d,
    max_pool2d,
    pad,
)
from .loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)

__all__ = [
    "linear", "bilinear", "relu", "leaky_relu", "gelu", "silu", "elu", "sigmoid", "tanh",
    "softplus", "softmax", "log_softmax", "dropout", "embedding", "batch_norm", "layer_norm",
    "group_norm", "rms_norm", "normalize", "one_hot", "erf", "pad", "conv1d", "conv2d",
    "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d", "avg_pool1d",
    "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "mse_loss", "l1_loss",
    "huber_loss", "smooth_l1_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "scaled_dot_product_attention",
    "multi_head_attention_forward", "abs_", "relu_",
]


def _inplace_or(input: Tensor, name: str, fallback: Any, inplace: bool) -> Tensor:
    """Use the in-place method ``name`` when asked for and available (issue 3 adds them);
    until then an out-of-place result is returned, which gives the same values and gradients."""
    method = getattr(input, name, None) if inplace else None
    return method() if method is not None else fallback()


def abs_(x: Tensor) -> Tensor:
    """``|x|`` with PyTorch's gradient ``sign(x)`` (0 at 0), composed as ``x * sign(x)``."""
    return x * Tensor._wrap(np.sign(x._data))


# -- linear ------------------------------------------------------------------------------------


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``, recorded as one op."""
    return _ops_prims.linear(input, weight, bias)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None
             ) -> Tensor:
    """``y_k = x1^T W_k x2 + b_k`` with weight of shape (out, in1, in2)."""
    o, n1, n2 = weight.shape
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, 1, 1, n1)  # (B, 1, 1, in1)
    x2 = input2.reshape(-1, 1, n2, 1)  # (B, 1, in2, 1)
    out = (x1 @ weight.unsqueeze(0) @ x2).reshape(*lead, o)  # (B, out, 1, 1) -> (..., out)
    return out if bias is None else out + bias


# -- activations -------------------------------------------------------------------------------


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return _fn.where(input > 0, input, input * negative_slope)


def erf(input: Tensor) -> Tensor:
    """The error function."""
    return _ops.erf(input)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """``x * Phi(x)`` (exact, with erf) or its tanh approximation (``approximate='tanh'``)."""
    if approximate == "tanh":
        inner = math.sqrt(2.0 / math.pi) * (input + 0.044715 * input ** 3)
        return 0.5 * input * (1.0 + tanh(inner))
    if approximate != "none":
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return 0.5 * input * (1.0 + _ops.erf(input * (1.0 / math.sqrt(2.0))))


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """``x * sigmoid(x)``."""
    return input * sigmoid(input)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    positive = input > 0
    # exp only of the non-positive part: exp(large x) would overflow, and 0 * inf is nan
    neg = _fn.exp(_fn.where(positive, 0.0, input)) - 1.0
    return _fn.where(positive, input, alpha * neg)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """``log(1 + exp(beta * x)) / beta``, linear where ``beta * x > threshold``."""
    scaled = input * beta
    linear_part = scaled > threshold
    safe = _fn.where(linear_part, 0.0, scaled)
    return _fn.where(linear_part, input, _fn.log(1.0 + _fn.exp(safe)) / beta)


def relu_(input: Tensor) -> Tensor:
    """In-place ReLU when available (see ``_inplace_or``)."""
    return _inplace_or(input, "relu_", lambda: relu(input), True)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Integer class indices as an int64 one-hot tensor with a new last dimension."""
    idx = tensor._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of integer dtype")
    n = int(idx.max()) + 1 if num_classes == -1 else num_classes
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise RuntimeError(f"one_hot: class values must be in [0, {n}), got {idx.min()}.."
                           f"{idx.max()}")
    return Tensor._wrap((idx[..., None] == np.arange(n)).astype(np.int64))


# -- dropout and embedding ---------------------------------------------------------------------


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
            ) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = _creation._rng.random(input.shape) >= p
    scale = (keep / (1.0 - p)).astype(input._data.dtype)
    return input * Tensor._wrap(scale)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None) -> Tensor:
    """Rows of ``weight`` selected by the integer ``input``; the row ``padding_idx`` gets no
    gradient."""
    idx = input._data if isinstance(input, Tensor) else np.asarray(input)
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"embedding: indices must be integers, got {idx.dtype}")
    n = weight.shape[0]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise IndexError(f"embedding: index out of range (indices in {idx.min()}..{idx.max()}, "
                         f"num_embeddings={n})")
    if max_norm is not None:
        raise NotImplementedError("embedding: max_norm is not supported")
    out = weight[idx]
    if padding_idx is None:
        return out
    pad_idx = padding_idx % n
    mask = Tensor._wrap((idx != pad_idx)[..., None])
    return _fn.where(mask, out, weight.detach()[idx])


# -- normalisation -----------------------------------------------------------------------------


def _var(x: Tensor, dims: tuple, keepdim: bool = True) -> Tensor:
    """Biased variance over ``dims``, as the normalisation layers use it."""
    return _fn.var(x, dims, correction=0, keepdim=keepdim)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None, training: bool = False,
               momentum: float | None = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise over the batch (and spatial) dims per channel (dim 1); in training mode the
    running statistics are updated in place (unbiased variance, as in PyTorch)."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input, got {input.ndim}D")
    c = input.shape[1]
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, c) + (1,) * (input.ndim - 2)
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        mean = input.mean(dims, keepdim=True)
        var = _var(input, dims)
        if running_mean is not None and running_var is not None:
            m = 0.1 if momentum is None else momentum  # momentum None: set by caller (cumulative)
            with no_grad():
                unbiased = var._data.reshape(c) * (count / (count - 1))
                rm, rv = running_mean._data, running_var._data
                rm *= 1.0 - m
                rm += m * mean._data.reshape(c)
                rv *= 1.0 - m
                rv += m * unbiased
                running_mean._version_counter[0] += 1
                running_var._version_counter[0] += 1
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var are needed in eval mode")
        mean = Tensor._wrap(running_mean._data.reshape(shape))
        var = Tensor._wrap(running_var._data.reshape(shape))
    out = (input - mean) / _fn.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(
            f"layer_norm: expected input with shape [*, {', '.join(map(str, shape))}], but got "
            f"input of size {input.shape}"
        )
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    mean = input.mean(dims, keepdim=True)
    out = (input - mean) / _fn.sqrt(_var(input, dims) + eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise over groups of channels (and all spatial dims)."""
    n, c = input.shape[:2]
    if c % num_groups:
        raise RuntimeError(
            f"group_norm: num_channels ({c}) must be divisible by num_groups ({num_groups})"
        )
    x = input.reshape(n, num_groups, -1)
    out = ((x - x.mean(2, keepdim=True)) / _fn.sqrt(_var(x, (2,)) + eps)).reshape(input.shape)
    shape = (1, c) + (1,) * (input.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def rms_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """``x / sqrt(mean(x^2) + eps)`` over the last dims (eps: the dtype's machine epsilon by
    default, as in PyTorch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    out = input / _fn.sqrt((input * input).mean(dims, keepdim=True) + eps)
    return out if weight is None else out * weight


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """``x / max(||x||_p, eps)`` along ``dim``."""
    norm = (abs_(input) ** p).sum(dim, keepdim=True) ** (1.0 / p)
    return input / _fn.maximum(norm, Tensor._wrap(np.asarray(eps, input._data.dtype)))

