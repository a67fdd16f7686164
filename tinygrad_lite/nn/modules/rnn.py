"""PyTorch's ``torch.nn.modules.rnn``: RNN, LSTM, GRU and their single-step cells.

Parameter names, shapes, gate order and initialisation are PyTorch's (``weight_ih_l0``,
``weight_hh_l1_reverse``, LSTM gates i, f, g, o; GRU gates r, z, n), so a PyTorch state dict
loads and gives the same outputs. Per layer and direction the input projection of the whole
sequence is one matrix product; each time step adds one product with the hidden state. LSTM
(without projections) and GRU layers run as one autograd node each (``ops/rnn.py``). Packed
sequences are unpacked, run with a per-step mask that freezes finished sequences (and runs the
reverse direction over each sequence's own length), and packed again.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from ... import dtypes
from ... import functions as _fn
from ..._core.autocast_state import autocast_state
from ..._core.grad_mode import grad_state
from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn
from ...functions.creation import default_rng
from ...ops.rnn import gru_layer, lstm_layer
from .. import functional as F  # noqa: N812 - PyTorch's conventional alias
from .. import init
from .._packed_sequence import PackedSequence, pack_padded_sequence, pad_packed_sequence
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}
_NAMES = {"RNN_TANH": "RNN", "RNN_RELU": "RNN", "LSTM": "LSTM", "GRU": "GRU"}
_FUSED_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def _half_precision(dt: np.dtype) -> bool:
    """float16 or bfloat16 (whose NumPy dtype comes from ml_dtypes, loaded only when used)."""
    return dt.itemsize == 2 and (dt == np.float16 or dt is dtypes.bfloat16.np)


def _uniform(shape: tuple, bound: float, dtype: Any) -> Parameter:
    return Parameter(default_rng().uniform_as(-bound, bound, shape, dtype))


def _reset_uniform(module: Module) -> None:
    """PyTorch's ``reset_parameters`` of recurrent layers and cells: each parameter, in order,
    from U(-stdv, stdv) with ``stdv = 1/sqrt(hidden_size)`` (0 for an empty hidden state)."""
    hidden_size = module.hidden_size
    stdv = 1.0 / math.sqrt(hidden_size) if hidden_size > 0 else 0.0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


def _check_sizes(dropout: Any, num_layers: int, bias: Any, batch_first: Any, input_size: Any,
                 hidden_size: Any, proj_size: int) -> None:
    """PyTorch's constructor checks of RNNBase, in its order, with its texts (and its warning
    for a dropout that one layer never applies)."""
    if not isinstance(dropout, numbers.Number) or isinstance(dropout, bool) or \
            not 0 <= dropout <= 1:  # type: ignore[operator]
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:  # type: ignore[operator]
        warn("dropout option adds dropout after all but last recurrent layer, so non-zero "
             f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
             f"num_layers={num_layers}")
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int), ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


def _cell_step(mode: str, x_proj: TensorBase, h: TensorBase, c: TensorBase | None,
               w_hh: TensorBase, b_hh: TensorBase | None, w_hr: TensorBase | None) -> tuple:
    """One time step: ``x_proj`` is the input's projection (with its bias) for this step."""
    h_proj = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (x_proj + h_proj).chunk(4, -1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        if w_hr is not None:
            h = F.linear(h, w_hr)
        return h, c
    if mode == "GRU":
        xr, xz, xn = x_proj.chunk(3, -1)
        hr, hz, hn = h_proj.chunk(3, -1)
        r, z = (xr + hr).sigmoid(), (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        return (1 - z) * n + z * h, None
    pre = x_proj + h_proj
    return (pre.tanh() if mode == "RNN_TANH" else pre.relu()), None


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU (see the module docstring)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _check_sizes(dropout, num_layers, bias, batch_first, input_size, hidden_size, proj_size)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        dt = dtypes.default_float_np(dtype)
        gates = _GATES[mode] * hidden_size
        out_size = proj_size or hidden_size
        directions = 2 if bidirectional else 1
        bound = 1.0 / math.sqrt(hidden_size)
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else out_size * directions
            for direction in range(directions):
                suffix = f"_l{layer}" + ("_reverse" if direction else "")
                shapes: list[tuple[str, tuple[int, ...]]] = [
                    ("weight_ih", (gates, layer_in)), ("weight_hh", (gates, out_size))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + suffix, _uniform(shape, bound, dt))
                    self._flat_weights_names.append(name + suffix)

    def flatten_parameters(self) -> None:
        """A no-op (PyTorch compacts weights for cuDNN)."""

    def reset_parameters(self) -> None:
        """Every weight and bias redrawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)),
        in ``parameters()`` order (the draws PyTorch makes)."""
        _reset_uniform(self)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped per layer and direction, in PyTorch's order."""
        per = 2 + 2 * self.bias + bool(self.proj_size)
        flat = [getattr(self, n) for n in self._flat_weights_names]
        return [flat[i:i + per] for i in range(0, len(flat), per)]

    def extra_repr(self) -> str:
        """The constructor arguments that differ from the defaults."""
        parts = [f"{self.input_size}, {self.hidden_size}"]
        if self.proj_size:
            parts.append(f"proj_size={self.proj_size}")
        if self.num_layers != 1:
            parts.append(f"num_layers={self.num_layers}")
        if not self.bias:
            parts.append("bias=False")
        if self.batch_first:
            parts.append("batch_first=True")
        if self.dropout:
            parts.append(f"dropout={self.dropout}")
        if self.bidirectional:
            parts.append("bidirectional=True")
        return ", ".join(parts)

    def _weights(self, layer: int, direction: int) -> tuple:
        suffix = f"_l{layer}" + ("_reverse" if direction else "")
        get = lambda name: getattr(self, name + suffix, None)  # noqa: E731
        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), \
            get("weight_hr")

    def forward(self, input: Any, hx: Any = None) -> tuple:
        """``(output, h_n)`` (LSTM: ``(output, (h_n, c_n))``) for ``input`` of shape
        (T, B, input_size), (B, T, input_size) with ``batch_first``, (T, input_size)
        unbatched, or a PackedSequence."""
        packed = isinstance(input, PackedSequence)
        lengths: np.ndarray | None = None
        batch_sizes = None
        if packed:
            x, length_tensor = pad_packed_sequence(input)
            lengths = length_tensor.numpy()
            sorted_info = (input.sorted_indices, input.unsorted_indices)
            checked, batch_sizes = input.data, input.batch_sizes
        else:
            if input.ndim not in (2, 3):
                raise ValueError(f"{_NAMES[self.mode]}: Expected input to be 2D or 3D, got "
                                 f"{input.ndim}D{' tensor' if self.mode.startswith('RNN') else ''} "
                                 "instead")
            # the input as PyTorch checks it: batched, in the caller's layout
            checked = input.unsqueeze(int(not self.batch_first)) if input.ndim == 2 else input
            x = checked.transpose(0, 1) if self.batch_first else checked
        unbatched = not packed and input.ndim == 2
        hx = self._initial_state(hx, unbatched, x)
        self.check_forward_args(checked, hx, batch_sizes)
        h0, c0 = hx if self.mode == "LSTM" else (hx, None)
        for state in (h0, c0):
            if state is not None and state.dtype != x.dtype and autocast_state.dtype is None:
                raise RuntimeError(f"{_NAMES[self.mode]}: expected hx of the input's dtype "
                                   f"{x.dtype}, got {state.dtype}")
        steps = x.shape[0]
        if not steps:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        mask = None
        if lengths is not None:
            mask = _fn.tensor((np.arange(steps)[:, None] < lengths[None, :]).astype(
                x._data.dtype))[..., None]
        directions = 2 if self.bidirectional else 1
        h_n, c_n = [], []
        layer_input = x
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, h, c = self._run(layer_input, layer, direction, h0[k],
                                      None if c0 is None else c0[k], mask, lengths)
                outputs.append(out)
                h_n.append(h)
                c_n.append(c)
            layer_input = outputs[0] if directions == 1 else _fn.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        output = layer_input
        h_final = _fn.stack(h_n, 0)
        c_final = _fn.stack(c_n, 0) if self.mode == "LSTM" else None
        if packed:  # computed in the caller's order: pack as the input was packed
            output = pack_padded_sequence(output, lengths, enforce_sorted=sorted_info[0] is None)
        elif unbatched:
            output = output.squeeze(1)
            h_final = h_final.squeeze(1)
            c_final = None if c_final is None else c_final.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        if self.mode == "LSTM":
            return output, (h_final, c_final)
        return output, h_final

    def _initial_state(self, hx: Any, unbatched: bool, x: TensorBase) -> Any:
        """``hx`` (LSTM: ``(h_0, c_0)``) with the batch dim of unbatched input, or zeros."""
        if hx is None:
            directions = 2 if self.bidirectional else 1
            h0 = _fn.zeros(self.num_layers * directions, x.shape[1],
                           self.proj_size or self.hidden_size, dtype=x.dtype)
            if self.mode != "LSTM":
                return h0
            return h0, _fn.zeros(self.num_layers * directions, x.shape[1], self.hidden_size,
                                 dtype=x.dtype)
        states = tuple(hx) if self.mode == "LSTM" else (hx,)
        want = 2 if unbatched else 3
        if any(state.ndim != want for state in states):
            kind = "unbatched 2-D" if unbatched else "batched 3-D"
            got = f"{hx.ndim}-D tensor" if self.mode != "LSTM" else \
                f"({states[0].ndim}-D, {states[1].ndim}-D) tensors"
            raise RuntimeError(f"For {kind} input, hx{' and cx' if self.mode == 'LSTM' else ''} "
                               f"should also be {want}-D but got {got}")
        if unbatched:
            states = tuple(state.unsqueeze(1) for state in states)
        return states if self.mode == "LSTM" else states[0]

    # PyTorch's checks, public on its RNNBase (subclasses override or call them)

    def check_input(self, input: TensorBase, batch_sizes: TensorBase | None) -> None:
        """The input's dtype (the weights'), its number of dims and its feature size."""
        w_dtype = self.weight_ih_l0.dtype
        if input.dtype != w_dtype and autocast_state.dtype is None:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({w_dtype}). Convert input: input.to({w_dtype}), or convert "
                             f"model: model.to({input.dtype})")
        expected_dim = 2 if batch_sizes is not None else 3
        if input.ndim != expected_dim:
            raise RuntimeError(f"input must have {expected_dim} dimensions, got {input.ndim}")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def get_expected_hidden_size(self, input: TensorBase,
                                 batch_sizes: TensorBase | None) -> tuple[int, int, int]:
        """(layers * directions, batch, proj_size or hidden_size)."""
        if batch_sizes is not None:
            batch = int(batch_sizes[0])
        else:
            batch = input.shape[0] if self.batch_first else input.shape[1]
        directions = 2 if self.bidirectional else 1
        return self.num_layers * directions, batch, self.proj_size or self.hidden_size

    def check_hidden_size(self, hx: TensorBase, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """RuntimeError ``msg`` unless ``hx`` has the expected shape."""
        if tuple(hx.shape) != tuple(expected_hidden_size):
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.shape)))

    def check_forward_args(self, input: TensorBase, hidden: Any,
                           batch_sizes: TensorBase | None) -> None:
        """The input's and the hidden state's checks."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Any, permutation: TensorBase | None) -> Any:
        """``hx`` with its batch dim reordered by ``permutation`` (None: as it is)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    @property
    def _flat_weights(self) -> list[Parameter]:
        """The parameters in PyTorch's flat order (``_flat_weights_names``)."""
        return [getattr(self, name) for name in self._flat_weights_names]

    def _run(self, x: TensorBase, layer: int, direction: int, h: TensorBase,
             c: TensorBase | None, mask: TensorBase | None,
             lengths: np.ndarray | None) -> tuple:
        """One layer in one direction over the whole sequence: (outputs, h_last, c_last)."""
        w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, direction)
        steps = x.shape[0]
        if direction and lengths is not None:  # reverse each sequence within its own length
            x = _reverse_within(x, lengths)
        elif direction:
            x = x.flip(0)
        dt = x._data.dtype
        half = _half_precision(dt)
        if (self.mode == "GRU" or (self.mode == "LSTM" and c is not None)) and w_hr is None \
                and mask is None and (dt in _FUSED_DTYPES or half) and \
                w_ih._data.dtype == dt and steps > 0:
            # one node for the whole layer (ops/rnn.py): backward through time in NumPy or the
            # compiled kernels; biases come in pairs (both or neither)
            inputs = (x, h, c, w_ih, w_hh, b_ih, b_hh)
            record = grad_state.enabled and any(
                t is not None and t._requires_grad for t in inputs)
            if half:  # computed in float32 and rounded once, as PyTorch's CPU kernels do: the
                # weights' gradients sum T * B terms, which 16-bit steps would spoil
                x, h, w_ih, w_hh = (t.float() for t in (x, h, w_ih, w_hh))
                c = None if c is None else c.float()
                b_ih, b_hh = (None if b is None else b.float() for b in (b_ih, b_hh))
            if c is None:
                out, h = gru_layer(x, h, w_ih, w_hh, b_ih, b_hh, record)
            else:
                out, h, c = lstm_layer(x, h, c, w_ih, w_hh, b_ih, b_hh, record)
            if half:
                out, h = out.to(dt), h.to(dt)
                c = None if c is None else c.to(dt)
            return (out.flip(0) if direction else out), h, c
        # the whole sequence's input projection at once, cut into steps by one split node
        proj = F.linear(x, w_ih, b_ih).unbind(0)
        masks = mask.unbind(0) if mask is not None else None
        outs = []
        for t in range(steps):
            new_h, new_c = _cell_step(self.mode, proj[t], h, c, w_hh, b_hh, w_hr)
            if masks is not None:  # finished sequences keep their state; their output is 0
                m = masks[t]
                h = m * new_h + (1 - m) * h
                c = None if c is None else m * new_c + (1 - m) * c
                outs.append(m * new_h)
            else:
                h, c = new_h, new_c
                outs.append(h)
        out = _fn.stack(outs, 0)
        if direction and lengths is not None:
            out = _reverse_within(out, lengths)
        elif direction:
            out = out.flip(0)
        return out, h, c


