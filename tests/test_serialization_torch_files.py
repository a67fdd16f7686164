"""tl.load reads PyTorch's own torch.save archives: state dicts, checkpoints with optimizer
state and every dtype, Parameters, views, whole pickled models (weights_only=False), with the
weights_only allowlist; a hand-built archive covers the format without PyTorch installed."""

import io
import pickle
import struct
import zipfile

import numpy as np
import pytest

import tinygrad_lite as tl


def _archive(pickle_bytes: bytes, storages: dict) -> bytes:
    """A zip archive laid out as torch.save writes it."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("ck/data.pkl", pickle_bytes)
        archive.writestr("ck/byteorder", "little")
        for key, raw in storages.items():
            archive.writestr(f"ck/data/{key}", raw)
        archive.writestr("ck/version", "3\n")
    return out.getvalue()


def _unicode(s: str) -> bytes:
    return b"X" + struct.pack("<I", len(s)) + s.encode()


def _hand_built_state_dict(rows: int = 3) -> bytes:
    """{'w': a (rows, 2) float32 tensor stored transposed (stride (1, 3)) at offset 0}."""
    stream = (b"\x80\x02}" + _unicode("w") + b"ctorch._utils\n_rebuild_tensor_v2\n(("
              + _unicode("storage") + b"ctorch\nFloatStorage\n" + _unicode("0") + _unicode("cpu")
              + b"K\x06tQK\x00K" + bytes([rows]) + b"K\x02\x86K\x01K\x03\x86\x89"
              + b"ccollections\nOrderedDict\n)RtRs.")
    return _archive(stream, {"0": np.arange(6, dtype=np.float32).tobytes()})


def test_hand_built_archive_loads_without_pytorch(tmp_path):
    path = tmp_path / "w.pt"
    path.write_bytes(_hand_built_state_dict())
    loaded = tl.load(path)
    assert loaded["w"].dtype == tl.float32 and not loaded["w"].requires_grad
    assert loaded["w"].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    # a storage too short for the tensor, and a global outside the allowlist, are refused
    path.write_bytes(_hand_built_state_dict(rows=4))
    with pytest.raises(pickle.UnpicklingError, match="past the end of its storage"):
        tl.load(path)
    evil = b"\x80\x02cos\nsystem\n" + _unicode("true") + b"\x85R."
    path.write_bytes(_archive(evil, {}))
    with pytest.raises(pickle.UnpicklingError, match="os.system"):
        tl.load(path)
    path.write_bytes(_hand_built_state_dict()[:-40])  # truncated
    with pytest.raises(RuntimeError, match="w.pt"):
        tl.load(path)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


def test_state_dicts_and_checkpoints_saved_by_pytorch(torch, tmp_path):
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU())
    theirs(torch.randn(5, 3))  # running statistics move
    opt = torch.optim.Adam(theirs.parameters())
    theirs(torch.randn(5, 3)).sum().backward()
    opt.step()
    base = torch.arange(10.0)
    torch.save({"model": theirs.state_dict(), "opt": opt.state_dict(), "epoch": 3,
                "view": base[2:5], "t": torch.arange(6).view(2, 3).t(),
                "dtypes": [torch.ones(2, dtype=d) for d in (torch.float16, torch.float64,
                                                             torch.int32, torch.uint8,
                                                             torch.bool, torch.int8)],
                "param": torch.nn.Parameter(torch.ones(2)), "size": torch.Size([2, 3])},
               tmp_path / "ck.pt")
    ck = tl.load(tmp_path / "ck.pt")
    ours = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.BatchNorm1d(4), tl.nn.ReLU())
    assert str(ours.load_state_dict(ck["model"])) == "<All keys matched successfully>"
    x = np.random.default_rng(0).standard_normal((6, 3)).astype(np.float32)
    theirs.eval()
    ours.eval()
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(),
                               theirs(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    assert ck["epoch"] == 3 and ck["view"].tolist() == [2.0, 3.0, 4.0]
    assert ck["t"].tolist() == [[0, 3], [1, 4], [2, 5]] and ck["t"].dtype == tl.int64
    assert [t.dtype for t in ck["dtypes"]] == [tl.float16, tl.float64, tl.int32, tl.uint8,
                                               tl.bool, tl.int8]
    assert isinstance(ck["param"], tl.nn.Parameter) and ck["param"].requires_grad
    assert ck["size"] == (2, 3) and isinstance(ck["size"], tl.Size)
    state = ck["opt"]["state"][0]
    np.testing.assert_array_equal(state["exp_avg"].numpy(), opt.state_dict()["state"][0][
        "exp_avg"].numpy())
    restored = tl.optim.Adam(ours.parameters())
    restored.load_state_dict(ck["opt"])
    assert restored.param_groups[0]["lr"] == 1e-3


def test_whole_pickled_model_needs_weights_only_false(torch, tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(1, 2, 3), torch.nn.Flatten(), torch.nn.Linear(8, 2))
    torch.save(model, tmp_path / "model.pt")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.container.Sequential"):
        tl.load(tmp_path / "model.pt")
    ours = tl.load(tmp_path / "model.pt", weights_only=False)
    assert isinstance(ours, tl.nn.Sequential) and isinstance(ours[0], tl.nn.Conv2d)
    x = np.random.default_rng(1).standard_normal((2, 1, 4, 4)).astype(np.float32)
    np.testing.assert_allclose(ours(tl.tensor(x)).detach().numpy(),
                               model(torch.tensor(x)).detach().numpy(), rtol=1e-5, atol=1e-6)
    # allowing tinygrad_lite's classes allows PyTorch's paths of them
    with tl.serialization.safe_globals([tl.nn.Sequential, tl.nn.Conv2d, tl.nn.Flatten,
                                       tl.nn.Linear, set]):
        assert isinstance(tl.load(tmp_path / "model.pt"), tl.nn.Sequential)
