"""Convolution as one primitive (``ConvolutionBackward0``, PyTorch's node name).

Two array rules. The flat rule (``conv_kernels``) folds the batch into one flat axis of the
padded, phase-split input, so the columns of a chunk of images are K contiguous slice copies
and its output one 2-D GEMM; the columns are not saved: backward rebuilds them chunk by chunk
from the saved phase-split input (smaller than the columns by about K). It computes every
position of the padded grid and drops the extra ones, so for small maps with wide padding the
full im2col matrix (one transposing copy, one GEMM, saved for backward) is used instead. A 1x1
kernel with stride 1 and no padding reads the input itself (a plain GEMM, no copy).

Backward: the weight gradient is a GEMM of the output gradient (put on the grid, zeros where
the forward dropped positions) with the columns. The input gradient of a stride-1 convolution
is itself a convolution, of the output gradient with the flipped kernel (one im2col and one
GEMM of the forward's shape, instead of a column gradient K times the input and K scatter
adds); a strided one scatters the column gradient back by K shifted adds. Products with the
dropped positions are exactly zero as long as the input and weight are finite; when they are
not (0 * inf), the affected gradient is recomputed by the plain im2col rule, which touches only
real windows.

Under ``create_graph`` the backward runs a second rule written with operations that exist for
arrays and tensors alike (``reshape``, ``permute_rule``, ``mm``, the unfold/fold rules), so it
is recorded and differentiates again.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable

import numpy as np

from .._core.grad_mode import grad_state
from .._core.graph import Node
from .._core.memory_format import in_format, is_in_format
from .._core.tensor_base import TensorBase
from . import conv_kernels as kernels
from .common import is_array, wrap
from .elementwise import bfloat16_in_float32
from .movement import permute_rule
from .nn import _fold_rule, _unfold_array, _unfold_rule
from .reduce import mm
from .shape import pad_constant

__all__ = ["convolution"]

# The flat rule computes every position of the padded grid: where that is more than this many
# times the kept outputs (tiny maps, wide padding), the full im2col matrix is used instead.
# Measured (forward + backward, batch 64-100, 2 threads): the flat rule is faster up to a waste
# of about 2.8, because its columns come in cache-sized chunks while the full matrix is one
# large fresh allocation: 14x14 maps with 5x5 kernels and padding 2 (waste 1.31) 37 against
# 45 ms, 7x7 (1.65) 7.3 against 10.5 ms, 2x2 with 3x3 kernels (2.25) 2.0 against 3.7 ms, 3x3
# with 5x5 kernels (2.78) 4.0 against 6.0 ms.
_MAX_WASTE = 3.0
# From this many output positions per image the flat rule is used whatever the padding (the
# full matrix would be K times the input, and the grid's waste is small there).
_LONG_ROWS = 4096
_HALF = np.dtype(np.float16)


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
    geometry: kernels.Geometry | None

    def backward(self, grad):
        x, weight = self.saved_tensors[0], self.saved_tensors[1]
        edges = self.next_edges
        if is_array(grad) and is_array(x):
            if self.geometry is None:  # short rows: the full column matrix was saved
                return self._backward_saved_columns(grad, weight, self.saved_tensors[2], edges)
            return self._backward_arrays(grad, x, weight, self.saved_tensors[2], edges,
                                         self.geometry)
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

    def _backward_arrays(self, grad: np.ndarray, x: np.ndarray, weight: np.ndarray,
                         saved: np.ndarray, edges: tuple, geo: kernels.Geometry) -> tuple:
        """The plain backward on arrays (see ``conv_kernels``)."""
        g = self.groups
        need_x = bool(edges[0])
        need_w = len(edges) > 1 and bool(edges[1])
        grad_b = grad.reshape(grad.shape[0], grad.shape[1], -1).sum((0, 2)) \
            if len(edges) == 3 and edges[2] else None
        dt = saved.dtype
        grad = grad.astype(dt, copy=False)
        grad_x = grad_w = None
        if need_x:
            finite = np.isfinite(weight).all()  # see the module: the exact rule if it is not
            if finite:
                if not geo.plain:  # with the weight gradient from the same columns if wanted
                    partner = x.astype(dt, copy=False) if need_w else None
                    grad_x, grad_w = _input_grad_by_conv(grad, weight, self, partner)
                if grad_x is None:
                    grad_x = kernels.input_grad_scatter(grad, weight, geo, g, x.shape[1])
                grad_x = grad_x.astype(x.dtype, copy=False)
            grad_x = _select(grad_x, finite, lambda: self._backward_im2col(
                grad, x, weight, (True, False))[0])
        if need_w:
            if grad_w is None:
                grad_w = kernels.weight_grad(grad, saved, geo, g)
            grad_w = grad_w.reshape(weight.shape).astype(weight.dtype, copy=False)
            # see the module: 0 * inf at dropped positions
            grad_w = _select(grad_w, np.isfinite(grad_w).all(), lambda: self._backward_im2col(
                grad, x, weight, (False, True))[1])
        if grad_b is not None:
            grad_b = grad_b.astype(weight.dtype, copy=False)
        return (grad_x, grad_w, grad_b)[:len(edges)]

    def _backward_saved_columns(self, grad: np.ndarray, weight: np.ndarray, cols: np.ndarray,
                                edges: tuple) -> tuple:
        """The backward of the full-im2col forward, with its saved (G, C/G * K, N * P)
        columns."""
        g, nd = self.groups, len(self.stride)
        o = weight.shape[0]
        # (N, O, *out) -> (G, O/G, N * P): one copy, shared by both GEMMs
        grad_t = np.swapaxes(grad.reshape(grad.shape[0], o, -1), 0, 1).reshape(g, o // g, -1)
        grad_x = None
        if edges[0]:
            finite = np.isfinite(weight).all()  # the gradient's convolution needs it
            if finite:
                grad_x = _input_grad_by_conv(grad, weight, self)[0]
            grad_x = _input_grad_array(grad_t, weight, self) if grad_x is None else \
                _select(grad_x, finite, lambda: _input_grad_array(grad_t, weight, self))
        grad_w = _weight_grad_of_columns(grad_t, cols).reshape(weight.shape) \
            if len(edges) > 1 and edges[1] else None
        grad_b = grad.sum((0,) + tuple(range(2, 2 + nd))) \
            if len(edges) == 3 and edges[2] else None
        return (grad_x, grad_w, grad_b)[:len(edges)]

    def _backward_im2col(self, grad: np.ndarray, x: np.ndarray, weight: np.ndarray,
                         wanted: tuple) -> tuple:
        """(input gradient, weight gradient) by the full im2col matrix: only real windows are
        touched, so non-finite inputs or weights give what PyTorch gives."""
        g = self.groups
        o = weight.shape[0]
        grad = grad.astype(x.dtype, copy=False)
        # (N, O, *out) -> (G, O/G, N * P)
        grad_t = np.swapaxes(grad.reshape(grad.shape[0], o, -1), 0, 1).reshape(g, o // g, -1)
        grad_x = _input_grad_array(grad_t, weight, self) if wanted[0] else None
        grad_w = None
        if wanted[1]:
            cols = _columns_by_row(_pad(x, self.pads), tuple(weight.shape[2:]), self.stride,
                                   self.dilation, g)[0]
            grad_w = _weight_grad_of_columns(grad_t, cols).reshape(weight.shape)
        return grad_x, grad_w


def _weight_grad_of_columns(grad_t: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """(G, O/G, C/G * K) from the (G, O/G, N * P) gradient and the (G, C/G * K, N * P)
    columns, computed as columns times gradient: OpenBLAS runs this long-K product 1.3-3x
    faster with the columns on the left (see ``conv_kernels``)."""
    return np.swapaxes(mm(cols, np.swapaxes(grad_t, 1, 2)), 1, 2)


def _select(fast: np.ndarray | None, ok: np.ndarray, exact: Callable[[], np.ndarray]
            ) -> np.ndarray:
    """``fast`` where the 0-d ``ok`` holds, else ``exact()``. (While tl.compile traces,
    reading ``ok`` records a check: a replay where it goes the other way runs eagerly.)"""
    return fast if ok and fast is not None else exact()


def _flat_pays(geo: kernels.Geometry) -> bool:
    """Whether the flat rule takes this geometry (see ``_MAX_WASTE``)."""
    positions = math.prod(geo.out_sizes)
    return len(geo.shifts) == 1 or positions >= _LONG_ROWS or \
        geo.flat <= _MAX_WASTE * positions


def _conv_arrays(data: np.ndarray, w: np.ndarray, stride: tuple, pads: tuple, dilation: tuple,
                 groups: int) -> tuple[np.ndarray, np.ndarray, kernels.Geometry | None]:
    """(output (N, O, *out), what backward needs, the geometry or None for the full matrix)
    of a convolution of arrays; the output may be in the float32 compute dtype of half input."""
    geo = kernels.Geometry(tuple(data.shape[2:]), tuple(w.shape[2:]), stride, pads, dilation)
    if _flat_pays(geo):
        out, saved, _ = kernels.forward(data, w, geo, groups, _compute_dtype(data.dtype))
        return out, saved, geo
    n, o = data.shape[0], w.shape[0]
    saved, _ = _columns_by_row(_pad(data, pads), tuple(w.shape[2:]), stride, dilation, groups)
    out = mm(w.reshape(groups, o // groups, -1), saved)  # (G, O/G, N * P)
    out = np.ascontiguousarray(np.swapaxes(out.reshape(o, n, -1), 0, 1))
    return out.reshape((n, o) + geo.out_sizes), saved, None


def _compute_dtype(dt: np.dtype) -> np.dtype:
    """The dtype the GEMMs run in: float32 for half (NumPy has no half GEMM)."""
    return np.dtype(np.float32) if dt == _HALF else dt


def _input_grad_by_conv(grad: np.ndarray, weight: np.ndarray, node: ConvolutionBackward0,
                        partner: np.ndarray | None = None
                        ) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The input gradient of a stride-1 convolution as the convolution of the output gradient,
    padded by ``dilation * (k - 1) - pad``, with the flipped kernel, channels swapped per group:
    one im2col and one GEMM of the forward's shape, instead of a column gradient K times the
    input's size and K scatter-adds (about 3x faster). With the input as ``partner`` and the
    flat rule, also the (G, O/G, C/G * K) weight gradient, from the same columns (the gradient's
    im2col holds every product the weight gradient sums, so the input's columns are not
    rebuilt). (None, None) where it does not apply (strided, or padding wider than the kernel
    span); the weight must be finite (the padded zeros meet every weight entry), and a
    non-finite input can make the weight gradient NaN (0 * inf at padded positions): callers
    check it, as for the flat rule."""
    kernel = tuple(weight.shape[2:])
    pads = tuple((d * (k - 1) - b, d * (k - 1) - a)
                 for (b, a), k, d in zip(node.pads, kernel, node.dilation))
    if any(s != 1 for s in node.stride) or any(b < 0 or a < 0 for b, a in pads):
        return None, None
    g, nd = node.groups, len(kernel)
    o, cg = weight.shape[:2]
    flipped = weight[(slice(None), slice(None)) + (slice(None, None, -1),) * nd]
    w_t = np.ascontiguousarray(np.swapaxes(flipped.reshape((g, o // g, cg) + kernel), 1, 2)
                               ).reshape((g * cg, o // g) + kernel)
    geo = kernels.Geometry(tuple(grad.shape[2:]), kernel, node.stride, pads, node.dilation)
    if partner is None or not _flat_pays(geo):
        return _conv_arrays(grad, w_t, node.stride, pads, node.dilation, g)[0], None
    dx, _, product = kernels.forward(grad, w_t, geo, g, grad.dtype, partner)
    assert product is not None
    # (G, O/G * K, C/G) with flipped offsets -> (G, O/G, C/G * K) in the weight's order
    product = product.reshape((g, o // g) + kernel + (cg,))
    product = product[(slice(None), slice(None)) + (slice(None, None, -1),) * nd]
    order = (0, 1, 2 + nd) + tuple(range(2, 2 + nd))
    return dx, np.ascontiguousarray(product.transpose(order)).reshape(g, o // g, -1)


@bfloat16_in_float32  # PyTorch accumulates bfloat16 convolutions (and bias sums) in float32
def convolution(x: TensorBase, weight: TensorBase, bias: TensorBase | None, stride: tuple,
                pads: tuple, dilation: tuple, groups: int) -> TensorBase:
    """N-d convolution (cross-correlation) of batched (N, C, *S) input with (O, C/G, *k)
    weight; ``pads`` is one (before, after) pair per spatial dim. Arguments are checked by the
    caller (``nn.functional.conv*d``)."""
    data, w = x._data, weight._data
    out, saved, geo = _conv_arrays(data, w, stride, pads, dilation, groups)
    out_sizes = tuple(out.shape[2:])
    if bias is not None:
        out += bias._data.reshape((1, -1) + (1,) * len(out_sizes))
    if out.dtype != data.dtype:
        out = out.astype(data.dtype)
    if (data.ndim == 4 and not data.flags.c_contiguous and is_in_format(data, "channels_last")
            and not is_in_format(out, "channels_last")):
        out = in_format(out, "channels_last")  # channels-last in, channels-last out (PyTorch)
    inputs = (x, weight) if bias is None else (x, weight, bias)
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out)
    node = ConvolutionBackward0(*inputs)
    node.stride, node.dilation, node.pads, node.groups = stride, dilation, pads, groups
    node.input_shape, node.out_sizes, node.geometry = data.shape, out_sizes, geo
    node.save_for_backward(x, weight, wrap(saved))
    return wrap(out, node)
