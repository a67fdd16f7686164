"""Regressions found by running tutorial-style PyTorch programs with ``import tinygrad_lite as
torch``: each test checks the fixed behaviour against PyTorch itself."""

from __future__ import annotations

import io

import numpy as np
import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _same_repr(make):
    """``make(lib)`` prints the same under both libraries (dtype names aside)."""
    ours = repr(make(tl)).replace("tinygrad_lite.", "torch.")
    assert ours == repr(make(torch))


@pytest.mark.parametrize("values", [
    [1.0, -INF], [[0.0, INF], [-INF, 0.0]], [[0.5, NAN], [0.0, 1.0]], [100.0, NAN, 0.0],
    [0.0, 0.0], [-1.0, 0.0], [1e-9, 1.0, -INF], [1.0, 2000.0], [1.0, 1e9], [0.5, 2000.0],
    [-0.0, 1.0], [NAN, NAN], [1e10, INF], [3.0, 12.0, 27.0], [0.1, 0.25, -3.5], [1e-5, 0.0],
])
def test_float_repr_widths_follow_nonzero_finite_entries(values):
    _same_repr(lambda lib: lib.tensor(values))


def test_int_and_bool_repr_are_padded_and_summaries_spaced():
    _same_repr(lambda lib: lib.tensor([1, -1]))
    _same_repr(lambda lib: lib.tensor([[1, 100], [-5, 3]]))
    _same_repr(lambda lib: lib.tensor([True, False]))
    _same_repr(lambda lib: lib.arange(2000).reshape(2, 1000))
    _same_repr(lambda lib: lib.linspace(0, 1, 2000))


def test_repr_suffix_moves_to_its_own_line_when_too_long():
    _same_repr(lambda lib: lib.ones(2, 3, 5, requires_grad=True) * 0.0708)
    _same_repr(lambda lib: lib.ones(3, 9, requires_grad=True))


def test_set_printoptions_sci_mode_with_zeros_only():
    for lib in (tl, torch):
        lib.set_printoptions(sci_mode=False)
    try:
        _same_repr(lambda lib: lib.tensor([0.0, 0.0]))
        _same_repr(lambda lib: lib.tensor([1e-9, 1.0]))
    finally:
        for lib in (tl, torch):
            lib.set_printoptions(profile="default")


def test_repeat_returns_writable_memory():
    x = tl.linspace(-1, 1, 4).unsqueeze(1).repeat(1, 2)
    x[:, 1] = tl.tensor([9.0, 8.0, 7.0, 6.0])  # was refused as a write to a broadcast view
    expected = torch.linspace(-1, 1, 4).unsqueeze(1).repeat(1, 2)
    expected[:, 1] = torch.tensor([9.0, 8.0, 7.0, 6.0])
    np.testing.assert_allclose(x.numpy(), expected.numpy())
    base = tl.ones(2, 2)
    same = base.repeat(1, 1)
    same[0, 0] = 5.0
    assert base[0, 0].item() == 1.0
    w = tl.ones(3, requires_grad=True)
    w.repeat(2).sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]


@pytest.mark.parametrize("index", [
    (slice(None),), (None,), (Ellipsis,), (0, Ellipsis), (slice(0, 2), None), (None, 0),
    (slice(None), slice(0, 5)), (slice(0, 4),), (slice(None, None, 2),), (1, 2), (0,),
    (slice(None), 1), (None, slice(1, 3)), (Ellipsis, 0), (0, slice(1, 3)), (slice(-2, None),),
    [0, 1],
])
def test_basic_index_grad_fn_names(index):
    ours = tl.ones(4, 5, requires_grad=True)[index].grad_fn.name()
    assert ours == torch.ones(4, 5, requires_grad=True)[index].grad_fn.name()


