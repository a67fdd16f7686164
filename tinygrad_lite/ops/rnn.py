"""One LSTM or GRU layer over a whole sequence as one node (``LstmLayerBackward``,
``GruLayerBackward``).

Recorded step by step, an LSTM layer of T steps is about 20 T nodes, and its backward makes T
small weight-gradient GEMMs for ``weight_hh`` and T bias sums. Here the arrays are feature-major:
each step's gates are one contiguous (4H, B) block, its states (H, B) blocks, so every
elementwise op runs on a whole block (on column slices of (B, 4H) rows NumPy is 3x slower).
The forward is the input projection of all steps (one call, the bias included) and, per step,
one GEMM with the hidden state, the nonlinearities applied in place (gate rows reordered i, f,
o, g so the three sigmoids are one block, their weights negated so no pass negates them).
Backward through time is, per step, one GEMM (the hidden state's gradient) and the step's
elementwise work: one pass of the compiled ``rnn`` kernels (``_kernels/source/rnn.py``) when
they are there, else a few in-place NumPy products with coefficients computed for the whole
sequence at once (the reference; both give the same bits). The weight, bias and input
gradients are then one GEMM (or sum) each over all T * B columns. Saved: the activated gates,
the cell states, tanh of the cell states and the hidden states (7 H floats per column);
backward's coefficients are written into the gate gradient's own buffer. LSTM 64 -> 128,
T = 64, batch 32: traced peak of a step 23 MiB. The forward stays in NumPy: its elementwise
work is mostly exp and tanh, where NumPy's SIMD loops beat numba's scalar libm calls 10-20x.
The forward's steps and backward through time are each a function of plain arrays that returns
fresh ones (``_lstm_forward``, ``_lstm_backward``), run through ``call_as_one_op``: while
``tl.compile`` traces, a layer is two recorded ops instead of about ten per time step, and the
replay calls the same code (the kernels included) on its data.

The GRU layer is built the same way (gates r, z, n; r and z negated; ``b_hn`` added to the
recurrent product inside ``r``'s product, as PyTorch does): saved are the activated gates,
the recurrent n product and the hidden states; backward's (4H, B) blocks per step hold the
gradients of [n, r, z] pre-activations and of the recurrent n product, so the input side's
gradient (rows n, r, z) and the recurrent side's (rows r, z, n) are each one contiguous block.

The arithmetic is the composite's: ``sigmoid = 1 / (1 + exp(-z))``, ``c' = f c + i g``,
``h' = o tanh(c')``; GRU's ``n = tanh(x_n + r (W_hn h + b_hn))``, ``h' = (h - n) z + n``.
Under ``create_graph`` the backward recomputes the forward from the saved inputs with recorded
tensor operations and runs the same backward-through-time formulas on them, so it
differentiates again.
"""

from __future__ import annotations

import functools

import numpy as np

from .. import _kernels
from .._core.graph import Node
from .._core.tensor_base import TensorBase
from .._core.tracing import call_as_one_op
from .common import array_sum, is_array, swap_last_dims, wrap
from .reduce import mm, mm_into
from .shape import cat

__all__ = ["lstm_layer", "gru_layer"]

_KERNEL_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _order(hidden: int) -> np.ndarray:
    """Gate rows i, f, g, o -> i, f, o, g (an involution: the same index undoes it)."""
    i = np.arange(4 * hidden)
    return np.concatenate([i[:2 * hidden], i[3 * hidden:], i[2 * hidden:3 * hidden]])


