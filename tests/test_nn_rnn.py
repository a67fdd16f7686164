"""Recurrent layers against PyTorch with copied weights (float64, outputs, final states and
every gradient), packed sequences, cells, gradcheck, and PyTorch's errors."""

import numpy as np
import pytest

import tinygrad_lite as tl

rng = np.random.default_rng(0)

CONFIGS = [("RNN", {}), ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
           ("LSTM", {"num_layers": 2, "bidirectional": True}),
           ("GRU", {"bidirectional": True, "batch_first": True}),
           ("LSTM", {"proj_size": 3, "batch_first": True}), ("GRU", {"num_layers": 2}),
           ("LSTM", {"bias": False})]


def _copy(torch_module, ours):
    ours.load_state_dict({k: tl.tensor(v.detach().numpy())
                          for k, v in torch_module.state_dict().items()})


def _first(x):
    return x[0] if isinstance(x, tuple) else x


@pytest.mark.parametrize("cls,kwargs", CONFIGS, ids=[f"{c}-{k}" for c, k in CONFIGS])
def test_layer_matches_pytorch(cls, kwargs):
    torch = pytest.importorskip("torch")
    tm = getattr(torch.nn, cls)(4, 5, **kwargs).double()
    om = getattr(tl.nn, cls)(4, 5, **kwargs).double()
    assert list(om.state_dict()) == list(tm.state_dict())
    _copy(tm, om)
    x = rng.standard_normal((3, 6, 4) if kwargs.get("batch_first") else (6, 3, 4))
    tx, ox = torch.tensor(x, requires_grad=True), tl.tensor(x, requires_grad=True)
    h_shape = (tm.num_layers * (2 if tm.bidirectional else 1), 3,
               tm.proj_size or tm.hidden_size)
    h0 = rng.standard_normal(h_shape)
    if cls == "LSTM":
        c0 = rng.standard_normal(h_shape[:2] + (5,))
        t_state, o_state = (torch.tensor(h0), torch.tensor(c0)), (tl.tensor(h0), tl.tensor(c0))
    else:
        t_state, o_state = torch.tensor(h0), tl.tensor(h0)
    to, th = tm(tx, t_state)
    oo, oh = om(ox, o_state)
    np.testing.assert_allclose(oo.detach().numpy(), to.detach().numpy(), atol=1e-12)
    for a, b in zip(oh if isinstance(oh, tuple) else (oh,), th if isinstance(th, tuple)
                    else (th,)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    (to.sum() + _first(th).square().sum()).backward()
    (oo.sum() + _first(oh).square().sum()).backward()
    np.testing.assert_allclose(ox.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    for (name, tp), (_, op) in zip(tm.named_parameters(), om.named_parameters()):
        np.testing.assert_allclose(op.grad.numpy(), tp.grad.numpy(), atol=1e-11, err_msg=name)


def test_packed_sequences_and_unbatched_input_match_pytorch():
    torch = pytest.importorskip("torch")
    tm = torch.nn.GRU(4, 5, bidirectional=True, num_layers=2).double()
    om = tl.nn.GRU(4, 5, bidirectional=True, num_layers=2).double()
    _copy(tm, om)
    x, lengths = rng.standard_normal((6, 3, 4)), [4, 6, 2]
    for enforce_sorted, lens in ((False, lengths), (True, [6, 4, 2])):
        tp = torch.nn.utils.rnn.pack_padded_sequence(torch.tensor(x), lens,
                                                     enforce_sorted=enforce_sorted)
        op = tl.nn.utils.rnn.pack_padded_sequence(tl.tensor(x), lens,
                                                  enforce_sorted=enforce_sorted)
        to, th = tm(tp)
        oo, oh = om(op)
        assert isinstance(oo, tl.nn.utils.rnn.PackedSequence)
        np.testing.assert_allclose(oo.data.detach().numpy(), to.data.detach().numpy(),
                                   atol=1e-12)
        np.testing.assert_array_equal(oo.batch_sizes.numpy(), to.batch_sizes.numpy())
        np.testing.assert_allclose(oh.detach().numpy(), th.detach().numpy(), atol=1e-12)
        padded, out_lens = tl.nn.utils.rnn.pad_packed_sequence(oo, batch_first=True)
        t_padded, t_lens = torch.nn.utils.rnn.pad_packed_sequence(to, batch_first=True)
        np.testing.assert_allclose(padded.detach().numpy(), t_padded.detach().numpy(),
                                   atol=1e-12)
        assert out_lens.tolist() == t_lens.tolist()
    single = rng.standard_normal((5, 4))
    np.testing.assert_allclose(om(tl.tensor(single))[0].detach().numpy(),
                               tm(torch.tensor(single))[0].detach().numpy(), atol=1e-12)


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_pytorch(cls):
    torch = pytest.importorskip("torch")
    tm, om = getattr(torch.nn, cls)(4, 5).double(), getattr(tl.nn, cls)(4, 5).double()
    _copy(tm, om)
    x = rng.standard_normal((3, 4))
    for inp_t, inp_o in ((torch.tensor(x), tl.tensor(x)), (torch.tensor(x[0]), tl.tensor(x[0]))):
        np.testing.assert_allclose(_first(om(inp_o)).detach().numpy(),
                                   _first(tm(inp_t)).detach().numpy(), atol=1e-12)


def test_gradcheck_and_second_order_through_an_lstm():
    tl.manual_seed(0)
    layer = tl.nn.LSTM(2, 3, bidirectional=True).double()
    x = tl.randn(4, 2, 2, dtype=tl.float64, requires_grad=True)
    assert tl.autograd.gradcheck(lambda v: layer(v)[0], (x,))
    assert tl.autograd.gradgradcheck(lambda v: layer(v)[1][1], (x,))


def test_errors_and_repr():
    with pytest.raises(ValueError, match="nonlinearity"):
        tl.nn.RNN(2, 3, nonlinearity="sigmoid")
    layer = tl.nn.LSTM(3, 4, num_layers=2, batch_first=True)
    with pytest.raises(RuntimeError, match="input_size"):
        layer(tl.randn(2, 5, 7))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size"):
        layer(tl.randn(2, 5, 3), (tl.zeros(1, 2, 4), tl.zeros(2, 2, 4)))
    assert repr(layer) == "LSTM(3, 4, num_layers=2, batch_first=True)"
    assert len(layer.all_weights) == 2 and len(layer.all_weights[0]) == 4
