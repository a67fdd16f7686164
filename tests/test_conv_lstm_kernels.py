"""The convolution's flat-shift path and the fused LSTM layer node against PyTorch.

``ops/conv.py`` picks between the chunked flat-shift rule (long output rows, 1x1 kernels) and
the full im2col matrix (short rows); both are run here on the same cases by moving the
threshold. ``ops/rnn.py`` runs a whole LSTM layer as one node; its gradients (and, under
``create_graph``, its recorded rule) are checked against PyTorch and by float64 gradcheck.
"""

from __future__ import annotations

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.ops.conv as conv_ops
from tinygrad_lite.autograd import gradcheck, gradgradcheck
from tinygrad_lite.ops.rnn import lstm_layer

torch = pytest.importorskip("torch")

CONV_CASES = [
    # (nd, n, c, o, groups, spatial, kernel, stride, padding, dilation)
    (2, 2, 3, 4, 1, (9, 8), (3, 3), (1, 1), (1, 1), (1, 1)),
    (2, 3, 4, 6, 2, (10, 7), (3, 2), (2, 1), (1, 0), (1, 2)),
    (2, 2, 4, 4, 4, (8, 8), (3, 3), (2, 2), (1, 1), (1, 1)),  # depthwise, strided
    (2, 2, 3, 5, 1, (8, 9), (1, 1), (1, 1), (0, 0), (1, 1)),  # 1x1: a plain GEMM
    (2, 2, 3, 5, 1, (9, 8), (1, 1), (2, 3), (0, 0), (1, 1)),  # 1x1 strided: one phase
    (2, 2, 3, 5, 1, (7, 7), (1, 1), (2, 2), (1, 1), (1, 1)),  # 1x1 strided, padded
    (2, 1, 2, 3, 1, (11, 12), (3, 3), (3, 3), (2, 0), (2, 1)),
    (1, 3, 2, 4, 1, (17,), (5,), (2,), (3,), (2,)),
    (3, 2, 2, 3, 1, (5, 6, 5), (2, 3, 2), (1, 2, 1), (1, 0, 1), (2, 1, 1)),
    (3, 1, 4, 4, 2, (4, 5, 6), (1, 1, 1), (1, 1, 1), (0, 0, 0), (1, 1, 1)),
]


