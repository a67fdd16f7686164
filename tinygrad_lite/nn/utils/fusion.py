"""PyTorch's ``torch.nn.utils.fusion``: fold an evaluation-mode BatchNorm into the convolution or
linear layer before it (one layer computing both)."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from ...tensor import Tensor
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights"]


def _arr(t: Any, like: np.ndarray, fill: float) -> np.ndarray:
    return np.full(like.shape, fill, like.dtype) if t is None else t._data


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                         bn_eps: float, bn_w: Tensor | None, bn_b: Tensor | None,
                         transpose: bool = False) -> tuple[Parameter, Parameter]:
    """The convolution weight and bias that compute conv followed by the BatchNorm."""
    rm = bn_rm._data
    b = _arr(conv_b, rm, 0.0)
    scale = _arr(bn_w, rm, 1.0) / np.sqrt(bn_rv._data + bn_eps)
    shape = [1, -1] if transpose else [-1, 1]
    w = (conv_w._data * scale.reshape(shape + [1] * (conv_w.ndim - 2))).astype(conv_w._data.dtype)
    bias_dtype = conv_w._data.dtype if conv_b is None else conv_b._data.dtype
    fused_b = ((b - rm) * scale + _arr(bn_b, rm, 0.0)).astype(bias_dtype)
    return (Parameter(w, conv_w.requires_grad),
            Parameter(fused_b, conv_b.requires_grad if conv_b is not None else False))


def fuse_conv_bn_eval(conv: Module, bn: Module, transpose: bool = False) -> Module:
    """A copy of the evaluation-mode ``conv`` with ``bn`` folded into its weight and bias."""
    if conv.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(conv)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("BatchNorm needs running statistics to be fused")
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias,
        transpose)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor,
                           bn_rv: Tensor, bn_eps: float, bn_w: Tensor, bn_b: Tensor
                           ) -> tuple[Parameter, Parameter]:
    """The linear weight and bias that compute the linear layer followed by the BatchNorm."""
    rm = bn_rm._data
    b = _arr(linear_b, rm, 0.0)
    scale = bn_w._data / np.sqrt(bn_rv._data + bn_eps)
    w = (linear_w._data * scale[:, None]).astype(linear_w._data.dtype)
    bias_dtype = linear_w._data.dtype if linear_b is None else linear_b._data.dtype
    fused_b = ((b - rm) * scale + bn_b._data).astype(bias_dtype)
    return (Parameter(w, linear_w.requires_grad),
            Parameter(fused_b, linear_b.requires_grad if linear_b is not None else False))


def fuse_linear_bn_eval(linear: Module, bn: Module) -> Module:
    """A copy of the evaluation-mode ``linear`` with the following ``bn`` folded in."""
    if linear.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    if linear.out_features != bn.num_features:
        raise AssertionError("To fuse, linear.out_features must equal bn.num_features")
    fused = copy.deepcopy(linear)
    fused.weight, fused.bias = fuse_linear_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias)
    return fused
