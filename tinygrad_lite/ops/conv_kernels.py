"""Array kernels of the convolution (``ops/conv.py``): im2col as contiguous slice copies over the
whole batch folded into one flat axis, so that each chunk of images is one 2-D GEMM.

The input is zero-padded once, split into ``prod(stride)`` phases (``x[..., a::s]``: a strided
convolution is a sum of stride-1 ones over the phases) and laid out channels first, (C, phases,
N * flat), the images of one channel one after another. On that flat axis a kernel offset is a
constant shift: the window element at offset q of output position p is ``plane[p + shift(q)]``,
where output positions are laid out on the padded grid of each image (the positions past each
row's last output and past each image's last row are computed and dropped; a window there
may read the next image's elements, never a kept output's). So the columns of a chunk of
images are K contiguous slice copies, (C * K, chunk * flat), and the output of the chunk is one
GEMM with the (O, C * K) weight, whose rows already hold each output channel's positions image
after image: the kept positions are copied out into (N, O, *out) by one strided copy. The
weight gradient is one GEMM per chunk with the gradient put on the same grid (zeros at the
dropped positions, so they add nothing while the input is finite); the input gradient of a
strided convolution is the column gradient added back by K shifted slab adds.

**By kernel row** (stride 1, enough channels): the offsets of the last kernel dim differ by a
shift of one element, the rows above by a shift of whole rows of the grid. So only the last
dim's KW offsets are copied, (C * KW, count * flat + span), and each row of the kernel reads
that copy at its row shift. The forward multiplies the copy by all kernel rows' weights at
once (one GEMM with KH * O rows, reading the columns once) and sums row r's product read at row
r's shift; the weight gradient and the partner product are one GEMM per kernel row on a
(C * KW, count * flat) slice. KH times fewer bytes copied, at KH - 1 adds of the (O, count *
flat) grid: a 5x5 kernel over 16-32 channels runs 15-35 % faster, a 3x3 one 10-30 %; with fewer
than ``_MIN_ROW_DEPTH`` products per GEMM row the single gather stays faster.

**Weight-gradient products** (the weight gradient, and the partner product that gives it from
the input gradient's columns) are long-K products with a small result, columns (C * K, width)
times a gradient or partner grid (width, P). OpenBLAS runs them 1.5-3.5x faster with the grid as
the C-contiguous right operand, positions first, than with the grid (P, width) on the left or
transposed on the right (measured on the small ResNet's and LeNet's shapes, 1 and 2 threads).
So where the KH products of the by-row path share a grid, it is filled as (P, width), as for
the forward, and copied transposed per chunk (``rows_of``): that copy costs about a third of
what the products save. Where one product uses the grid (the single gather), the copy would cost
what it saves: the columns still go on the left, the grid as the transposed right operand
(1.3-2x faster than the grid on the left).
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from .reduce import mm, mm_into

__all__ = ["Geometry", "forward", "weight_grad", "input_grad_scatter"]

# About this many bytes of columns per chunk of images: they stay in L2/L3 while the GEMM reads
# them (measured on the small ResNet's shapes: 1-2 MiB beat 256 KiB and 8 MiB).
_CHUNK_BYTES = 1 << 21
# The kernel-row split pays from this many products per row of a GEMM (channels per group times
# the last kernel dim): measured 3x3 over 3 channels (9) even, over 8 (24) 10 % faster.
_MIN_ROW_DEPTH = 16


class Geometry:
    """Where every kernel offset reads on the phase-split, batch-folded padded input (see the
    module docstring), computed once per convolution call."""

    __slots__ = ("spatial", "out_sizes", "stride", "pads", "phase_sizes", "per_phase", "phases",
                 "shifts", "flat", "slack", "plain", "inner", "outer")

    def __init__(self, spatial: tuple, kernel: tuple, stride: tuple, pads: tuple,
                 dilation: tuple) -> None:
        self.spatial, self.stride, self.pads = spatial, stride, pads
        self.out_sizes = tuple((s + b + a - d * (k - 1) - 1) // st + 1 for s, (b, a), k, d, st
                               in zip(spatial, pads, kernel, dilation, stride))
        # a phase plane holds at least the output grid (so the output positions of one image
        # never run into the next). Along a stride-1 dim it is only max(before, after) wider
        # than the input: a window reading past the end lands, one row (or image) on, in the
        # next one's leading padding, which is zero too. That shares the padding between rows
        # and images (32x32 with padding 1: 33 x 33 positions, not 34 x 34; GEMM work and
        # column copies shrink alike).
        self.phase_sizes = tuple(
            max(s + max(b, a) if st == 1 and min(b, a) <= d * (k - 1) else -(-(s + b + a) // st),
                o)
            for s, (b, a), st, o, k, d in zip(spatial, pads, stride, self.out_sizes, kernel,
                                              dilation))
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
        self.slack = max(shift for _, shift in self.shifts)  # zeros read past the last image
        # 1x1, stride 1, no padding: the columns are the input itself
        self.plain = (len(reads) == 1 and all(st == 1 for st in stride)
                      and not any(b or a for b, a in pads))
        # stride 1: offset (..., j) reads at (its outer offsets' row shift) + j * dilation, so
        # the columns can be gathered by kernel row (see the module docstring)
        self.inner: tuple = ()
        self.outer: tuple = ()
        if len(spatial) > 1 and all(st == 1 for st in stride):
            self.inner = tuple(j * dilation[-1] for j in range(kernel[-1]))
            self.outer = tuple(
                sum(q * d * r for q, d, r in zip(offsets, dilation, rows))
                for offsets in itertools.product(*(range(k) for k in kernel[:-1])))

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

    def planes(self, lead: tuple, count: int, buf: np.ndarray) -> np.ndarray:
        """The first ``count`` images of a (*lead, count' * flat + ...) buffer as (*lead, count,
        *phase_sizes) (a view)."""
        return buf[..., :count * self.flat].reshape(lead + (count,) + self.phase_sizes)

    def phased(self, x: np.ndarray, dtype: np.dtype) -> np.ndarray:
        """(N, C, *S) -> (C, phases, N * flat + slack): padded with zeros, split into the used
        phases, channels first, each channel's images one flat row."""
        n, c = x.shape[:2]
        buf = np.zeros((c, self.phases, n * self.flat + self.slack), dtype)
        xt = np.swapaxes(x, 0, 1)
        for j, phase in enumerate(self.per_phase):
            dst, src = self.slices(phase)
            view = self.planes((c,), n, buf[:, j])
            view[(slice(None), slice(None)) + dst] = xt[(slice(None), slice(None)) + src]
        return buf

    def valid(self, grid: np.ndarray, count: int) -> np.ndarray:
        """The kept (O, count, *out) output positions of an (O, count * flat ...) grid (a
        view)."""
        shaped = self.planes((grid.shape[0],), count, grid)
        return shaped[(Ellipsis,) + tuple(slice(0, s) for s in self.out_sizes)]

    def gather(self, xph: np.ndarray, start: int, count: int, cols: np.ndarray) -> np.ndarray:
        """The (C * K, count * flat) columns of images start..start+count: K contiguous slice
        copies into ``cols`` (C, K, m * flat) (a view of it)."""
        width, base = count * self.flat, start * self.flat
        if len(self.shifts) == 1:  # one offset (a strided 1x1 kernel): the input itself
            phase, shift = self.shifts[0]
            return xph[:, phase, base + shift:base + shift + width]
        chunk = cols[:, :, :width]
        for q, (phase, shift) in enumerate(self.shifts):
            chunk[:, q] = xph[:, phase, base + shift:base + shift + width]
        return chunk.reshape(-1, width)

    def by_rows(self, depth: int) -> bool:
        """Whether the columns are gathered by kernel row, with ``depth`` input channels per
        group (see the module docstring)."""
        return len(self.outer) > 1 and depth * len(self.inner) >= _MIN_ROW_DEPTH

    def gather_rows(self, xph: np.ndarray, start: int, count: int, buf: np.ndarray) -> list:
        """The columns of images start..start+count by kernel row: the last kernel dim's
        offsets copied into ``buf`` (C, KW, >= count * flat + span), then one (C * KW,
        count * flat) view of it per row of the kernel, in the weight's order."""
        width, base = count * self.flat, start * self.flat
        span = self.outer[-1]
        for j, shift in enumerate(self.inner):
            buf[:, j, :width + span] = xph[:, 0, base + shift:base + shift + width + span]
        rows = buf.reshape(-1, buf.shape[-1])
        return [rows[:, shift:shift + width] for shift in self.outer]

    def chunk(self, n: int, c: int, itemsize: int, offsets: int | None = None) -> int:
        """Images per chunk: about ``_CHUNK_BYTES`` of columns (``offsets`` kernel offsets per
        channel copied, all of them by default)."""
        per_image = c * (offsets or len(self.shifts)) * self.flat * itemsize
        return max(1, min(n, _CHUNK_BYTES // max(per_image, 1)))

    def row_buffer(self, n: int, c: int, dt: np.dtype) -> np.ndarray:
        """The (C, KW, chunk * flat + span) buffer ``gather_rows`` copies into."""
        m = self.chunk(n, c, dt.itemsize, len(self.inner))
        return np.empty((c, len(self.inner), m * self.flat + self.outer[-1]), dt)


def _grouped(a: np.ndarray, groups: int) -> np.ndarray:
    """A (rows, width) matrix as (G, rows / G, width) (a view)."""
    return a.reshape(groups, a.shape[0] // groups, a.shape[1])


def rows_of(grid: np.ndarray, width: int, rows: np.ndarray, groups: int) -> np.ndarray:
    """The first ``width`` positions of a (P, >= width) grid copied transposed into ``rows``
    (>= width, P), returned as (G, width, P/G): the fast right operand of a weight-gradient
    product (see the module docstring)."""
    block = rows[:width]
    np.copyto(block, grid[:, :width].T)
    return block.reshape(width, groups, -1).transpose(1, 0, 2)


def forward(x: np.ndarray, weight: np.ndarray, geo: Geometry, groups: int, dt: np.dtype,
            partner: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """(output (N, O, *out) in ``dt``, the saved phase-split input (or ``x`` for a plain 1x1
    kernel), and with a ``partner`` (N, P, *out) the (G, C/G * K, P/G) product of the columns
    with it: the weight gradient of the convolution whose input gradient this one computes,
    from the same columns)."""
    n, c = x.shape[:2]
    o = weight.shape[0]
    weight = weight.astype(dt, copy=False)
    if geo.plain:  # one GEMM per image on the input itself, the output in place
        xs = x.astype(dt, copy=False)
        out = mm(weight.reshape(groups, o // groups, -1), xs.reshape(n, groups, c // groups, -1))
        return out.reshape((n, o) + geo.out_sizes), xs, None
    xph = geo.phased(x, dt)
    if x.ndim == 4 and not x.flags.c_contiguous and x.transpose(0, 2, 3, 1).flags.c_contiguous:
        # a channels-last input gives a channels-last output, as in PyTorch (written in place)
        out = np.empty((n,) + geo.out_sizes + (o,), dt).transpose(0, 3, 1, 2)
    else:
        out = np.empty((n, o) + geo.out_sizes, dt)
    partner_t = None if partner is None else np.swapaxes(partner, 0, 1)
    run = _forward_rows if geo.by_rows(c // groups) else _forward_gathered
    product = run(xph, weight, geo, groups, np.swapaxes(out, 0, 1), partner_t)
    return out, xph, product


def _forward_gathered(xph: np.ndarray, weight: np.ndarray, geo: Geometry, groups: int,
                      out_t: np.ndarray, partner_t: np.ndarray | None) -> np.ndarray | None:
    """``forward`` with all K offsets gathered: one GEMM per chunk of images, written into
    the (O, N, *out) ``out_t``; the partner product if a (P, N, *out) partner is given."""
    c, o, n, dt = xph.shape[0], out_t.shape[0], out_t.shape[1], xph.dtype
    wg = weight.reshape(groups, o // groups, -1)
    m = geo.chunk(n, c, dt.itemsize)
    cols = np.empty((c, len(geo.shifts), m * geo.flat), dt)
    product = partner_grid = None
    if partner_t is not None:
        p = partner_t.shape[0]
        partner_grid = np.zeros((p, m * geo.flat), dt)  # zeros at the dropped positions
        product = np.zeros((groups, c // groups * len(geo.shifts), p // groups), dt)
    for start in range(0, n, m):
        count = min(m, n - start)
        columns = _grouped(geo.gather(xph, start, count, cols), groups)
        grid = mm(wg, columns).reshape(o, -1)
        out_t[:, start:start + count] = geo.valid(grid, count)
        if product is not None and partner_grid is not None:
            assert partner_t is not None
            geo.valid(partner_grid, count)[...] = partner_t[:, start:start + count]
            # one product per copy of the grid: transposing it would cost what it saves
            product += mm(columns, np.swapaxes(
                _grouped(partner_grid[:, :count * geo.flat], groups), 1, 2))
    return product


def _stacked_row_weights(weight: np.ndarray, groups: int, geo: Geometry) -> np.ndarray:
    """The (O, C/G, *k) weight as (G, kernel rows * O/G, C/G * KW): every row of the kernel in
    one GEMM operand, so the forward reads the columns once (``_forward_rows``)."""
    o, cg = weight.shape[:2]
    rows, kw = len(geo.outer), len(geo.inner)
    split = weight.reshape(groups, o // groups, cg, rows, kw).transpose(0, 3, 1, 2, 4)
    return np.ascontiguousarray(split).reshape(groups, rows * (o // groups), cg * kw)


def _forward_rows(xph: np.ndarray, weight: np.ndarray, geo: Geometry, groups: int,
                  out_t: np.ndarray, partner_t: np.ndarray | None) -> np.ndarray | None:
    """``forward`` by kernel row (see the module docstring): per chunk, one GEMM per row of
    the kernel summed on the grid; the partner product one GEMM per row too."""
    c, o, n, dt = xph.shape[0], out_t.shape[0], out_t.shape[1], xph.dtype
    rows, og = len(geo.outer), o // groups
    stacked_w = _stacked_row_weights(weight, groups, geo)
    buf = geo.row_buffer(n, c, dt)
    m = geo.chunk(n, c, dt.itemsize, len(geo.inner))
    grid = np.empty((o, m * geo.flat), dt)
    # every kernel row's product at once, over the copied span (G, rows * O/G, width + span)
    products = np.empty((groups, rows * og, buf.shape[-1]), dt)
    per_row = partner_grid = partner_rows = None
    if partner_t is not None:
        p = partner_t.shape[0]
        partner_grid = np.zeros((p, m * geo.flat), dt)  # zeros at the dropped positions
        partner_rows = np.empty((m * geo.flat, p), dt)
        per_row = np.zeros((len(geo.outer), groups, c // groups * len(geo.inner), p // groups),
                           dt)
    for start in range(0, n, m):
        count = min(m, n - start)
        width = count * geo.flat
        mats = [_grouped(mat, groups) for mat in geo.gather_rows(xph, start, count, buf)]
        copied = width + geo.outer[-1]
        mm_into(stacked_w, _grouped(buf.reshape(-1, buf.shape[-1])[:, :copied], groups),
                products[..., :copied])
        # the output: row r's product read at that row's shift, summed over the rows
        total = _grouped(grid[:, :width], groups)
        shift = geo.outer
        np.add(products[:, :og, shift[0]:shift[0] + width],
               products[:, og:2 * og, shift[1]:shift[1] + width], out=total)
        for r in range(2, rows):
            total += products[:, r * og:(r + 1) * og, shift[r]:shift[r] + width]
        out_t[:, start:start + count] = geo.valid(grid, count)
        if per_row is not None and partner_grid is not None and partner_rows is not None:
            assert partner_t is not None
            geo.valid(partner_grid, count)[...] = partner_t[:, start:start + count]
            partner_cols = rows_of(partner_grid, width, partner_rows, groups)
            for r, mat in enumerate(mats):
                per_row[r] += mm(mat, partner_cols)
    if per_row is None:
        return None
    # (rows, G, C/G * KW, P/G) -> (G, C/G * K, P/G), offsets in the weight's order
    rows, _, _, pg = per_row.shape
    return per_row.reshape(rows, groups, c // groups, len(geo.inner), pg).transpose(
        1, 2, 0, 3, 4).reshape(groups, -1, pg)


def weight_grad(grad: np.ndarray, saved: np.ndarray, geo: Geometry, groups: int
                ) -> np.ndarray:
    """The (G, O/G, C/G * K) weight gradient in the compute dtype of ``grad``: per chunk, the
    rebuilt columns (one set per kernel row where the forward gathered by row) times the
    gradient on the output grid, positions first (see the module docstring)."""
    n, o = grad.shape[:2]
    dt = grad.dtype
    if geo.plain:
        c = saved.shape[1]
        xs = saved.reshape(n, groups, c // groups, -1)
        gs = grad.reshape(n, groups, o // groups, -1)
        return mm(gs, np.swapaxes(xs, 2, 3)).sum(0)
    c = saved.shape[0]
    by_rows = geo.by_rows(c // groups)
    m = geo.chunk(n, c, dt.itemsize, len(geo.inner) if by_rows else None)
    grid = np.zeros((o, m * geo.flat), dt)  # the dropped positions stay zero throughout
    grad_t = np.swapaxes(grad, 0, 1)
    if by_rows:
        grid_rows = np.empty((m * geo.flat, o), dt)
        buf = geo.row_buffer(n, c, dt)
        per_row = np.zeros((len(geo.outer), groups, c // groups * len(geo.inner), o // groups),
                           dt)
        for start in range(0, n, m):
            count = min(m, n - start)
            geo.valid(grid, count)[...] = grad_t[:, start:start + count]
            grads = rows_of(grid, count * geo.flat, grid_rows, groups)
            for r, mat in enumerate(geo.gather_rows(saved, start, count, buf)):
                per_row[r] += mm(_grouped(mat, groups), grads)
        # (rows, G, C/G * KW, O/G) -> (G, O/G, C/G * K), offsets in the weight's order
        rows = per_row.shape[0]
        return per_row.reshape(rows, groups, c // groups, len(geo.inner), o // groups).transpose(
            1, 4, 2, 0, 3).reshape(groups, o // groups, -1)
    cols = np.empty((c, len(geo.shifts), m * geo.flat), dt)
    total = np.zeros((groups, c // groups * len(geo.shifts), o // groups), dt)
    for start in range(0, n, m):
        count = min(m, n - start)
        geo.valid(grid, count)[...] = grad_t[:, start:start + count]
        columns = _grouped(geo.gather(saved, start, count, cols), groups)
        # one product per copy of the grid: its transposed operand, not a transposed copy
        total += mm(columns, np.swapaxes(_grouped(grid[:, :count * geo.flat], groups), 1, 2))
    return np.swapaxes(total, 1, 2)


def input_grad_scatter(grad: np.ndarray, weight: np.ndarray, geo: Geometry, groups: int,
                       c: int) -> np.ndarray:
    """The (N, C, *S) input gradient in the compute dtype of ``grad``: the column gradient of
    a chunk as one GEMM, added back by K shifted slab adds, the planes copied out (for strided
    convolutions; stride 1 goes through ``conv._input_grad_by_conv``)."""
    n, o = grad.shape[:2]
    dt = grad.dtype
    wg = weight.astype(dt, copy=False).reshape(groups, o // groups, -1)
    w_t = np.swapaxes(wg, 1, 2)
    if geo.plain:
        dx = mm(w_t, grad.reshape(n, groups, o // groups, -1))
        return dx.reshape((n, c) + geo.spatial)
    kk = len(geo.shifts)
    m = geo.chunk(n, c, dt.itemsize)
    grid = np.zeros((o, m * geo.flat), dt)
    planes = np.empty((c, geo.phases, m * geo.flat + geo.slack), dt)
    dx = np.empty((n, c) + geo.spatial, dt)
    dx_t = np.swapaxes(dx, 0, 1)
    if geo.phases < math.prod(geo.stride):  # input elements no used phase holds get zero
        dx.fill(0)
    grad_t = np.swapaxes(grad, 0, 1)
    for start in range(0, n, m):
        count = min(m, n - start)
        width = count * geo.flat
        geo.valid(grid, count)[...] = grad_t[:, start:start + count]
        dcols = mm(w_t, _grouped(grid[:, :width], groups)).reshape(c, kk, width)
        planes.fill(0)
        for q, (j, shift) in enumerate(geo.shifts):
            planes[:, j, shift:shift + width] += dcols[:, q]
        for j, phase in enumerate(geo.per_phase):
            dst, src = geo.slices(phase)
            view = geo.planes((c,), count, planes[:, j])
            dx_t[(slice(None), slice(start, start + count)) + src] = \
                view[(slice(None), slice(None)) + dst]
    return dx
