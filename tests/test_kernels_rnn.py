"""The LSTM and GRU layer nodes (``ops/rnn.py``) on both kernel backends.

Backward through time runs each step's elementwise work as one compiled pass (the ``rnn`` kernel
family) or as the NumPy reference; every test here runs on both. The layers are compared with
PyTorch in float64 (bidirectional, stacked, batch_first, without bias, unbatched, and the cases
that leave the layer node: projections and packed sequences), gradients by float64 gradcheck
(second order through the recorded rule), and the two backends against each other in float32:
the kernels do the reference's products and sums in the same order and dtype, so their
gradients are bit for bit the reference's.
"""

from __future__ import annotations

import numpy as np
import pytest
from kernel_backends import backend

import tinygrad_lite as tl
from tinygrad_lite import _kernels
from tinygrad_lite.autograd import gradcheck, gradgradcheck
from tinygrad_lite.ops.rnn import gru_layer, lstm_layer

torch = pytest.importorskip("torch")

__all__ = ["backend"]  # (a fixture, used by name)


CONFIGS = [
    {},
    {"bias": False},
    {"num_layers": 2},
    {"bidirectional": True},
    {"num_layers": 2, "bidirectional": True, "batch_first": True},
]


def _pair(kind: str, kwargs: dict, input_size: int = 4, hidden: int = 5):
    """The same layer in PyTorch and here (float64, PyTorch's weights copied over)."""
    theirs = getattr(torch.nn, kind)(input_size, hidden, **kwargs).double()
    ours = getattr(tl.nn, kind)(input_size, hidden, dtype=tl.float64, **kwargs)
    ours.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in
                          theirs.state_dict().items()})
    return ours, theirs


def _states(kind: str, kwargs: dict, batch: int, hidden: int, rng):
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    h = rng.standard_normal((layers, batch, kwargs.get("proj_size") or hidden))
    if kind == "LSTM":
        return [h, rng.standard_normal((layers, batch, hidden))]
    return [h]


