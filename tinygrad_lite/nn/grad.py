"""``tl.nn.grad``: the input and weight gradients of a convolution as functions
(``conv2d_input(input_size, weight, grad_output, ...)``), as PyTorch's ``torch.nn.grad`` has
them: each is the backward of the convolution itself, so the result is the one autograd
computes, and is differentiable again while grad mode is on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .. import functions as _fn
from .._core.backward import grad as _grad
from .._core.grad_mode import enable_grad, grad_state
from .._core.tensor_base import TensorBase
from . import functional as F  # noqa: N812 - PyTorch's spelling

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _conv_input_grad(conv: Callable[..., TensorBase], nd: int, input_size: Sequence[int],
                     weight: TensorBase, grad_output: TensorBase, args: tuple) -> TensorBase:
    """The gradient of ``conv(x, weight, *args)`` with respect to x of ``input_size``."""
    shape = tuple(int(s) for s in input_size)
    if len(shape) != nd + 2:
        raise ValueError(f"conv{nd}d_input: input_size must have {nd + 2} entries (N, C and "
                         f"{nd} spatial sizes), got {tuple(input_size)}")
    create_graph = grad_state.enabled
    with enable_grad():
        x = _fn.zeros(shape, dtype=weight.dtype, requires_grad=True)
        out = conv(x, weight, None, *args)
    return _grad(out, x, grad_output, create_graph=create_graph)[0]


def _conv_weight_grad(conv: Callable[..., TensorBase], nd: int, input: TensorBase,  # noqa: A002
                      weight_size: Sequence[int], grad_output: TensorBase, args: tuple
                      ) -> TensorBase:
    """The gradient of ``conv(input, w, *args)`` with respect to w of ``weight_size``."""
    shape = tuple(int(s) for s in weight_size)
    if len(shape) != nd + 2:
        raise ValueError(f"conv{nd}d_weight: weight_size must have {nd + 2} entries (out "
                         f"channels, in channels / groups and {nd} kernel sizes), got "
                         f"{tuple(weight_size)}")
    create_graph = grad_state.enabled
    with enable_grad():
        w = _fn.zeros(shape, dtype=input.dtype, requires_grad=True)
        out = conv(input, w, None, *args)
    return _grad(out, w, grad_output, create_graph=create_graph)[0]


def conv1d_input(input_size: Sequence[int], weight: TensorBase, grad_output: TensorBase,
                 stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1) -> TensorBase:
    """The gradient of ``conv1d`` with respect to its input (of shape ``input_size``)."""
    return _conv_input_grad(F.conv1d, 1, input_size, weight, grad_output,
                            (stride, padding, dilation, groups))


def conv1d_weight(input: TensorBase, weight_size: Sequence[int],  # noqa: A002
                  grad_output: TensorBase, stride: Any = 1, padding: Any = 0,
                  dilation: Any = 1, groups: int = 1) -> TensorBase:
    """The gradient of ``conv1d`` with respect to its weight (of shape ``weight_size``)."""
    return _conv_weight_grad(F.conv1d, 1, input, weight_size, grad_output,
                             (stride, padding, dilation, groups))


def conv2d_input(input_size: Sequence[int], weight: TensorBase, grad_output: TensorBase,
                 stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1) -> TensorBase:
    """The gradient of ``conv2d`` with respect to its input (of shape ``input_size``)."""
    return _conv_input_grad(F.conv2d, 2, input_size, weight, grad_output,
                            (stride, padding, dilation, groups))


def conv2d_weight(input: TensorBase, weight_size: Sequence[int],  # noqa: A002
                  grad_output: TensorBase, stride: Any = 1, padding: Any = 0,
                  dilation: Any = 1, groups: int = 1) -> TensorBase:
    """The gradient of ``conv2d`` with respect to its weight (of shape ``weight_size``)."""
    return _conv_weight_grad(F.conv2d, 2, input, weight_size, grad_output,
                             (stride, padding, dilation, groups))


def conv3d_input(input_size: Sequence[int], weight: TensorBase, grad_output: TensorBase,
                 stride: Any = 1, padding: Any = 0, dilation: Any = 1,
                 groups: int = 1) -> TensorBase:
    """The gradient of ``conv3d`` with respect to its input (of shape ``input_size``)."""
    return _conv_input_grad(F.conv3d, 3, input_size, weight, grad_output,
                            (stride, padding, dilation, groups))


def conv3d_weight(input: TensorBase, weight_size: Sequence[int],  # noqa: A002
                  grad_output: TensorBase, stride: Any = 1, padding: Any = 0,
                  dilation: Any = 1, groups: int = 1) -> TensorBase:
    """The gradient of ``conv3d`` with respect to its weight (of shape ``weight_size``)."""
    return _conv_weight_grad(F.conv3d, 3, input, weight_size, grad_output,
                             (stride, padding, dilation, groups))
