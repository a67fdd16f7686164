"""Convolution as one primitive (``ConvolutionBackward0``, PyTorch's node name).

The array rule never builds the full im2col matrix. The input is zero-padded once, split into
``prod(stride)`` phases (``x[..., a::s]``: a strided convolution is a sum of stride-1 ones over
the phases, so nothing is skipped) and each (image, channel) plane is flattened. On that flat
plane a kernel offset is a constant shift: the window element at offset q of output position p
is ``plane[p + shift(q)]``, where the output positions are laid out on the padded grid (the
few positions past each row's last output are computed and dropped). So the column matrix of a
few images is K contiguous slice copies, the output a GEMM per image with the (O, C * K)
weight, and col2im K contiguous adds: every copy and add runs over long contiguous rows, and a
chunk of images at a time stays in cache. The columns are not saved: backward rebuilds them
chunk by chunk from the saved phase-split input (smaller than the columns by about K). A 1x1
kernel with stride 1 and no padding reads the input itself (a plain GEMM, no copy).

Backward: the output gradient is put on the same padded grid (zeros where the forward dropped
positions, so they add nothing); the weight gradient is a GEMM per image with the rebuilt
columns, the column gradient a GEMM with the weight, scattered back by K shifted adds. Products
with the dropped positions are exactly zero as long as the input and weight are finite; when
they are not (0 * inf), the affected gradient is recomputed by the plain im2col rule, which
touches only real windows.

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
from .._core.tracing import tracing_state
from .common import is_array, wrap
from .movement import permute_rule
from .nn import _fold_rule, _unfold_array, _unfold_rule
from .reduce import mm
from .shape import pad_constant

__all__ = ["convolution"]

# Images per chunk: about this many bytes of columns at a time (they stay in L2/L3 while the
# GEMM reads them and, in backward, while col2im adds them back).
_CHUNK_BYTES = 1 << 21
# Below this many output-grid positions per image the full im2col matrix is used instead (one
# large GEMM; the per-image GEMMs and row copies of short planes cost more).
_LONG_ROWS = 512
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


class _Geometry:
    """Where every kernel offset reads on the phase-split, flattened padded input (see the
    module docstring), computed once per convolution call."""

    __slots__ = ("spatial", "out_sizes", "stride", "pads", "phase_sizes", "phases", "shifts",
                 "flat", "length", "grid", "dense", "bare", "plain", "per_phase")

    def __init__(self, spatial: tuple, kernel: tuple, stride: tuple, pads: tuple,
                 dilation: tuple) -> None:
        self.spatial, self.stride, self.pads = spatial, stride, pads
        self.out_sizes = tuple((s + b + a - d * (k - 1) - 1) // st + 1 for s, (b, a), k, d, st
                               in zip(spatial, pads, kernel, dilation, stride))
        self.phase_sizes = tuple(-(-(s + b + a) // st)
                                 for s, (b, a), st in zip(spatial, pads, stride))
        rows = [math.prod(self.phase_sizes[i + 1:]) for i in range(len(spatial))]
        reads = []  # (phase tuple, flat shift) per kernel offset, in the weight's order
        for offsets in itertools.product(*(range(k) for k in kernel)):
            pos = [o * d for o, d in zip(offsets, dilation)]
            reads.append((tuple(q % st for q, st in zip(pos, stride)),
                          sum((q // st) * r for q, st, r in zip(pos, stride, rows))))
        used = sorted({ph for ph, _ in reads})  # a 1x1 strided kernel needs one phase only
        self.per_phase = used
        self.phases = len(used)
        self.shifts = tuple((used.index(ph), shift) for ph, shift in reads)
        self.flat = math.prod(self.phase_sizes)
        # output position p sits at flat index sum(p_i * rows_i): its window starts there
        self.length = sum((o - 1) * r for o, r in zip(self.out_sizes, rows)) + 1
        self.grid = self.out_sizes[0] * rows[0]  # the output grid incl. dropped positions
        self.dense = self.phase_sizes[1:] == self.out_sizes[1:]  # nothing dropped
        # stride 1, no padding: the phase-split input is the input itself
        self.bare = all(st == 1 for st in stride) and not any(b or a for b, a in pads)
        self.plain = self.bare and len(reads) == 1  # 1x1 too: the columns are the input

    def slices(self, phase: tuple) -> tuple[tuple, tuple]:
        """(slices into one phase's plane, slices into the unpadded input) of the input
        elements that phase holds."""
        dst, src = [], []
        for a, (b, _), st, size, count in zip(phase, self.pads, self.stride, self.spatial,
                                              self.phase_sizes):
            lo = max(0, -((a - b) // st))
            hi = max(lo, min(count, (size - 1 + b - a) // st + 1))
            dst.append(slice(lo, hi))
            start = lo * st + a - b
            src.append(slice(start, start + (hi - lo - 1) * st + 1, st) if hi > lo
                       else slice(0, 0))
        return tuple(dst), tuple(src)

    def phased(self, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """(N, C, *S) -> (N, C, phases, flat): padded with zeros, split into the used phases,
        each plane flattened (a view of ``x`` when there is nothing to pad or split)."""
        n, c = x.shape[:2]
        if self.bare:
            return x.astype(dtype, copy=False).reshape(n, c, 1, self.flat)
        buf = np.zeros((n, c, self.phases) + self.phase_sizes, dtype)
        for j, phase in enumerate(self.per_phase):
            dst, src = self.slices(phase)
            buf[(slice(None), slice(None), j) + dst] = x[(slice(None), slice(None)) + src]
        return buf.reshape(n, c, self.phases, self.flat)

    def valid(self, grid: np.ndarray) -> np.ndarray:
        """The (B, O, *out) output positions of a (B, O, grid) buffer (a view)."""
        b, o = grid.shape[:2]
        shaped = grid.reshape((b, o, self.out_sizes[0]) + self.phase_sizes[1:])
        return shaped[(Ellipsis,) + tuple(slice(0, s) for s in self.out_sizes[1:])]

    def gather(self, xph: np.ndarray, start: int, count: int,
               cols: np.ndarray | None) -> np.ndarray:
        """The (B, C * K, length) columns of images start..start+count: K contiguous slice
        copies into ``cols`` (a view of the input when the kernel has one offset)."""
        length = self.length
        if cols is None:
            phase, shift = self.shifts[0]
            return xph[start:start + count, :, phase, shift:shift + length]
        chunk = cols[:count]
        src = xph[start:start + count]
        for q, (phase, shift) in enumerate(self.shifts):
            chunk[:, :, q] = src[:, :, phase, shift:shift + length]
        return chunk.reshape(count, -1, length)

    def scatter_add(self, dcols: np.ndarray, dst: np.ndarray) -> None:
        """col2im: (B, C, K, length) column gradients added into (B, C, phases, flat)."""
        length = self.length
        for q, (phase, shift) in enumerate(self.shifts):
            dst[:, :, phase, shift:shift + length] += dcols[:, :, q]

    def unphase_into(self, planes: np.ndarray, out: np.ndarray) -> None:
        """The input-shaped (B, C, *S) ``out`` from (B, C, phases, flat) planes (the padding
        dropped); input elements no used phase holds are set to zero."""
        b, c = planes.shape[:2]
        shaped = planes.reshape((b, c, self.phases) + self.phase_sizes)
        if self.phases < math.prod(self.stride):
            out[...] = 0
        for j, phase in enumerate(self.per_phase):
            dst, src = self.slices(phase)
            out[(slice(None), slice(None)) + src] = shaped[(slice(None), slice(None), j) + dst]


def _chunk(n: int, per_image: int) -> int:
    """Images per chunk for ``per_image`` bytes of columns each."""
    return max(1, min(n, _CHUNK_BYTES // max(per_image, 1)))


def _forward_arrays(x: np.ndarray, weight: np.ndarray, geo: _Geometry, groups: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """(output (N, O, *out) in the compute dtype, the saved phase-split input)."""
    dt = np.dtype(np.float32) if x.dtype == _HALF else x.dtype
    n, c = x.shape[:2]
    o = weight.shape[0]
    kk = len(geo.shifts)
    length = geo.length
    xph = geo.phased(x, dt)
    wg = weight.astype(dt, copy=False).reshape(groups, o // groups, -1)
    out = np.empty((n, o) + geo.out_sizes, dt)
    single = kk == 1
    m = n if single else _chunk(n, c * kk * length * dt.itemsize)
    cols = None if single else np.empty((m, c, kk, length), dt)
    grid = None if geo.dense else np.empty((m, o, geo.grid), dt)
    flat_out = out.reshape(n, o, -1)
    for start in range(0, n, m):
        count = min(m, n - start)
        columns = geo.gather(xph, start, count, cols)
        target = flat_out[start:start + count] if grid is None else grid[:count]
        np.matmul(wg, columns.reshape(count, groups, -1, length),
                  out=target[:, :, :length].reshape(count, groups, o // groups, length))
        if grid is not None:
            out[start:start + count] = geo.valid(grid[:count])
    return out, xph


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
    geometry: _Geometry | None

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
                         xph: np.ndarray, edges: tuple, geo: _Geometry) -> tuple:
        """The plain backward on arrays, chunk by chunk over the images (see the module)."""
        g = self.groups
        need_x = bool(edges[0])
        need_w = len(edges) > 1 and bool(edges[1])
        grad_b = grad.reshape(grad.shape[0], grad.shape[1], -1).sum((0, 2)) \
            if len(edges) == 3 and edges[2] else None
        grad_x = None
        if tracing_state.active:  # tl.compile: the exact rule for both (a replay cannot choose
            # the rule by the data, and computing the other one first would be wasted)
            grad_x, grad_w = self._backward_im2col(grad, x, weight, (need_x, need_w))[:2]
            if grad_w is not None:
                grad_w = grad_w.reshape(weight.shape).astype(weight.dtype, copy=False)
            if grad_b is not None:
                grad_b = grad_b.astype(weight.dtype, copy=False)
            return (grad_x, grad_w, grad_b)[:len(edges)]
        # see the module: the exact rule for a non-finite weight
        if need_x and not np.isfinite(weight).all():
            grad_x = self._backward_im2col(grad, x, weight, (True, False))[0]
            need_x = False
        if not (need_x or need_w):
            return (grad_x, None, grad_b)[:len(edges)]
        dt = xph.dtype
        n, c = x.shape[:2]
        o = weight.shape[0]
        kk, length = len(geo.shifts), geo.length
        wg = weight.astype(dt, copy=False).reshape(g, o // g, -1)
        grad = grad.astype(dt, copy=False)
        single = kk == 1
        m = n if single else _chunk(n, c * kk * length * dt.itemsize)
        if geo.dense:
            flat_grad = grad.reshape(n, o, geo.grid)
        else:  # the dropped positions stay zero: they add nothing to either product
            padded_grad = np.zeros((m, o, geo.grid), dt)
        cols = np.empty((m, c, kk, length), dt) if need_w and not single else None
        grad_w = np.zeros((g, o // g, wg.shape[2]), dt) if need_w else None
        if need_x:
            dx = np.empty((n, c) + geo.spatial, dt)
            dcols = np.empty((m, c * kk, length), dt)
            planes = None if geo.bare else np.empty((m, c, geo.phases, geo.flat), dt)
        w_t = np.swapaxes(wg, 1, 2)
        for start in range(0, n, m):
            count = min(m, n - start)
            if geo.dense:
                chunk_grad = flat_grad[start:start + count]
            else:
                geo.valid(padded_grad[:count])[...] = grad[start:start + count]
                chunk_grad = padded_grad[:count, :, :length]
            chunk_grad = chunk_grad.reshape(count, g, o // g, length)
            if need_w:
                columns = geo.gather(xph, start, count, cols).reshape(count, g, -1, length)
                grad_w += np.matmul(chunk_grad, np.swapaxes(columns, 2, 3)).sum(0)
            if not need_x:
                continue
            target = dx[start:start + count].reshape(count, c, 1, geo.flat) if geo.bare \
                else planes[:count]  # type: ignore[index]
            if geo.plain:  # 1x1, stride 1, no padding: the column gradient is the result
                np.matmul(w_t, chunk_grad, out=target.reshape(count, g, -1, length))
                continue
            chunk_cols = np.matmul(w_t, chunk_grad, out=dcols[:count].reshape(count, g, -1, length))
            target[...] = 0
            geo.scatter_add(chunk_cols.reshape(count, c, kk, length), target)
            if not geo.bare:
                geo.unphase_into(target, dx[start:start + count])
        if grad_w is not None and not np.isfinite(grad_w).all():
            grad_w = self._backward_im2col(grad, x, weight, (False, True))[1]
        if need_x:
            grad_x = dx if dx.dtype == x.dtype else dx.astype(x.dtype)
        if grad_w is not None:
            grad_w = grad_w.reshape(weight.shape).astype(weight.dtype, copy=False)
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
        grad_x = _input_grad_array(grad_t, weight, self) if edges[0] else None
        grad_w = mm(grad_t, np.swapaxes(cols, 1, 2)).reshape(weight.shape) \
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
            grad_w = mm(grad_t, np.swapaxes(cols, 1, 2)).reshape(weight.shape)
        return grad_x, grad_w


def convolution(x: TensorBase, weight: TensorBase, bias: TensorBase | None, stride: tuple,
                pads: tuple, dilation: tuple, groups: int) -> TensorBase:
    """N-d convolution (cross-correlation) of batched (N, C, *S) input with (O, C/G, *k)
    weight; ``pads`` is one (before, after) pair per spatial dim. Arguments are checked by the
    caller (``nn.functional.conv*d``)."""
    data, w = x._data, weight._data
    geo: _Geometry | None = _Geometry(tuple(data.shape[2:]), tuple(w.shape[2:]), stride, pads,
                                      dilation)
    assert geo is not None
    out_sizes = geo.out_sizes
    if len(geo.shifts) == 1 or geo.length >= _LONG_ROWS:
        out, saved = _forward_arrays(data, w, geo, groups)
    else:  # short planes: per-image GEMMs and row copies cost more than the full matrix
        geo = None
        n, o = data.shape[0], w.shape[0]
        saved, _ = _columns_by_row(_pad(data, pads), tuple(w.shape[2:]), stride, dilation,
                                   groups)
        out = mm(w.reshape(groups, o // groups, -1), saved)  # (G, O/G, N * P)
        out = np.ascontiguousarray(np.swapaxes(out.reshape(o, n, -1), 0, 1))
        out = out.reshape((n, o) + out_sizes)
    if bias is not None:
        out += bias._data.reshape((1, -1) + (1,) * len(out_sizes))
    if out.dtype != data.dtype:
        out = out.astype(data.dtype)
    inputs = (x, weight) if bias is None else (x, weight, bias)
    if not (grad_state.enabled and any(t._requires_grad for t in inputs)):
        return wrap(out)
    node = ConvolutionBackward0(*inputs)
    node.stride, node.dilation, node.pads, node.groups = stride, dilation, pads, groups
    node.input_shape, node.out_sizes, node.geometry = data.shape, out_sizes, geo
    node.save_for_backward(x, weight, wrap(saved))
    return wrap(out, node)
