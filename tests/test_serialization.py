"""tl.save / tl.load: safetensors round trips, atomic writes and clear errors."""

import json
import os
import pickle

import numpy as np
import pytest

pytest.importorskip("safetensors")

import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn, optim  # noqa: E402
from tinygrad_lite.serialization import load, save  # noqa: E402


def model():
    return nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))


def test_module_state_dict_round_trip_bit_exact(tmp_path):
    m = model()
    m(tl.randn(5, 3))  # update running stats
    path = tmp_path / "m.safetensors"
    save(m.state_dict(), path)
    loaded = load(path)
    assert list(loaded) == list(m.state_dict())
    for k, v in m.state_dict().items():
        assert loaded[k].dtype == v.dtype
        np.testing.assert_array_equal(loaded[k].detach().numpy(), v.detach().numpy())
    m2 = model()
    m2.load_state_dict(loaded)
    m.eval()
    m2.eval()
    x = tl.randn(2, 3)
    np.testing.assert_array_equal(m(x).detach().numpy(), m2(x).detach().numpy())


def test_optimizer_state_round_trip(tmp_path):
    m = model()
    opt = optim.AdamW(m.parameters(), lr=0.01, betas=(0.8, 0.95))
    for _ in range(2):
        opt.zero_grad()
        m(tl.randn(4, 3)).sum().backward()
        opt.step()
    save({"model": m.state_dict(), "optim": opt.state_dict(), "epoch": 2}, tmp_path / "ck")
    ck = load(tmp_path / "ck")
    assert ck["epoch"] == 2
    groups = ck["optim"]["param_groups"]
    assert groups[0]["betas"] == (0.8, 0.95) and groups[0]["params"] == [0, 1, 2, 3, 4, 5]
    assert set(ck["optim"]["state"]) == {0, 1, 2, 3, 4, 5}  # int keys survive
    m2 = model()
    m2.load_state_dict(ck["model"])
    opt2 = optim.AdamW(m2.parameters(), lr=1.0)
    opt2.load_state_dict(ck["optim"])
    x = tl.randn(4, 3)
    for o, mm in ((opt, m), (opt2, m2)):
        o.zero_grad()
        mm(x).sum().backward()
        o.step()
    for a, b in zip(m.parameters(), m2.parameters()):
        np.testing.assert_array_equal(a.detach().numpy(), b.detach().numpy())


def test_loads_file_from_other_safetensors_tool(tmp_path):
    import safetensors.numpy as st

    m = model()
    ref = {k: v.detach().numpy().copy() for k, v in m.state_dict().items()}
    st.save_file(ref, str(tmp_path / "torch_like.safetensors"), metadata={"format": "pt"})
    m2 = model()
    m2.load_state_dict(load(tmp_path / "torch_like.safetensors"))
    m.eval()
    m2.eval()
    x = tl.randn(3, 3)
    np.testing.assert_array_equal(m(x).detach().numpy(), m2(x).detach().numpy())


def test_atomic_write_keeps_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "ck.safetensors"
    save({"w": tl.ones(3)}, path)
    before = path.read_bytes()

    def boom(fd):
        raise OSError("disk died mid-write")

    monkeypatch.setattr(os, "fsync", boom)
    with pytest.raises(OSError, match="disk died"):
        save({"w": tl.zeros(1000)}, path)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["ck.safetensors"]  # the temporary file is gone


def test_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file: '.*missing.st'"):
        load(tmp_path / "missing.st")
    good = tmp_path / "good.st"
    save({"w": tl.ones(100)}, good)
    raw = good.read_bytes()
    cases = {
        "tiny": (b"abc", "fewer than the 8-byte header length"),
        "trunc_header": (raw[:20], "truncated or not a safetensors file"),
        "trunc_data": (raw[:-50], "is truncated: tensor 'w' ends at byte"),
        "pickle": (b"\x80\x04\x95" + b"\x00" * 40, "is a pickle file"),
        "badjson": ((5).to_bytes(8, "little") + b"{nope", "header is not valid JSON"),
    }
    for name, (data, msg) in cases.items():
        p = tmp_path / name
        p.write_bytes(data)
        with pytest.raises(RuntimeError, match=msg) as info:
            load(p)
        assert str(p) in str(info.value)
    header = json.dumps({"w": {"dtype": "F32", "shape": [100], "data_offsets": [0, 400]},
                         "__metadata__": {"tinygrad_lite": "{not json"}}).encode()
    p = tmp_path / "badmeta"
    p.write_bytes(len(header).to_bytes(8, "little") + header + b"\x00" * 400)
    with pytest.raises(RuntimeError, match="corrupt tinygrad_lite metadata"):
        load(p)