def test_where_with_condition_only_gives_nonzero_tuple():
    data = [3.0, 1.0, 4.0, 5.0]
    ours = tl.where(tl.tensor(data) > 3)
    theirs = torch.where(torch.tensor(data) > 3)
    assert len(ours) == len(theirs) and ours[0].tolist() == theirs[0].tolist()
    m = [[True, False], [False, True]]
    assert [t.tolist() for t in tl.where(tl.tensor(m))] == \
        [t.tolist() for t in torch.where(torch.tensor(m))]
    assert tl.where(tl.tensor([True, False]), 1.0, 0.0).tolist() == [1.0, 0.0]
    with pytest.raises(TypeError):
        tl.where(tl.tensor([True]), tl.ones(1))


@pytest.mark.parametrize("lib", [tl, torch], ids=["tl", "torch"])
def test_norm_layers_load_dicts_without_num_batches_tracked(lib):
    m = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3),
                          lib.nn.InstanceNorm1d(3, track_running_stats=True))
    m[1].num_batches_tracked.fill_(5)
    plain = {k: v for k, v in m.state_dict().items() if "num_batches" not in k}
    result = m.load_state_dict(plain)  # no metadata: migrated, nothing missing
    assert result.missing_keys == [] and m[1].num_batches_tracked.item() == 5
    versioned = m.state_dict()
    del versioned["1.num_batches_tracked"]  # version-2 metadata: really missing
    with pytest.raises(RuntimeError, match="num_batches_tracked"):
        m.load_state_dict(versioned)


def test_parameter_containers_repr():
    def make(lib):
        p = lib.nn.Parameter
        return lib.nn.Sequential(
            lib.nn.ParameterList([p(lib.ones(2, 3)), p(lib.ones(2, dtype=lib.float64)),
                                  p(lib.tensor(1.0))]),
            lib.nn.ParameterDict({"a": p(lib.ones(2, 3))}), lib.nn.ParameterList())
    _same_repr(make)


def test_param_shape_is_a_size():
    shape = tl.distributions.Categorical(probs=tl.ones(2, 3) / 3).param_shape
    assert isinstance(shape, tl.Size) and shape == (2, 3)


def test_round_with_decimals():
    data = [1.2345, 125.0, -2.5e-3, 0.125, 0.35]
    for decimals in (2, -1, 1):
        for dt in ("float32", "float64"):
            ours = tl.round(tl.tensor(data, dtype=getattr(tl, dt)), decimals=decimals)
            theirs = torch.round(torch.tensor(data, dtype=getattr(torch, dt)), decimals=decimals)
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    x = tl.tensor(data, requires_grad=True)
    y = x.round(decimals=2)
    assert y.grad_fn.name() == "RoundBackward1"
    y.sum().backward()
    assert x.grad.tolist() == [0.0] * 5
    with pytest.raises(NotImplementedError):
        tl.round(tl.tensor([15]), decimals=-1)


def test_module_to_accepts_device_objects():
    m = tl.nn.Linear(2, 2)
    assert m.to(tl.device("cpu")) is m
    assert m.to(tl.device("cpu"), tl.float64).weight.dtype == tl.float64
    assert m.to(device="cpu", dtype=tl.float32).weight.dtype == tl.float32
    with pytest.raises(Exception, match="cuda"):
        m.to("cuda")


def test_set_default_dtype_reaches_module_parameters():
    tl.set_default_dtype(tl.float64)
    try:
        mods = [tl.nn.Linear(2, 2), tl.nn.Conv2d(1, 1, 3), tl.nn.BatchNorm1d(2),
                tl.nn.LayerNorm(2), tl.nn.Embedding(3, 2), tl.nn.LSTM(2, 3), tl.nn.GRU(2, 2),
                tl.nn.PReLU(), tl.nn.MultiheadAttention(4, 2), tl.nn.GroupNorm(1, 2)]
        for m in mods:
            assert {p.dtype for p in m.parameters()} == {tl.float64}, type(m).__name__
        assert tl.nn.Parameter().dtype == tl.float64
        assert tl.nn.LSTM(2, 3)(tl.ones(1, 2))[0].dtype == tl.float64
    finally:
        tl.set_default_dtype(tl.float32)
    assert tl.nn.Linear(2, 2).weight.dtype == tl.float32