class LstmLayerBackward(Node):
    """Backward through time of ``lstm_layer`` (see the module)."""

    has_bias: bool
    shapes: tuple  # (T, B, I, H)

    def name(self) -> str:
        """The node's name in graphs and errors."""
        return "LstmLayerBackward"

    def backward(self, grad_out, grad_h, grad_c):
        saved = self.saved_tensors
        if not is_array(saved[0]) or not all(
                g is None or is_array(g) for g in (grad_out, grad_h, grad_c)):
            return self._backward_tensors(saved, grad_out, grad_h, grad_c)
        x, h0, c0, w_ih, w_hh = saved[:5]
        gates, cells, tanh_c, hidden = saved[-4:]  # feature-major, see lstm_layer
        steps, batch, size, h = self.shapes
        dt = gates.dtype
        edges = self.next_edges
        dh = np.zeros((h, batch), dt) if grad_h is None else _feature_major(grad_h, dt)
        dc = np.zeros((h, batch), dt) if grad_c is None else _feature_major(grad_c, dt)
        grad_steps = None if grad_out is None else _feature_major(grad_out, dt)
        order = _order(h)  # its own inverse: also maps the gradients back to PyTorch's rows
        w_back = swap_last_dims(w_hh[order])  # (H, 4H)
        dz, dh, dc = call_as_one_op(functools.partial(_lstm_backward, _fused(dt)), gates,
                                    cells, tanh_c, dh, dc, grad_steps, w_back, bool(edges[1]))
        grad_x = None
        if edges[0]:  # one (I, 4H) @ (4H, B) product per step, in one call
            grad_x = swap_last_dims(mm(swap_last_dims(w_ih[order]), dz)).copy()
        # the weights' and the bias's gradients: one GEMM each over all T * B columns, with
        # the gates' gradients and the states moved feature-first (whole B-long runs)
        columns = np.moveaxis(dz, 0, 1).reshape(4 * h, steps * batch)
        grad_wih = mm(columns, x.reshape(steps * batch, size))[order] if edges[3] else None
        grad_whh = None
        if edges[4]:
            states = np.moveaxis(hidden[:-1], 1, 0).reshape(h, steps * batch)
            grad_whh = mm(columns, swap_last_dims(states))[order]
        results = [grad_x, swap_last_dims(dh).copy() if edges[1] else None,
                   swap_last_dims(dc).copy() if edges[2] else None, grad_wih, grad_whh]
        if self.has_bias:
            grad_bias = array_sum(columns, 1)[order] if edges[5] or edges[6] else None
            results += [grad_bias if edges[5] else None, grad_bias if edges[6] else None]
        return tuple(results)

    def _backward_tensors(self, saved: tuple, grad_out, grad_h, grad_c) -> tuple:
        """The same backward with recorded tensor operations (``create_graph``): the forward
        recomputed from the inputs, then backward through time step by step."""
        x, h0, c0, w_ih, w_hh = saved[:5]
        b_ih, b_hh = saved[5:7] if self.has_bias else (None, None)
        steps, batch, size, h = self.shapes
        proj = mm(x.reshape(steps * batch, size), swap_last_dims(w_ih))
        if b_ih is not None:
            proj = proj + b_ih + b_hh
        proj = proj.reshape(steps, batch, 4 * h)
        hs, cs, acts = [h0], [c0], []
        for t in range(steps):
            z = proj[t] + mm(hs[-1], swap_last_dims(w_hh))
            i, f = z[:, :h].sigmoid(), z[:, h:2 * h].sigmoid()
            g, o = z[:, 2 * h:3 * h].tanh(), z[:, 3 * h:].sigmoid()
            cs.append(f * cs[-1] + i * g)
            tc = cs[-1].tanh()
            hs.append(o * tc)
            acts.append((i, f, g, o, tc))
        dt = x.dtype if is_array(x) else x._data.dtype
        zeros = wrap(np.zeros((batch, h), dt))
        dh = zeros if grad_h is None else _as_tensor(grad_h)
        dc = zeros if grad_c is None else _as_tensor(grad_c)
        dzs: list = [None] * steps
        for t in range(steps - 1, -1, -1):
            i, f, g, o, tc = acts[t]
            if grad_out is not None:
                dh = dh + _as_tensor(grad_out)[t]
            dc = dc + dh * o * (1 - tc * tc)
            dzs[t] = cat([dc * g * i * (1 - i), dc * cs[t] * f * (1 - f),
                          dc * i * (1 - g * g), dh * tc * o * (1 - o)], 1)
            dc = dc * f
            dh = mm(dzs[t], w_hh)
        rows = cat(dzs, 0)  # (T * B, 4H), step-major
        edges = self.next_edges
        results = [mm(rows, w_ih).reshape(steps, batch, size) if edges[0] else None,
                   dh if edges[1] else None, dc if edges[2] else None,
                   mm(swap_last_dims(rows), x.reshape(steps * batch, size))
                   if edges[3] else None,
                   mm(swap_last_dims(rows), cat(hs[:-1], 0)) if edges[4] else None]
        if self.has_bias:
            bias = rows.sum(0) if edges[5] or edges[6] else None
            results += [bias if edges[5] else None, bias if edges[6] else None]
        return tuple(results)


