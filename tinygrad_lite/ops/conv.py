"""Convolution as one primitive (``ConvolutionBackward0``, PyTorch's node name).

Forward is im2col and one GEMM per group. The input's sliding windows (a zero-copy view) are
copied once into a (C * K, N * P) column matrix whose rows run along the output positions, so
the copy reads whole rows of the input (the last axis moves with stride 1), and the (O, C * K)
weight multiplies it as one BLAS call; the (O, N * P) result is transposed once into (N, O,
*out). Backward is the same pieces in reverse: the output gradient as an (O, N * P) matrix; the
weight gradient as one GEMM with the saved columns; the column gradient as one GEMM with the
weight, laid out (C, K, N * P) so that col2im is K adds of contiguous (C, N, *out) slabs into a
channels-first buffer, transposed to (N, C, *S) at the end. Composed of unfold, permutes,
reshapes and a matmul, the same convolution would record about ten nodes and copy its columns
twice more.

Under ``create_graph`` the backward runs a second rule written with operations that exist for
arrays and tensors alike (``reshape``, ``permute_rule``, ``mm``, the unfold/fold rules), so it
is recorded and differentiates again.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .common import is_array, wrap
from .movement import permute_rule
from .nn import _fold_rule, _unfold_array, _unfold_rule
from .reduce import mm
from .shape import pad_constant

__all__ = ["convolution"]


def _pad(x, pads: tuple):
    """Zero-pad the trailing spatial dims by ((before, after), ...)."""
    if not any(b or a for b, a in pads):
        return x
    widths = ((0, 0), (0, 0)) + tuple(pads)
    return np.pad(x, widths) if is_array(x) else pad_constant(x, widths)


def _columns(x, kernel: tuple, stride: tuple, dilation: tuple, groups: int):
    """im2col: (N, C, *S) -> (G, N * P, C/G * K) columns (a copy), and the output sizes."""
    nd = len(kernel)
    windows = _unfold_array(x, kernel, stride, dilation) if is_array(x) else \
        _unfold_rule(x, kernel, stride, dilation)  # (N, C, *out, *k)
    n, c = windows.shape[:2]
    out_sizes = tuple(windows.shape[2:2 + nd])
    p, k = math.prod(out_sizes), math.prod(kernel)
    order = (0,) + tuple(range(2, 2 + nd)) + (1,) + tuple(range(2 + nd, 2 + 2 * nd))
    cols = permute_rule(windows, order).reshape(n * p, groups, c // groups * k)
    return permute_rule(cols, (1, 0, 2)), out_sizes


def _columns_by_row(x: np.ndarray, kernel: tuple, stride: tuple, dilation: tuple,
                    groups: int) -> tuple[np.ndarray, tuple]:
    """im2col of a padded array: (N, C, *S) -> (G, C/G * K, N * P) columns (a copy whose rows
    follow the output positions), and the output sizes."""
    nd = len(kernel)
    windows = _unfold_array(x, kernel, stride, dilation)  # (N, C, *out, *k)
    n, c = windows.shape[:2]
    out_sizes = tuple(windows.shape[2:2 + nd])
    order = (1,) + tuple(range(2 + nd, 2 + 2 * nd)) + (0,) + tuple(range(2, 2 + nd))
    cols = windows.transpose(order).reshape(groups, c // groups * math.prod(kernel),
                                            n * math.prod(out_sizes))
    return cols, out_sizes


def _input_grad_array(grad_t: np.ndarray, weight: np.ndarray, node: ConvolutionBackward0
                      ) -> np.ndarray:
    """The input gradient from the (G, O/G, N * P) output gradient: the column gradient as one
    GEMM per group, then col2im as one add of a contiguous slab per kernel offset."""
    g = node.groups
    n, c = node.input_shape[:2]
    kernel = tuple(weight.shape[2:])
    w3 = weight.reshape(g, weight.shape[0] // g, -1)
    dcols = mm(np.swapaxes(w3, 1, 2), grad_t)  # (G, C/G * K, N * P)
    dcols = dcols.reshape((c,) + kernel + (n,) + node.out_sizes)
    padded = tuple(s + b + a for s, (b, a) in zip(node.input_shape[2:], node.pads))
    full = np.zeros((c, n) + padded, dcols.dtype)  # channels first, as the slabs come
    for offsets in itertools.product(*(range(k) for k in kernel)):
        target = tuple(slice(o * d, o * d + st * (size - 1) + 1, st) for o, d, st, size
                       in zip(offsets, node.dilation, node.stride, node.out_sizes))
        full[(slice(None), slice(None)) + target] += dcols[(slice(None),) + offsets]
    crop = (slice(None), slice(None)) + tuple(
        slice(b, b + s) for s, (b, _) in zip(node.input_shape[2:], node.pads))
    return np.swapaxes(full[crop], 0, 1)


class ConvolutionBackward0(Node):
    """Gradients of a convolution for its input, weight and bias (see the module)."""

    stride: tuple
    dilation: tuple
    pads: tuple
    groups: int
    input_shape: tuple
    out_sizes: tuple

    def backward(self, grad):
        x, weight = self.saved_tensors[0], self.saved_tensors[1]
        edges = self.next_edges
        if is_array(grad) and is_array(x):
            return self._backward_arrays(grad, weight, self.saved_tensors[2], edges)
        g, nd = self.groups, len(self.stride)
        o = weight.shape[0]
        kernel = tuple(weight.shape[2:])
        n = self.input_shape[0]
        p = math.prod(self.out_sizes)
        # (N, O, *out) -> (G, N * P, O/G)
        grad2 = permute_rule(grad.reshape(n, g, o // g, p), (1, 0, 3, 2)).reshape(g, n * p, o // g)
        w3 = weight.reshape(g, o // g, -1)  # (G, O/G, C/G * K)
        grad_x = grad_w = grad_b = None
        if len(edges) > 1 and edges[1]:
            # the saved columns are laid out for the array rule: recompute them in this one's
            cols = _columns(_pad(x, self.pads), kernel, self.stride, self.dilation, g)[0]
            grad_w = mm(permute_rule(grad2, (0, 2, 1)), cols).reshape(weight.shape)
        if edges[0]:
            dcols = mm(grad2, w3)  # (G, N * P, C/G * K)
            c = self.input_shape[1]
            dcols = permute_rule(dcols, (1, 0, 2)).reshape(n, *self.out_sizes, c, *kernel)
            order = (0, 1 + nd) + tuple(range(1, 1 + nd)) + tuple(range(2 + nd, 2 + 2 * nd))
            padded = tuple(s + b + a for s, (b, a) in zip(self.input_shape[2:], self.pads))
            full = _fold_rule(permute_rule(dcols, order), padded, kernel, self.stride,
                              self.dilation)
            crop = (slice(None), slice(None)) + tuple(
                slice(b, b + s) for s, (b, _) in zip(self.input_shape[2:], self.pads))
            grad_x = full[crop] if any(b or a for b, a in self.pads) else full
        if len(edges) == 3 and edges[2]:
            grad_b = grad.sum((0,) + tuple(range(2, 2 + nd)))
        return (grad_x, grad_w, grad_b)[:len(edges)]

    def _backward_arrays(self, grad: np.ndarray, weight: np.ndarray, cols: np.ndarray,
                         edges: tuple) -> tuple:
        """The plain backward on arrays, with the saved (G, C/G * K, N * P) columns."""
        g, nd = self.groups, len(self.stride)
        o = weight.shape[0]
        # (N, O, *out) -> (G, O/G, N * P): one copy, shared by both GEMMs
        grad_t = np.swapaxes(grad.reshape(grad.shape[0], o, -1), 0, 1).reshape(g, o // g, -1)
        grad_x = _input_grad_array(grad_t, weight, self) if edges[0] else None
        grad_w = mm(grad_t, np.swapaxes(cols, 1, 2)).reshape(weight.shape) \
            if len(edges) > 1 and edges[1] else None
        grad_b = grad.sum((0,) + tuple(range(2, 2 + nd))) \
            if len(edges) == 3 and edges[2] else None
        return (grad_x, grad_w, grad_b)[:len(edges)]


def convolution(x: TensorBase, weight: TensorBase, bias: TensorBase | None, stride: tuple,
                pads: tuple, dilation: tuple, groups: int) -> TensorBase:
    """N-d convolution (cross-correlation) of batched (N, C, *S) input with (O, C/G, *k)
    weight; ``pads`` is one (before, after) pair per spatial dim. Arguments are checked by the
    caller (``nn.functional.conv*d``)."""
    n = x._data.shape[0]
    o = weight._data.shape[0]
    cols, out_sizes = _columns_by_row(_pad(x._data, pads), tuple(weight._data.shape[2:]),
                                      stride, dilation, groups)
    out = mm(weight._data.reshape(groups, o // groups, -1), cols)  # (G, O/G, N * P)
    out = np.ascontiguousarray(np.swapaxes(out.reshape(o, n, -1), 0, 1))
    out = out.reshape((n, o) + out_sizes)
    if bias is not None:
        out += bias._data.reshape((1, o) + (1,) * len(out_sizes))
    inputs = (x, weight) if bias is None else (x, weight, bias)
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out)
    node = ConvolutionBackward0(*inputs)
    node.stride, node.dilation, node.pads, node.groups = stride, dilation, pads, groups
    node.input_shape, node.out_sizes = x._data.shape, out_sizes
    node.save_for_backward(x, weight, wrap(cols))
    return wrap(out, node)