def test_autograd_grad_materialize_grads():
    q = tl.tensor([1.0], requires_grad=True)
    r = tl.tensor([1.0], requires_grad=True)
    gq, gr = tl.autograd.grad((q * 2).sum(), [q, r], materialize_grads=True)
    tq, tr = torch.tensor([1.0], requires_grad=True), torch.tensor([1.0], requires_grad=True)
    eq, er = torch.autograd.grad((tq * 2).sum(), [tq, tr], materialize_grads=True)
    assert gq.tolist() == eq.tolist() and gr.tolist() == er.tolist()
    assert tl.autograd.grad((q * 2).sum(), [q, r], allow_unused=True)[1] is None
    with pytest.raises(ValueError, match="allow_unused"):
        tl.autograd.grad((q * 2).sum(), [q, r], allow_unused=False, materialize_grads=True)
    with pytest.raises(RuntimeError, match="allow_unused"):
        tl.autograd.grad((q * 2).sum(), [q, r])


def test_disabled_autocast_accepts_bfloat16():
    with tl.autocast(device_type="cpu", dtype=tl.bfloat16, enabled=False):
        assert (tl.ones(2) @ tl.ones(2)).dtype == tl.float32
    with pytest.warns(UserWarning, match="disabling autocast"):  # no CUDA: disabled, no error
        with tl.autocast(device_type="cuda", dtype=tl.bfloat16):
            pass


@pytest.mark.parametrize("make", [
    lambda lib: lib.tensor([True]) - lib.tensor([False]),
    lambda lib: lib.tensor([True]) - 1,
    lambda lib: 1 - lib.tensor([True]),
    lambda lib: lib.tensor([1.0]) - True,
    lambda lib: -lib.tensor([True]),
])
def test_bool_subtraction_and_negation_raise_runtime_error(make):
    with pytest.raises(RuntimeError) as theirs:
        make(torch)
    with pytest.raises(RuntimeError, match=theirs.value.args[0].split(",")[0]):
        make(tl)


@pytest.mark.parametrize("data", [[[1, 2], [3]], [[1.0], [2.0, 3.0]], [[[1, 2]], [[3]]],
                                  [(1, 2), [3]]])
def test_ragged_lists_raise_value_error(data):
    with pytest.raises(ValueError) as theirs:
        torch.tensor(data)
    with pytest.raises(ValueError) as ours:
        tl.tensor(data)
    assert str(ours.value) == str(theirs.value)


def test_save_load_state_dict_round_trip_through_bytesio():
    net = tl.nn.Sequential(tl.nn.Linear(2, 3), tl.nn.BatchNorm1d(3))
    buf = io.BytesIO()
    tl.save({"model": net.state_dict(), "epoch": 3}, buf)
    buf.seek(0)
    ckpt = tl.load(buf, weights_only=True)
    other = tl.nn.Sequential(tl.nn.Linear(2, 3), tl.nn.BatchNorm1d(3))
    other.load_state_dict(ckpt["model"])
    assert tl.equal(other[0].weight, net[0].weight) and ckpt["epoch"] == 3


@pytest.mark.parametrize("a, b", [(1.0, 0.0), (1, 0), (1, 0.0), (True, False)])
def test_where_with_two_scalars_uses_default_dtypes(a, b):
    ours = tl.where(tl.tensor([True, False]), a, b)
    theirs = torch.where(torch.tensor([True, False]), a, b)
    assert ours.tolist() == theirs.tolist() and str(ours.dtype)[14:] == str(theirs.dtype)[6:]


@pytest.mark.parametrize("momentum", [0.1, None])
def test_instance_norm_running_stats_and_counter_as_pytorch(momentum):
    rng = np.random.default_rng(0)
    ref = torch.nn.InstanceNorm2d(3, track_running_stats=True, momentum=momentum, affine=True)
    mine = tl.nn.InstanceNorm2d(3, track_running_stats=True, momentum=momentum, affine=True)
    for _ in range(3):
        x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
        np.testing.assert_allclose(mine(tl.tensor(x)).detach().numpy(),
                                   ref(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    for key, value in ref.state_dict().items():  # num_batches_tracked stays 0 in PyTorch
        np.testing.assert_allclose(mine.state_dict()[key].numpy(), value.numpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=key)