@pytest.fixture(params=["flat", "im2col"])
def conv_path(request, monkeypatch):
    """Run a test through the flat-shift rule (threshold 0) or the full im2col matrix."""
    monkeypatch.setattr(conv_ops, "_LONG_ROWS", 0 if request.param == "flat" else 10**9)
    return request.param


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv_paths_match_pytorch(conv_path, case):
    nd, n, c, o, groups, spatial, kernel, stride, padding, dilation = case
    rng = np.random.default_rng(len(spatial) + n + c)
    x = rng.standard_normal((n, c) + spatial)
    w = rng.standard_normal((o, c // groups) + kernel)
    b = rng.standard_normal(o)
    name = f"conv{nd}d"
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ty = getattr(torch.nn.functional, name)(tx, tw, tb, stride, padding, dilation, groups)
    gy = rng.standard_normal(tuple(ty.shape))
    ty.backward(torch.tensor(gy))
    lx, lw, lb = (tl.tensor(a, requires_grad=True) for a in (x, w, b))
    ly = getattr(tl.nn.functional, name)(lx, lw, lb, stride, padding, dilation, groups)
    ly.backward(tl.tensor(gy))
    np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-10)
    for ours, theirs in ((lx, tx), (lw, tw), (lb, tb)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-10,
                                   atol=1e-10)


@pytest.mark.parametrize("case", [CONV_CASES[1], CONV_CASES[4], CONV_CASES[7]])
def test_conv_paths_gradcheck_second_order(conv_path, case):
    nd, n, c, o, groups, spatial, kernel, stride, padding, dilation = case
    rng = np.random.default_rng(7)
    x = tl.tensor(rng.standard_normal((1, c) + spatial), requires_grad=True)
    w = tl.tensor(rng.standard_normal((o, c // groups) + kernel), requires_grad=True)
    f = getattr(tl.nn.functional, f"conv{nd}d")

    def fn(a, b):
        return f(a, b, None, stride, padding, dilation, groups).square().sum()

    assert gradcheck(fn, (x, w))
    assert gradgradcheck(fn, (x, w))


@pytest.mark.parametrize("stride,dilation", [((2, 2), (1, 1)), ((1, 1), (3, 3)),
                                             ((3, 1), (1, 2))])
def test_conv_non_finite_input_and_weight_match_pytorch(conv_path, stride, dilation):
    """Positions the flat rule computes and drops read real input elements: an inf there
    must not turn the weight gradient into NaN (0 * inf), nor a non-finite weight the input
    gradient of elements no window reads."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 2, 9, 9))
    x[0, 1, 8, 8], x[1, 0, 0, 8] = np.inf, np.nan
    w = rng.standard_normal((3, 2, 2, 2))
    for weight_inf in (False, True):
        if weight_inf:
            x, w = np.ones_like(x), w.copy()
            w[0, 0, 0, 0] = np.inf
        tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
        ty = torch.nn.functional.conv2d(tx, tw, None, stride, 1, dilation)
        ty.sum().backward()
        lx, lw = tl.tensor(x, requires_grad=True), tl.tensor(w, requires_grad=True)
        ly = tl.nn.functional.conv2d(lx, lw, None, stride, 1, dilation)
        ly.sum().backward()
        np.testing.assert_allclose(ly.detach().numpy(), ty.detach().numpy(), equal_nan=True)
        np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), equal_nan=True)
        if not weight_inf:
            np.testing.assert_allclose(lw.grad.numpy(), tw.grad.numpy(), equal_nan=True)


def test_conv_float16_runs_in_float32(conv_path):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float16)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float16)
    lx, lw = tl.tensor(x, requires_grad=True), tl.tensor(w, requires_grad=True)
    ly = tl.nn.functional.conv2d(lx, lw, padding=1)
    ly.sum().backward()
    assert ly.dtype == tl.float16 and lx.grad.dtype == tl.float16 and lw.grad.dtype == tl.float16
    tx, tw = (torch.tensor(a.astype(np.float32), requires_grad=True) for a in (x, w))
    ty = torch.nn.functional.conv2d(tx, tw, padding=1)
    ty.sum().backward()
    np.testing.assert_allclose(ly.detach().numpy().astype(np.float32), ty.detach().numpy(),
                               rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(lw.grad.numpy().astype(np.float32), tw.grad.numpy(), rtol=1e-2,
                               atol=5e-2)


# -- the fused LSTM layer --------------------------------------------------------------------

LSTM_CONFIGS = [{}, {"bias": False}, {"batch_first": True}, {"bidirectional": True},
                {"num_layers": 2, "bidirectional": True, "batch_first": True}]


@pytest.mark.parametrize("kwargs", LSTM_CONFIGS)
@pytest.mark.parametrize("loss", ["all", "output", "h_n", "c_n"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_lstm_matches_pytorch(kwargs, loss, dtype):
    rng = np.random.default_rng(11)
    steps, batch, size, hidden = 5, 3, 4, 6
    tm = torch.nn.LSTM(size, hidden, **kwargs).to(getattr(torch, np.dtype(dtype).name))
    lm = tl.nn.LSTM(size, hidden, **kwargs, dtype=getattr(tl, np.dtype(dtype).name))
    lm.load_state_dict({k: tl.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    shape = (batch, steps, size) if kwargs.get("batch_first") else (steps, batch, size)
    x, h0, c0 = (rng.standard_normal(s).astype(dtype)
                 for s in (shape, (layers, batch, hidden), (layers, batch, hidden)))
    tx, th, tc = (torch.tensor(a, requires_grad=True) for a in (x, h0, c0))
    lx, lh, lc = (tl.tensor(a, requires_grad=True) for a in (x, h0, c0))
    t_out = tm(tx, (th, tc))
    l_out = lm(lx, (lh, lc))
    t_parts = (t_out[0], t_out[1][0], t_out[1][1])
    l_parts = (l_out[0], l_out[1][0], l_out[1][1])
    picked = {"all": (0, 1, 2), "output": (0,), "h_n": (1,), "c_n": (2,)}[loss]
    weights = [rng.standard_normal(tuple(p.shape)).astype(dtype) for p in t_parts]
    sum((t_parts[k] * torch.tensor(weights[k])).sum() for k in picked).backward()
    sum((l_parts[k] * tl.tensor(weights[k])).sum() for k in picked).backward()
    tol = 1e-10 if dtype == np.float64 else 1e-4
    for ours, theirs in zip(l_parts, t_parts):
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tol,
                                   atol=tol)
    for ours, theirs in ((lx, tx), (lh, th), (lc, tc)):
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=tol, atol=tol)
    named = dict(tm.named_parameters())
    for name, p in lm.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), named[name].grad.numpy(), rtol=tol,
                                   atol=tol, err_msg=name)


def test_lstm_is_one_node_per_layer():
    lm = tl.nn.LSTM(3, 4)
    out, (h, c) = lm(tl.randn(6, 2, 3))
    assert out.grad_fn.name() == "LstmLayerBackward"
    assert h.grad_fn is not None and c.grad_fn is not None


@pytest.mark.parametrize("bias", [True, False])
def test_lstm_layer_gradcheck_and_second_order(bias):
    rng = np.random.default_rng(2)
    x = tl.tensor(rng.standard_normal((4, 2, 3)), requires_grad=True)
    h0 = tl.tensor(rng.standard_normal((2, 5)), requires_grad=True)
    c0 = tl.tensor(rng.standard_normal((2, 5)), requires_grad=True)
    w_ih = tl.tensor(0.5 * rng.standard_normal((20, 3)), requires_grad=True)
    w_hh = tl.tensor(0.5 * rng.standard_normal((20, 5)), requires_grad=True)
    b_ih = tl.tensor(rng.standard_normal(20), requires_grad=True)
    b_hh = tl.tensor(rng.standard_normal(20), requires_grad=True)

    def fn(*args):
        biases = args[5:] if bias else (None, None)
        out, h, c = lstm_layer(*args[:5], *biases, True)
        return out.square().sum() + (h * c).sum() + out[-1].sum()

    args = (x, h0, c0, w_ih, w_hh) + ((b_ih, b_hh) if bias else ())
    assert gradcheck(fn, args)
    assert gradgradcheck(fn, args)


def test_lstm_under_no_grad_records_nothing():
    lm = tl.nn.LSTM(3, 4)
    with tl.no_grad():
        out, (h, c) = lm(tl.randn(5, 2, 3))
    assert out.grad_fn is None and h.grad_fn is None and not out.requires_grad


def test_lstm_output_is_the_callers_own():
    """Changing the returned output in place must not change the saved states (backward
    still sees the forward's values)."""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((4, 2, 3))
    lm = tl.nn.LSTM(3, 4, dtype=tl.float64)
    out, (h, _) = lm(tl.tensor(x))
    h.sum().backward()
    expected = {n: p.grad.numpy().copy() for n, p in lm.named_parameters()}
    lm.zero_grad()
    out, (h, _) = lm(tl.tensor(x))
    out.detach().numpy()[...] = 0  # the output array only
    h.sum().backward()
    for n, p in lm.named_parameters():
        np.testing.assert_array_equal(p.grad.numpy(), expected[n])