def test_whole_objects_are_pickled_and_load_through_the_allowlist(tmp_path):
    """``torch.save(model, f)`` works; loading it needs the model's classes allowed
    (``safe_globals``) or ``weights_only=False``, as in PyTorch 2.6+."""
    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.ReLU(), tl.nn.LSTM(4, 2))
    path = tmp_path / "model.pt"
    save(model, path)
    for flag in (None, True):
        with pytest.raises(pickle.UnpicklingError, match="modules.container.Sequential"):
            load(path, weights_only=flag)
    classes = [tl.nn.Sequential, tl.nn.Linear, tl.nn.ReLU, tl.nn.LSTM]
    names = ["tinygrad_lite.nn.modules.container.Sequential",
             "tinygrad_lite.nn.modules.linear.Linear", "tinygrad_lite.nn.modules.activation.ReLU",
             "tinygrad_lite.nn.modules.rnn.LSTM"]
    assert tl.serialization.get_unsafe_globals_in_checkpoint(path) == names
    with tl.serialization.safe_globals(classes):
        allowed = load(path)
        assert tl.serialization.get_unsafe_globals_in_checkpoint(path) == []
    with pytest.raises(pickle.UnpicklingError):  # the block's allowlist is gone after it
        load(path)
    loaded = load(path, weights_only=False)
    for result in (allowed, loaded):
        assert type(result) is type(model) and repr(result) == repr(model)
        for (k1, v1), (k2, v2) in zip(model.state_dict().items(), result.state_dict().items()):
            assert k1 == k2
            np.testing.assert_array_equal(v1.numpy(), v2.numpy())
        assert isinstance(result[0].weight, tl.nn.Parameter) and result[0].weight.requires_grad
        x = tl.randn(2, 5, 3)
        np.testing.assert_array_equal(result(x)[0].detach().numpy(),
                                      model(x)[0].detach().numpy())
    tl.serialization.add_safe_globals(classes)
    try:
        assert repr(load(path)) == repr(model)
        assert set(classes) <= set(tl.serialization.get_safe_globals())
    finally:
        tl.serialization.clear_safe_globals()
    assert tl.serialization.get_safe_globals() == []
    # tensors, arrays, sets and complex numbers in a structure the JSON format cannot hold are
    # pickled, and rebuild with the default allowlist; the file is still safetensors
    mixed = {"epoch": 3, "ids": {1, 2}, "z": 1 + 2j, "w": tl.nn.Parameter(tl.ones(2))}
    save(mixed, tmp_path / "mixed.pt")
    back = load(tmp_path / "mixed.pt")
    assert back["ids"] == {1, 2} and back["z"] == 1 + 2j and isinstance(back["w"], tl.nn.Parameter)
    header_length = int.from_bytes((tmp_path / "mixed.pt").read_bytes()[:8], "little")
    assert b"__pickle__" in (tmp_path / "mixed.pt").read_bytes()[8:8 + header_length]


class _RunsCode:
    """A pickle whose loading would run a shell command."""

    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_a_weights_only_load_refuses_globals_that_run_code(tmp_path):
    save({"x": _RunsCode()}, tmp_path / "evil.pt")
    with pytest.raises(pickle.UnpicklingError, match="system"):
        load(tmp_path / "evil.pt")
    assert tl.serialization.get_unsafe_globals_in_checkpoint(tmp_path / "evil.pt") in (
        ["posix.system"], ["nt.system"], ["os.system"])


def test_objects_pickle_cannot_store_raise_pickles_error(tmp_path):
    with pytest.raises((pickle.PicklingError, AttributeError, TypeError)):
        save({"f": lambda x: x}, tmp_path / "f")
