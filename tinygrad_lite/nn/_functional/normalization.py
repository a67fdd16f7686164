"""Normalisation of ``nn.functional``: batch_norm, layer_norm, group_norm, rms_norm, normalize."""

from __future__ import annotations

from typing import Any

from ... import functions as _fn
from ..._core.grad_mode import no_grad
from ..._core.memory_format import keeps_channels_last
from ..._core.tensor_base import TensorBase, wrap
from ...dtypes import finfo_of
from ...functions.conventions import call_with_out
from ...functions.shape import pad as _pad
from ...ops.elementwise import bfloat16_in_float32
from ...ops.normalization import (
    batch_norm_eval,
    batch_norm_fast_ok,
    batch_norm_training,
    normalize_affine,
)
from ...ops.normalization import rms_norm as _rms_norm_node

__all__ = ["batch_norm", "layer_norm", "group_norm", "rms_norm", "normalize", "instance_norm",
           "local_response_norm"]


def _var(x: TensorBase, dims: tuple, keepdim: bool = True) -> TensorBase:
    """Biased variance over ``dims``, as the normalisation layers use it."""
    return _fn.var(x, dims, correction=0, keepdim=keepdim)


@bfloat16_in_float32(keep=("running_mean", "running_var"))
@keeps_channels_last
def batch_norm(input: TensorBase, running_mean: TensorBase | None,
               running_var: TensorBase | None, weight: TensorBase | None = None,
               bias: TensorBase | None = None, training: bool = False,
               momentum: float | None = 0.1, eps: float = 1e-5) -> TensorBase:
    """Normalise over the batch (and spatial) dims per channel (dim 1); in training mode the
    running statistics are updated in place (unbiased variance, as in PyTorch)."""
    if input.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input, got {input.ndim}D")
    c = input.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var),
                       ("weight", weight), ("bias", bias)):
        if stat is not None and stat.numel() != c:
            raise RuntimeError(
                f"batch_norm: {name} should contain {c} elements not {stat.numel()} (input of "
                f"shape {tuple(input.shape)} has {c} features in dim 1; was the layer built "
                f"with num_features={stat.numel()}?)")
    dims = (0,) + tuple(range(2, input.ndim))
    shape = (1, c) + (1,) * (input.ndim - 2)
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError(
                f"Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        # one node (ops/normalization.py); it hands back the batch statistics it computed
        w = None if weight is None else weight.reshape(shape)
        b = None if bias is None else bias.reshape(shape)
        if batch_norm_fast_ok(input, weight, bias):
            out, batch_mean, batch_var = batch_norm_training(input, w, b, eps)
        else:
            out, batch_mean, batch_var = normalize_affine(input, dims, w, b, eps,
                                                          "NativeBatchNormBackward0")
        if running_mean is not None and running_var is not None:
            m = 0.1 if momentum is None else momentum  # momentum None: set by caller (cumulative)
            with no_grad():
                unbiased = batch_var.reshape(c) * (count / (count - 1))
                rm, rv = running_mean._data, running_var._data
                rm *= 1.0 - m
                rm += m * batch_mean.reshape(c)
                rv *= 1.0 - m
                rv += m * unbiased
                running_mean._version_counter[0] += 1
                running_var._version_counter[0] += 1
        return out
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("batch_norm: running_mean and running_var are needed in eval mode")
        if batch_norm_fast_ok(input, weight, bias):  # one node: x * scale + shift
            return batch_norm_eval(input, running_mean._data, running_var._data,
                                   None if weight is None else weight.reshape(shape),
                                   None if bias is None else bias.reshape(shape), eps)
        mean = wrap(running_mean._data.reshape(shape))
        var = wrap(running_var._data.reshape(shape))
    out = (input - mean) / _fn.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


@bfloat16_in_float32
def layer_norm(input: TensorBase, normalized_shape: Any, weight: TensorBase | None = None,
               bias: TensorBase | None = None, eps: float = 1e-5) -> TensorBase:
    """Normalise over the last ``len(normalized_shape)`` dims."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape:  # (an empty one would also reach the node's in-place passes with 0-d data)
        raise RuntimeError(f"layer_norm: Expected normalized_shape to be at least 1-dimensional, "
                           f"i.e., containing at least one element, but got normalized_shape = "
                           f"{list(shape)}")
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(
            f"layer_norm: expected input with shape [*, {', '.join(map(str, shape))}], but got "
            f"input of size {input.shape}"
        )
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out, _, _ = normalize_affine(input, dims, weight, bias, eps, "NativeLayerNormBackward0")
    return out


@bfloat16_in_float32
def group_norm(input: TensorBase, num_groups: int, weight: TensorBase | None = None,
               bias: TensorBase | None = None, eps: float = 1e-5) -> TensorBase:
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


@bfloat16_in_float32
def rms_norm(input: TensorBase, normalized_shape: Any, weight: TensorBase | None = None,
             eps: float | None = None) -> TensorBase:
    """``x / sqrt(mean(x^2) + eps)`` over the last dims (eps: the dtype's machine epsilon by
    default, as in PyTorch)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    if eps is None:
        eps = float(finfo_of(input._data.dtype).eps)
    if tuple(input.shape[input.ndim - len(shape):]) == shape and shape:
        fused = _rms_norm_node(input, dims, weight, eps)  # one node, by the compiled kernel
        if fused is not None:
            return fused
    out = input / _fn.sqrt((input * input).mean(dims, keepdim=True) + eps)
    return out if weight is None else out * weight


@bfloat16_in_float32
def normalize(input: TensorBase, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: TensorBase | None = None) -> TensorBase:
    """``x / max(||x||_p, eps)`` along ``dim``. Where the norm is below ``eps`` it is the constant
    eps, as in PyTorch: a zero vector gives 0 with the gradient ``grad / eps``, not NaN; the
    second derivative there goes back through the norm's own rule at 0 and is NaN, as
    PyTorch's is. With ``out`` the result is written there."""
    if out is not None:
        return call_with_out(normalize, "normalize", (input, p, dim, eps), {}, out, False)
    return input / _fn.norm(input, p, dim, keepdim=True).clamp_min(eps)


@bfloat16_in_float32(keep=("running_mean", "running_var"))
def instance_norm(input: TensorBase, running_mean: TensorBase | None = None,
                  running_var: TensorBase | None = None, weight: TensorBase | None = None,
                  bias: TensorBase | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> TensorBase:
    """Normalise each (sample, channel) over its spatial dims; running statistics, when given,
    are updated with the batch average of the per-instance ones (unbiased variance)."""
    if input.ndim < 3:
        raise ValueError(f"instance_norm: expected at least 3D input (N, C, *spatial), got "
                         f"input of shape {tuple(input.shape)}")
    n, c = input.shape[:2]
    dims = tuple(range(2, input.ndim))
    shape = (1, c) + (1,) * (input.ndim - 2)
    if use_input_stats:
        mean = input.mean(dims, keepdim=True)
        var = _var(input, dims)
        if running_mean is not None and running_var is not None:
            count = input.numel() // (n * c)
            with no_grad():
                correction = count / (count - 1) if count > 1 else 1.0
                rm, rv = running_mean._data, running_var._data
                rm *= 1.0 - momentum
                rm += momentum * mean._data.reshape(n, c).mean(0)
                rv *= 1.0 - momentum
                rv += momentum * var._data.reshape(n, c).mean(0) * correction
                running_mean._version_counter[0] += 1
                running_var._version_counter[0] += 1
        out = (input - mean) / (var + eps).sqrt()
    else:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and "
                             "running_var")
        out = (input - running_mean.reshape(shape)) / (running_var.reshape(shape) + eps).sqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


@bfloat16_in_float32
def local_response_norm(input: TensorBase, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> TensorBase:
    """AlexNet's normalisation across channels: ``x / (k + alpha * mean of x^2 over a window of
    size neighbouring channels) ** beta`` (zero-padded at the edges, as PyTorch)."""
    if input.ndim < 3:
        raise ValueError(f"local_response_norm: expected 3D or higher input, got input of "
                         f"shape {tuple(input.shape)}")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    squares = input * input
    before, after = size // 2, (size - 1) // 2
    pads = [0, 0] * (input.ndim - 2) + [before, after]
    padded = _pad(squares, tuple(pads))
    window = padded.narrow(1, 0, c)
    for shift in range(1, size):
        window = window + padded.narrow(1, shift, c)
    return input / (window * (alpha / size) + k) ** beta