def _fused(dt: np.dtype):
    """The compiled ``rnn`` kernels for arrays of ``dt``, or None (run the NumPy reference)."""
    if dt not in _KERNEL_DTYPES:
        return None
    return _kernels.family("rnn")


def _lstm_backward_steps(gates: np.ndarray, cells: np.ndarray, tanh_c: np.ndarray,
                         dh: np.ndarray, dc: np.ndarray, grad_steps: np.ndarray | None,
                         w_back: np.ndarray, to_h0: bool) -> np.ndarray:
    """The NumPy reference of backward through time: the gates' gradient (T, 4H, B);
    ``dh`` and ``dc`` (updated in place) end as the initial states' gradients."""
    steps, _, batch = gates.shape
    h = dh.shape[0]
    dt = gates.dtype
    # the buffers hold the gates in the order i, f, o, g (see lstm_layer). Coefficients for
    # the whole sequence at once, the activations' derivatives folded in, written where the
    # gates' gradient will be (then scaled in place step by step, no second buffer):
    # dz = [dc * ci, dc * cf, dh * co, dc * cg] and dc += dh * oc
    i, f, o, g = (gates[:, k * h:(k + 1) * h] for k in range(4))
    dz = np.empty_like(gates)
    ci, cf, co, cg = (dz[:, k * h:(k + 1) * h] for k in range(4))
    np.multiply(g, i, out=ci)
    ci *= 1 - i
    np.multiply(cells[:-1], f, out=cf)
    cf *= 1 - f
    np.multiply(tanh_c, o, out=co)
    co *= 1 - o
    np.multiply(g, g, out=cg)
    np.subtract(1, cg, out=cg)
    cg *= i
    oc = np.multiply(tanh_c, tanh_c)
    np.subtract(1, oc, out=oc)
    oc *= o
    tmp = np.empty((h, batch), dt)
    for t in range(steps - 1, -1, -1):
        if grad_steps is not None:
            dh += grad_steps[t]
        np.multiply(dh, oc[t], out=tmp)
        dc += tmp
        d = dz[t]
        pair = d[:2 * h].reshape(2, h, batch)  # i and f: one contiguous block
        pair *= dc
        d[2 * h:3 * h] *= dh
        d[3 * h:] *= dc
        dc *= f[t]
        if t or to_h0:
            mm_into(w_back, d, dh)
    return dz