def _run_both(kind: str, kwargs: dict, x: np.ndarray, states: list):
    """Outputs and all gradients of the PyTorch layer and ours on the same inputs, under one
    random upstream gradient for every output."""
    ours, theirs = _pair(kind, kwargs, x.shape[-1])
    rng = np.random.default_rng(11)
    results = []
    for lib, module in ((tl, ours), (torch, theirs)):
        inputs = [lib.tensor(a, requires_grad=True) for a in [x] + states]
        hx = None if not states else (tuple(inputs[1:]) if kind == "LSTM" else inputs[1])
        out, hn = module(inputs[0], hx)
        outs = [out] + (list(hn) if kind == "LSTM" else [hn])
        rng = np.random.default_rng(11)
        loss = sum((o * lib.tensor(rng.standard_normal(tuple(o.shape)))).sum() for o in outs)
        loss.backward()
        grads = [t.grad.numpy() for t in inputs] + [p.grad.numpy() for p in module.parameters()]
        results.append(([o.detach().numpy() for o in outs], grads))
    return results


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_layers_match_pytorch(backend, kind, kwargs):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 6, 4) if kwargs.get("batch_first") else (6, 3, 4))
    (ours, our_grads), (theirs, their_grads) = _run_both(
        kind, kwargs, x, _states(kind, kwargs, 3, 5, rng))
    for a, b in zip(ours, theirs, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    for a, b in zip(our_grads, their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_zero_initial_state_and_unbatched_input_match_pytorch(backend, kind):
    rng = np.random.default_rng(4)
    (ours, our_grads), (theirs, their_grads) = _run_both(
        kind, {}, rng.standard_normal((7, 4)), [])
    for a, b in zip(ours + our_grads, theirs + their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_lstm_projections_fall_back_and_match_pytorch(backend):
    rng = np.random.default_rng(5)
    kwargs = {"proj_size": 3, "bidirectional": True}
    (ours, our_grads), (theirs, their_grads) = _run_both(
        "LSTM", kwargs, rng.standard_normal((5, 2, 4)), _states("LSTM", kwargs, 2, 5, rng))
    for a, b in zip(ours + our_grads, theirs + their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_packed_sequences_fall_back_and_match_pytorch(backend, kind):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((5, 3, 4))
    lengths = [5, 2, 4]
    ours, theirs = _pair(kind, {"bidirectional": True})
    outs = []
    for lib, module, nn_utils in ((tl, ours, tl.nn.utils.rnn), (torch, theirs,
                                                               torch.nn.utils.rnn)):
        xt = lib.tensor(x, requires_grad=True)
        packed = nn_utils.pack_padded_sequence(xt, lengths, enforce_sorted=False)
        out, _ = module(packed)
        padded, _ = nn_utils.pad_packed_sequence(out)
        (padded * lib.tensor(np.arange(padded.numel()).reshape(tuple(padded.shape)) % 5)
         ).sum().backward()
        outs.append((padded.detach().numpy(), xt.grad.numpy(),
                     [p.grad.numpy() for p in module.parameters()]))
    np.testing.assert_allclose(outs[0][0], outs[1][0], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(outs[0][1], outs[1][1], rtol=1e-9, atol=1e-12)
    for a, b in zip(outs[0][2], outs[1][2], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def _layer_fn(kind: str, bias: bool):
    """The layer node as a function of (x, h0[, c0], weights...) for gradcheck."""
    def fn(*args):
        if kind == "LSTM":
            x, h0, c0, w_ih, w_hh, *b = args
            out, h, c = lstm_layer(x, h0, c0, w_ih, w_hh, *(b or [None, None]), record=True)
            return out.square().sum() + (h * c).sum()
        x, h0, w_ih, w_hh, *b = args
        out, h = gru_layer(x, h0, w_ih, w_hh, *(b or [None, None]), record=True)
        return out.square().sum() + h.sum()
    return fn


def _layer_inputs(kind: str, bias: bool, steps: int = 4, batch: int = 2, size: int = 3,
                  hidden: int = 3):
    rng = np.random.default_rng(8)
    gates = (4 if kind == "LSTM" else 3) * hidden
    shapes = [(steps, batch, size), (batch, hidden)] + ([(batch, hidden)] if kind == "LSTM"
                                                        else []) + \
        [(gates, size), (gates, hidden)] + ([(gates,), (gates,)] if bias else [])
    return [tl.tensor(rng.standard_normal(s) * 0.7, requires_grad=True) for s in shapes]


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
@pytest.mark.parametrize("bias", [True, False])
def test_layer_node_gradcheck(backend, kind, bias):
    assert gradcheck(_layer_fn(kind, bias), tuple(_layer_inputs(kind, bias)))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_layer_node_second_order_through_the_recorded_rule(backend, kind):
    inputs = _layer_inputs(kind, True, steps=3, batch=2, size=2, hidden=2)
    assert gradgradcheck(_layer_fn(kind, True), tuple(inputs))


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_float32_kernels_give_the_references_bits(kind):
    """The compiled backward does the reference's float32 operations in the same order, so
    every gradient is bit for bit the NumPy path's (bound: 0 ulps)."""
    if not _kernels.available():
        pytest.skip("numba is not installed")
    rng = np.random.default_rng(9)
    x = rng.standard_normal((16, 8, 12)).astype(np.float32)
    upstream = rng.standard_normal((16, 8, 32)).astype(np.float32)
    results = {}
    for name in ("numpy", "numba"):
        with _kernels.use_backend(name):
            tl.manual_seed(0)
            module = getattr(tl.nn, kind)(12, 16, num_layers=2, bidirectional=True)
            xt = tl.tensor(x, requires_grad=True)
            out, _ = module(xt)
            (out * tl.tensor(upstream)).sum().backward()
            results[name] = [xt.grad.numpy()] + [p.grad.numpy() for p in module.parameters()]
    for a, b in zip(results["numpy"], results["numba"], strict=True):
        assert a.dtype == np.float32
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_float32_and_float16_layers_match_pytorch(backend, kind):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((6, 3, 4)).astype(np.float32)
    ours, theirs = _pair(kind, {"num_layers": 2})
    ours, theirs = ours.float(), theirs.float()
    for lib, module in ((tl, ours), (torch, theirs)):
        xt = lib.tensor(x, requires_grad=True)
        out, _ = module(xt)
        out.square().sum().backward()
    np.testing.assert_allclose(ours.weight_hh_l0.grad.numpy(),
                               theirs.weight_hh_l0.grad.numpy(), rtol=2e-4, atol=1e-5)
    half = ours.half()
    out, _ = half(tl.tensor(x).half())
    assert out.dtype == tl.float16
    ref, _ = theirs(torch.tensor(x))
    np.testing.assert_allclose(out.float().detach().numpy(), ref.detach().numpy(), atol=5e-3)


@pytest.mark.parametrize("kind", ["LSTM", "GRU"])
def test_non_finite_inputs_propagate_as_in_pytorch(backend, kind):
    x = np.random.default_rng(12).standard_normal((4, 2, 3))
    x[1, 0, 2], x[2, 1, 0] = np.nan, np.inf
    (ours, our_grads), (theirs, their_grads) = _run_both(kind, {}, x, [])
    for a, b in zip(ours + our_grads, theirs + their_grads, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)