def _reverse_within(x: TensorBase, lengths: np.ndarray) -> TensorBase:
    """``x`` (T, B, ...) with each sequence's first ``lengths[b]`` steps reversed (padding
    stays where it is)."""
    steps = x.shape[0]
    t = np.arange(steps)[:, None]
    index = np.where(t < lengths[None, :], lengths[None, :] - 1 - t, t)
    cols = np.broadcast_to(np.arange(x.shape[1])[None, :], index.shape)
    return x[_fn.tensor(index), _fn.tensor(cols)]


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` (or ReLU)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False, device: Any = None,
                 dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, num_layers, bias, batch_first, dropout, bidirectional,
                         device=device, dtype=dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory, with optional projections of the hidden state (``proj_size``)."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)

    def get_expected_cell_size(self, input: TensorBase,
                               batch_sizes: TensorBase | None) -> tuple[int, int, int]:
        """(layers * directions, batch, hidden_size): the cell state's shape."""
        layers, batch, _ = self.get_expected_hidden_size(input, batch_sizes)
        return layers, batch, self.hidden_size

    def check_forward_args(self, input: TensorBase, hidden: Any,
                           batch_sizes: TensorBase | None) -> None:
        """The input's checks and those of both states."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: Any, permutation: TensorBase | None) -> Any:
        """Both states with their batch dim reordered by ``permutation``."""
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)


class GRU(RNNBase):
    """Gated recurrent unit."""

    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, device=device, dtype=dtype)


class RNNCellBase(Module):
    """One step of a recurrent layer, with PyTorch's parameter names (no layer suffix)."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.mode, self.input_size, self.hidden_size, self.bias = mode, input_size, \
            hidden_size, bias
        dt = dtypes.default_float_np(dtype)
        gates = _GATES[mode] * hidden_size
        if gates < 0 or input_size < 0:  # (PyTorch allows empty cells: hidden_size 0)
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(gates, input_size)}: [{gates}, {input_size}]")
        bound = 1.0 / math.sqrt(hidden_size) if hidden_size else 0.0
        self.weight_ih = _uniform((gates, input_size), bound, dt)
        self.weight_hh = _uniform((gates, hidden_size), bound, dt)
        if bias:
            self.bias_ih = _uniform((gates,), bound, dt)
            self.bias_hh = _uniform((gates,), bound, dt)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)

    def reset_parameters(self) -> None:
        """Every weight and bias redrawn from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _reset_uniform(self)

    def extra_repr(self) -> str:
        """Sizes (and bias=False, and an RNNCell's nonlinearity when it is not tanh)."""
        s = f"{self.input_size}, {self.hidden_size}" + ("" if self.bias else ", bias=False")
        nonlinearity = self.__dict__.get("nonlinearity", "tanh")
        return s if nonlinearity == "tanh" else s + f", nonlinearity={nonlinearity}"

    def _step(self, input: TensorBase, hx: Any) -> tuple:
        name = type(self).__name__
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        states = None if hx is None else tuple(hx) if self.mode == "LSTM" else (hx,)
        for i, state in enumerate(states or ()):
            if state.ndim not in (1, 2):
                what = f"hx[{i}]" if self.mode == "LSTM" else "hidden"
                raise ValueError(f"{name}: Expected {what} to be 1D or 2D, got {state.ndim}D "
                                 "instead")
        unbatched = input.ndim == 1
        x = input.unsqueeze(0) if unbatched else input
        batch = x.shape[0]
        if x.shape[1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {x.shape[1]} expected "
                               f"{self.input_size}")
        if states is None:
            h = _fn.zeros(batch, self.hidden_size, dtype=x.dtype)
            c = h if self.mode == "LSTM" else None
        else:
            if unbatched:
                states = tuple(state.unsqueeze(0) for state in states)
            for i, state in enumerate(states):
                if state.shape[0] != batch:
                    raise RuntimeError(f"Input batch size {batch} doesn't match hidden{i} batch "
                                       f"size {state.shape[0]}")
                if tuple(state.shape[1:]) != (self.hidden_size,):
                    raise RuntimeError(f"hidden{i} has inconsistent hidden_size: got "
                                       f"{state.shape[1]}, expected {self.hidden_size}")
            h, c = states if self.mode == "LSTM" else (states[0], None)
        proj = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _cell_step(self.mode, proj, h, c, self.weight_hh, self.bias_hh, None)
        if unbatched:
            h = h.squeeze(0)
            c = None if c is None else c.squeeze(0)
        return h, c


class RNNCell(RNNCellBase):
    """One Elman RNN step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size,
                         hidden_size, bias, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: TensorBase, hx: TensorBase | None = None) -> TensorBase:
        """The next hidden state."""
        return self._step(input, hx)[0]


class LSTMCell(RNNCellBase):
    """One LSTM step: returns ``(h, c)``."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("LSTM", input_size, hidden_size, bias, device, dtype)

    def forward(self, input: TensorBase, hx: Any = None) -> tuple:
        """The next ``(h, c)``."""
        return self._step(input, hx)


class GRUCell(RNNCellBase):
    """One GRU step."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__("GRU", input_size, hidden_size, bias, device, dtype)

    def forward(self, input: TensorBase, hx: TensorBase | None = None) -> TensorBase:
        """The next hidden state."""
        return self._step(input, hx)[0]