def _lstm_backward(kernels, gates: np.ndarray, cells: np.ndarray, tanh_c: np.ndarray,
                   dh0: np.ndarray, dc0: np.ndarray, grad_steps: np.ndarray | None,
                   w_back: np.ndarray, to_h0: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LSTM backward through time on plain arrays, its inputs left as they are: (the gates'
    gradient (T, 4H, B), the initial states' gradients dh, dc (H, B)), from the last states'
    gradients ``dh0``, ``dc0``. Per step one pass of the ``rnn`` kernels when ``kernels`` is
    given, else the NumPy reference, and one GEMM."""
    dh, dc = dh0.copy(), dc0.copy()
    if kernels is None:
        dz = _lstm_backward_steps(gates, cells, tanh_c, dh, dc, grad_steps, w_back, to_h0)
        return dz, dh, dc
    dz = np.empty_like(gates)
    batch = gates.shape[2]
    no_out, one = np.empty((0, batch), gates.dtype), gates.dtype.type(1)
    for t in range(gates.shape[0] - 1, -1, -1):
        kernels.lstm_backward_step(gates[t], cells[t], tanh_c[t], dh, dc,
                                   no_out if grad_steps is None else grad_steps[t], dz[t], one)
        if t or to_h0:
            mm_into(w_back, dz[t], dh)
    return dz, dh, dc


def _gru_backward(kernels, gates: np.ndarray, hn: np.ndarray, hidden: np.ndarray,
                  dh_direct0: np.ndarray, grad_steps: np.ndarray | None, w_back: np.ndarray,
                  to_h0: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GRU backward through time on plain arrays, its inputs left as they are: (the blocks'
    gradients d (T, 4H, B), and the two parts of h0's gradient, ``dh_direct`` and ``d_rec``),
    with the ``rnn`` kernels when given, else the NumPy reference."""
    steps, _, batch = gates.shape
    h = dh_direct0.shape[0]
    dt = gates.dtype
    dh_direct, d_rec = dh_direct0.copy(), np.zeros((h, batch), dt)
    d = np.empty((steps, 4 * h, batch), dt)
    if kernels is None:
        _gru_backward_steps(gates, hn, hidden, dh_direct, d_rec, grad_steps, w_back, d, to_h0)
        return d, dh_direct, d_rec
    no_out, one = np.empty((0, batch), dt), dt.type(1)
    for t in range(steps - 1, -1, -1):
        kernels.gru_backward_step(gates[t], hn[t], hidden[t], dh_direct, d_rec,
                                  no_out if grad_steps is None else grad_steps[t], d[t], one)
        if t or to_h0:
            mm_into(w_back, d[t, h:], d_rec)
    return d, dh_direct, d_rec


def _as_tensor(v):
    return wrap(v) if is_array(v) else v


def _feature_major(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """A (..., B, F) array as a fresh C-contiguous (..., F, B) one of ``dtype``."""
    out = np.empty(a.shape[:-2] + (a.shape[-1], a.shape[-2]), dtype)
    out[...] = swap_last_dims(a)
    return out


def _forward_steps(gates: np.ndarray, recurrent: np.ndarray, w_step: np.ndarray,
                   cells: np.ndarray, tanh_c: np.ndarray, hidden: np.ndarray) -> None:
    """The NumPy reference of the forward steps: gates activated in place, states filled."""
    steps = gates.shape[0]
    h = cells.shape[1]
    with np.errstate(over="ignore"):  # exp(-z) overflows to inf for very negative z: sigmoid 0
        for t in range(steps):
            z = gates[t]
            mm_into(w_step, hidden[t], recurrent)
            z += recurrent
            sig = z[:3 * h]
            np.exp(sig, out=sig)
            sig += 1
            np.reciprocal(sig, out=sig)
            np.tanh(z[3 * h:], out=z[3 * h:])
            np.multiply(z[h:2 * h], cells[t], out=cells[t + 1])
            np.multiply(z[:h], z[3 * h:], out=recurrent[:h])
            cells[t + 1] += recurrent[:h]
            np.tanh(cells[t + 1], out=tanh_c[t])
            np.multiply(z[2 * h:3 * h], tanh_c[t], out=hidden[t + 1])


def _lstm_forward(w_in: np.ndarray, columns: np.ndarray, w_step: np.ndarray, c0: np.ndarray,
                  h0: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """An LSTM layer's forward on plain arrays: the input projections of all steps, then the
    steps; (activated gates (T, 4H, B), cells (T + 1, H, B), tanh of the cells (T, H, B),
    hidden states (T + 1, H, B)), all fresh. While tl.compile traces, this is one op (as a
    kernel would be): a replay calls it again instead of about ten recorded calls per step."""
    steps, _, batch = columns.shape
    h = w_step.shape[1]
    dt = columns.dtype
    # feature-major: each step's gates are one contiguous (4H, B) block, so the elementwise
    # work runs on whole blocks (3x faster than on column slices of (B, 4H) rows)
    gates = np.empty((steps, 4 * h, batch), dt)
    mm_into(w_in, columns, gates)  # all input projections
    cells = np.empty((steps + 1, h, batch), dt)
    hidden = np.empty((steps + 1, h, batch), dt)
    tanh_c = np.empty((steps, h, batch), dt)
    cells[0], hidden[0] = swap_last_dims(c0), swap_last_dims(h0)
    recurrent = np.empty((4 * h, batch), dt)
    _forward_steps(gates, recurrent, w_step, cells, tanh_c, hidden)
    return gates, cells, tanh_c, hidden


def lstm_layer(x: TensorBase, h0: TensorBase, c0: TensorBase, w_ih: TensorBase,
               w_hh: TensorBase, b_ih: TensorBase | None, b_hh: TensorBase | None,
               record: bool) -> tuple[TensorBase, TensorBase, TensorBase]:
    """One LSTM layer over (T, B, I) ``x`` from the (B, H) states: (outputs (T, B, H), h_T,
    c_T), PyTorch's gate order and formulas; ``record`` makes it one autograd node."""
    data = x._data
    steps, batch, size = data.shape
    h = w_hh._data.shape[1]
    dt = data.dtype
    order = _order(h)
    # the i, f, o rows with their signs flipped, so that the GEMMs give -z there and the
    # sigmoid is 1 / (1 + exp(-z)) without a negation pass per step (negation is exact: the
    # same values as negating afterwards). The bias rides in the input projection's GEMM as
    # one more column against a row of ones, instead of a broadcast add over all T * B columns.
    signs = np.ones((4 * h, 1), dt)
    signs[:3 * h] = -1
    w_in = w_ih._data[order] * signs
    columns = _feature_major(data, dt)
    if b_ih is not None and b_hh is not None:
        w_in = np.concatenate([w_in, (b_ih._data + b_hh._data)[order][:, None] * signs], 1)
        columns = np.concatenate([columns, np.ones((steps, 1, batch), dt)], 1)
    w_step = w_hh._data[order] * signs  # (4H, H)
    gates, cells, tanh_c, hidden = call_as_one_op(_lstm_forward, w_in, columns, w_step,
                                                  c0._data, h0._data)
    out = swap_last_dims(hidden[1:]).copy()  # the caller's (T, B, H); the node keeps its own
    h_last, c_last = hidden[steps].T.copy(), cells[steps].T.copy()
    inputs = [x, h0, c0, w_ih, w_hh]
    if b_ih is not None and b_hh is not None:
        inputs += [b_ih, b_hh]
    if not record:
        return wrap(out), wrap(h_last), wrap(c_last)
    node = LstmLayerBackward(*inputs)
    node.n_outputs, node._direct = 3, False
    node.has_bias, node.shapes = len(inputs) == 7, (steps, batch, size, h)
    node.save_for_backward(*inputs, wrap(gates), wrap(cells), wrap(tanh_c), wrap(hidden))
    results = wrap(out, node), wrap(h_last, node), wrap(c_last, node)
    results[1]._output_nr, results[2]._output_nr = 1, 2
    return results


def _gru_input_rows(hidden: int) -> np.ndarray:
    """PyTorch's gate rows r, z, n taken from rows n, r, z: GRU backward's (4H, B) blocks are
    [dn, dr, dz, dhn], so that the input side's gradient is rows 0:3H (n, r, z) and the
    recurrent side's rows H:4H (r, z, n), each one contiguous block."""
    i = np.arange(3 * hidden)
    return np.concatenate([i[hidden:], i[:hidden]])


class GruLayerBackward(Node):
    """Backward through time of ``gru_layer``: per step one fused elementwise pass (or its NumPy
    reference) and one GEMM with the recurrent weights; then the weights', biases' and input's
    gradients as one GEMM (or sum) each over all T * B columns."""

    has_bias: bool
    shapes: tuple  # (T, B, I, H)

    def name(self) -> str:
        """The node's name in graphs and errors."""
        return "GruLayerBackward"

    def backward(self, grad_out, grad_h):
        saved = self.saved_tensors
        if not is_array(saved[0]) or not all(
                g is None or is_array(g) for g in (grad_out, grad_h)):
            return self._backward_tensors(saved, grad_out, grad_h)
        x, h0, w_ih, w_hh = saved[:4]
        gates, hn, hidden = saved[-3:]  # feature-major, see gru_layer
        steps, batch, size, h = self.shapes
        dt = gates.dtype
        edges = self.next_edges
        dh_direct = np.zeros((h, batch), dt) if grad_h is None else _feature_major(grad_h, dt)
        grad_steps = None if grad_out is None else _feature_major(grad_out, dt)
        w_back = swap_last_dims(w_hh)  # (H, 3H): rows r, z, n as the blocks' H:4H
        d, dh_direct, d_rec = call_as_one_op(functools.partial(_gru_backward, _fused(dt)),
                                             gates, hn, hidden, dh_direct, grad_steps, w_back,
                                             bool(edges[1]))
        to_input = _gru_input_rows(h)
        grad_x = None
        if edges[0]:  # (I, 3H) @ (3H, B) per step, in one call; the weight's rows as d's n, r, z
            rows = np.roll(np.arange(3 * h), h)
            grad_x = swap_last_dims(mm(swap_last_dims(w_ih[rows]), d[:, :3 * h])).copy()
        columns = np.moveaxis(d, 0, 1).reshape(4 * h, steps * batch)
        grad_wih = grad_whh = None
        if edges[2]:
            grad_wih = mm(columns[:3 * h], x.reshape(steps * batch, size))[to_input]
        if edges[3]:
            states = np.moveaxis(hidden[:-1], 1, 0).reshape(h, steps * batch)
            grad_whh = mm(columns[h:], swap_last_dims(states))
        grad_h0 = None
        if edges[1]:
            grad_h0 = swap_last_dims(dh_direct + d_rec).copy()
        results = [grad_x, grad_h0, grad_wih, grad_whh]
        if self.has_bias:
            results += [array_sum(columns[:3 * h], 1)[to_input] if edges[4] else None,
                        array_sum(columns[h:], 1) if edges[5] else None]
        return tuple(results)

    def _backward_tensors(self, saved: tuple, grad_out, grad_h) -> tuple:
        """The same backward with recorded tensor operations (``create_graph``): the forward
        recomputed from the inputs, then backward through time step by step."""
        x, h0, w_ih, w_hh = saved[:4]
        b_ih, b_hh = saved[4:6] if self.has_bias else (None, None)
        steps, batch, size, h = self.shapes
        proj = mm(x.reshape(steps * batch, size), swap_last_dims(w_ih))
        if b_ih is not None:
            proj = proj + b_ih
        proj = proj.reshape(steps, batch, 3 * h)
        hs, acts = [h0], []
        for t in range(steps):
            rec = mm(hs[-1], swap_last_dims(w_hh))
            if b_hh is not None:
                rec = rec + b_hh
            r = (proj[t][:, :h] + rec[:, :h]).sigmoid()
            z = (proj[t][:, h:2 * h] + rec[:, h:2 * h]).sigmoid()
            hn = rec[:, 2 * h:]
            n = (proj[t][:, 2 * h:] + r * hn).tanh()
            hs.append((hs[-1] - n) * z + n)
            acts.append((r, z, n, hn))
        dt = x.dtype if is_array(x) else x._data.dtype
        dh = wrap(np.zeros((batch, h), dt)) if grad_h is None else _as_tensor(grad_h)
        gx: list = [None] * steps
        gh: list = [None] * steps
        for t in range(steps - 1, -1, -1):
            r, z, n, hn = acts[t]
            if grad_out is not None:
                dh = dh + _as_tensor(grad_out)[t]
            d_an = dh * (1 - z) * (1 - n * n)
            d_ar = d_an * hn * r * (1 - r)
            d_az = dh * (hs[t] - n) * z * (1 - z)
            gx[t] = cat([d_ar, d_az, d_an], 1)
            gh[t] = cat([d_ar, d_az, d_an * r], 1)
            dh = dh * z + mm(gh[t], w_hh)
        rows_x, rows_h = cat(gx, 0), cat(gh, 0)  # (T * B, 3H), step-major
        edges = self.next_edges
        results = [mm(rows_x, w_ih).reshape(steps, batch, size) if edges[0] else None,
                   dh if edges[1] else None,
                   mm(swap_last_dims(rows_x), x.reshape(steps * batch, size))
                   if edges[2] else None,
                   mm(swap_last_dims(rows_h), cat(hs[:-1], 0)) if edges[3] else None]
        if self.has_bias:
            results += [rows_x.sum(0) if edges[4] else None,
                        rows_h.sum(0) if edges[5] else None]
        return tuple(results)


def _gru_backward_steps(gates: np.ndarray, hn: np.ndarray, hidden: np.ndarray,
                        dh_direct: np.ndarray, d_rec: np.ndarray,
                        grad_steps: np.ndarray | None, w_back: np.ndarray, d: np.ndarray,
                        to_h0: bool) -> None:
    """The NumPy reference of GRU backward through time (the kernel's arithmetic, whole blocks
    at a time): fills ``d`` (T, 4H, B); ``dh_direct + d_rec`` ends as h0's gradient."""
    steps = gates.shape[0]
    h, batch = dh_direct.shape
    dh = np.empty((h, batch), gates.dtype)
    tmp = np.empty((h, batch), gates.dtype)
    for t in range(steps - 1, -1, -1):
        r, z, n = gates[t, :h], gates[t, h:2 * h], gates[t, 2 * h:]
        d_an, d_ar, d_az, d_hn = (d[t, k * h:(k + 1) * h] for k in range(4))
        np.add(dh_direct, d_rec, out=dh)
        if grad_steps is not None:
            dh += grad_steps[t]
        np.subtract(1, z, out=d_an)
        d_an *= dh
        np.multiply(n, n, out=tmp)
        np.subtract(1, tmp, out=tmp)
        d_an *= tmp
        np.multiply(d_an, hn[t], out=d_ar)
        np.subtract(1, r, out=tmp)
        tmp *= r
        d_ar *= tmp
        np.subtract(hidden[t], n, out=d_az)
        d_az *= dh
        np.subtract(1, z, out=tmp)
        tmp *= z
        d_az *= tmp
        np.multiply(d_an, r, out=d_hn)
        np.multiply(dh, z, out=dh_direct)
        if t or to_h0:
            mm_into(w_back, d[t, h:], d_rec)


def gru_layer(x: TensorBase, h0: TensorBase, w_ih: TensorBase, w_hh: TensorBase,
              b_ih: TensorBase | None, b_hh: TensorBase | None,
              record: bool) -> tuple[TensorBase, TensorBase]:
    """One GRU layer over (T, B, I) ``x`` from the (B, H) state: (outputs (T, B, H), h_T), with
    PyTorch's gate order and formulas (``n = tanh(W_in x + b_in + r (W_hn h + b_hn))``,
    ``h' = (h - n) z + n``); ``record`` makes it one autograd node."""
    data = x._data
    steps, batch, size = data.shape
    h = w_hh._data.shape[1]
    dt = data.dtype
    # feature-major as lstm_layer; r and z rows negated so the sigmoid needs no negation pass
    signs = np.ones((3 * h, 1), dt)
    signs[:2 * h] = -1
    w_in = w_ih._data * signs
    columns = _feature_major(data, dt)
    b_n = None
    if b_ih is not None and b_hh is not None:
        bias = b_ih._data.copy()
        bias[:2 * h] += b_hh._data[:2 * h]  # b_hn stays inside r's product
        w_in = np.concatenate([w_in, bias[:, None] * signs], 1)
        columns = np.concatenate([columns, np.ones((steps, 1, batch), dt)], 1)
        b_n = b_hh._data[2 * h:, None].astype(dt)
    w_step = w_hh._data * signs
    gates, hn, hidden = call_as_one_op(_gru_forward, w_in, columns, w_step, h0._data, b_n)
    out = swap_last_dims(hidden[1:]).copy()
    h_last = hidden[steps].T.copy()
    inputs = [x, h0, w_ih, w_hh]
    if b_ih is not None and b_hh is not None:
        inputs += [b_ih, b_hh]
    if not record:
        return wrap(out), wrap(h_last)
    node = GruLayerBackward(*inputs)
    node.n_outputs, node._direct = 2, False
    node.has_bias, node.shapes = len(inputs) == 6, (steps, batch, size, h)
    node.save_for_backward(*inputs, wrap(gates), wrap(hn), wrap(hidden))
    results = wrap(out, node), wrap(h_last, node)
    results[1]._output_nr = 1
    return results


def _gru_forward(w_in: np.ndarray, columns: np.ndarray, w_step: np.ndarray, h0: np.ndarray,
                 b_n: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A GRU layer's forward on plain arrays (one op while tl.compile traces, as
    ``_lstm_forward``): (activated gates (T, 3H, B), the recurrent n products (T, H, B), hidden
    states (T + 1, H, B)), all fresh."""
    steps, _, batch = columns.shape
    h = w_step.shape[1]
    dt = columns.dtype
    gates = np.empty((steps, 3 * h, batch), dt)
    mm_into(w_in, columns, gates)
    hidden = np.empty((steps + 1, h, batch), dt)
    hn = np.empty((steps, h, batch), dt)
    hidden[0] = swap_last_dims(h0)
    recurrent = np.empty((3 * h, batch), dt)
    with np.errstate(over="ignore"):  # exp(-z) overflows to inf for very negative z: sigmoid 0
        for t in range(steps):
            z = gates[t]
            mm_into(w_step, hidden[t], recurrent)
            rz = z[:2 * h]
            rz += recurrent[:2 * h]
            np.exp(rz, out=rz)
            rz += 1
            np.reciprocal(rz, out=rz)
            if b_n is None:
                hn[t] = recurrent[2 * h:]
            else:
                np.add(recurrent[2 * h:], b_n, out=hn[t])
            n = z[2 * h:]
            np.multiply(z[:h], hn[t], out=recurrent[:h])
            n += recurrent[:h]
            np.tanh(n, out=n)
            np.subtract(hidden[t], n, out=hidden[t + 1])
            hidden[t + 1] *= z[h:2 * h]
            hidden[t + 1] += n
    return gates, hn, hidden
