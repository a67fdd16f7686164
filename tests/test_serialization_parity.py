"""tl.save / tl.load against torch.save / torch.load: every dtype, shared storages and views,
container types, requires_grad and Parameters, meta tensors, map_location / mmap / pickle_module /
pickle_protocol checks, files torch.save wrote (uint16-64, dtypes we lack, corruption), and
copy.deepcopy of Parameters: the same results, types and exception types as PyTorch."""

import collections
import copy
import io
import json
import pickle

import pytest

import tinygrad_lite as tl

torch = pytest.importorskip("torch")

Point = collections.namedtuple("Point", "x y")
_DTYPES = ["float32", "float64", "float16", "bfloat16", "int8", "int16", "int32", "int64",
           "uint8", "uint16", "uint32", "uint64", "bool"]


def _round_trip(lib, obj, **load_kwargs):
    buf = io.BytesIO()
    lib.save(obj, buf)
    buf.seek(0)
    return lib.load(buf, **load_kwargs)


def _torch_file(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


@pytest.mark.parametrize("name", _DTYPES)
def test_every_dtype_round_trips_and_loads_from_torch_files(name):
    data = [[0, 1, 0], [1, 1, 0]]
    ours = _round_trip(tl, tl.tensor(data, dtype=getattr(tl, name)))
    ref = _round_trip(torch, torch.tensor(data, dtype=getattr(torch, name)))
    from_torch = tl.load(io.BytesIO(_torch_file(ref)))
    for got in (ours, from_torch):
        assert str(got.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1] == name
        assert tuple(got.shape) == tuple(ref.shape)
        assert got.tolist() == ref.tolist()


@pytest.mark.parametrize("lib", [tl, torch], ids=["tl", "torch"])
def test_views_and_repeated_tensors_keep_sharing_memory(lib):
    base = lib.arange(12.0)
    obj = {"base": base, "view": base[2:5], "t": base[:6].view(2, 3).t(), "again": base,
           "empty": base[0:0]}
    loaded = _round_trip(lib, obj)
    assert loaded["again"] is loaded["base"]
    assert loaded["t"].tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
    assert tuple(loaded["empty"].shape) == (0,)
    loaded["base"][3] = 100.0
    assert loaded["view"].tolist() == [2.0, 100.0, 4.0]
    assert loaded["t"][0, 1].item() == 100.0
    again = _round_trip(lib, loaded)  # a save of loaded views shares them again
    again["base"][2] = -1.0
    assert again["view"][0].item() == -1.0


def test_tied_weights_in_a_state_dict_stay_tied():
    w = tl.randn(3, 3)
    loaded = _round_trip(tl, {"enc.weight": w, "dec.weight": w.detach()})
    assert type(loaded) is dict
    loaded["enc.weight"][0, 0] = 7.0
    assert loaded["dec.weight"][0, 0].item() == 7.0


def test_views_in_torch_files_share_and_keep_strides():
    base = torch.arange(10.0)
    loaded = tl.load(io.BytesIO(_torch_file({"a": base, "v": base[2:5],
                                             "t": base[:6].view(2, 3).t()})))
    ref = torch.load(io.BytesIO(_torch_file({"a": base, "t": base[:6].view(2, 3).t()})))
    assert loaded["t"].stride() == ref["t"].stride() == (1, 3)
    loaded["a"][3] = 100.0
    assert loaded["v"].tolist() == [2.0, 100.0, 4.0] and loaded["t"][1, 1].item() == 4.0


def test_container_types_match():
    obj = [{"a": 1}, collections.OrderedDict(a=1), {1: 2}, collections.OrderedDict([(1, 2)]), {},
           (1, "s", None, b"xy", True, 2.5, float("inf"), 2**70), []]
    ours, ref = _round_trip(tl, obj), _round_trip(torch, obj)
    assert [type(x) for x in ours] == [type(x) for x in ref]
    assert ours[:5] == ref[:5] and ours[5] == ref[5]
    assert type(_round_trip(tl, {"w": tl.ones(1)})) is dict  # a flat state dict
    od = _round_trip(tl, collections.OrderedDict(w=tl.ones(1)))
    assert type(od) is collections.OrderedDict


@pytest.mark.parametrize("obj", [Point(1, 2), collections.defaultdict(int, a=1)],
                         ids=["namedtuple", "defaultdict"])
def test_container_subclasses_are_refused_or_kept_whole(obj):
    for lib in (tl, torch):
        with pytest.raises(pickle.UnpicklingError):
            _round_trip(lib, obj)
        loaded = _round_trip(lib, obj, weights_only=False)
        assert type(loaded) is type(obj) and loaded == obj


@pytest.mark.parametrize("wrap", [lambda x: x, lambda x: [x], lambda x: {"k": x}],
                         ids=["bare", "list", "flat-dict"])
def test_requires_grad_and_parameters_survive(wrap):
    def make(lib):
        a = lib.ones(2, requires_grad=True)
        return [a, lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(2), False), a * 2]

    def kinds(lib, values):
        return [(type(v).__name__, v.requires_grad, v.is_leaf) for v in values]

    for i in range(4):
        got = [_round_trip(lib, wrap(make(lib)[i])) for lib in (tl, torch)]
        got = [g if not isinstance(g, (list, dict)) else next(iter(
            g.values() if isinstance(g, dict) else g)) for g in got]
        assert kinds(tl, [got[0]]) == kinds(torch, [got[1]])


def test_meta_tensors_round_trip_without_data():
    for lib in (tl, torch):
        loaded = _round_trip(lib, {"w": lib.nn.Parameter(lib.empty(1000, 1000, device="meta"))})
        assert loaded["w"].is_meta and tuple(loaded["w"].shape) == (1000, 1000)
        assert isinstance(loaded["w"], lib.nn.Parameter)
    buf = io.BytesIO()
    tl.save(tl.empty(1000, 1000, device="meta"), buf)
    assert len(buf.getvalue()) < 1000


@pytest.mark.parametrize("location", ["cpu", lambda s, loc: s, {"cuda:0": "cpu"}],
                         ids=["str", "callable", "dict"])
def test_map_location_forms_load_to_the_cpu(location):
    for lib in (tl, torch):
        loaded = _round_trip(lib, lib.arange(3), map_location=location)
        assert str(loaded.device) == "cpu" and loaded.tolist() == [0, 1, 2]
    assert str(_round_trip(tl, tl.ones(1), map_location=tl.device("cpu")).device) == "cpu"


@pytest.mark.parametrize("location, error", [
    ("cuda", RuntimeError), ({"cpu": "cuda"}, RuntimeError), ("nodevice", RuntimeError),
    (3, TypeError)])
def test_bad_map_location_raises_as_in_pytorch(location, error):
    for lib in (tl, torch):
        with pytest.raises(error):
            _round_trip(lib, lib.ones(1), map_location=location)


def test_mmap_needs_a_path(tmp_path):
    for lib in (tl, torch):
        path = tmp_path / f"{lib.__name__}.pt"
        lib.save({"a": lib.arange(4.0)}, path)
        assert lib.load(path, mmap=True)["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
        assert lib.load(str(path), mmap=True)["a"].tolist() == [0.0, 1.0, 2.0, 3.0]
        with open(path, "rb") as fh, pytest.raises(ValueError, match="f must be a file path"):
            lib.load(fh, mmap=True)


def test_pickle_module_and_protocol_arguments():
    for lib in (tl, torch):
        buf = io.BytesIO()
        lib.save({"s": {1, 2}, "m": lib.nn.Linear(1, 1)}, buf)
        buf.seek(0)
        assert type(lib.load(buf, pickle_module=pickle)["m"]) is lib.nn.Linear  # a full load
        buf.seek(0)
        with pytest.raises(RuntimeError, match="explicit pickle_module"):
            lib.load(buf, pickle_module=pickle, weights_only=True)
        for protocol in (2, 4, 5):
            model = _round_trip_protocol(lib, protocol)
            assert type(model) is lib.nn.Linear
        with pytest.raises(ValueError, match="pickle protocol must be <= 5"):
            lib.save(lib.ones(1), io.BytesIO(), pickle_protocol=6)
        buf = io.BytesIO()
        lib.save(lib.ones(2), buf, _use_new_zipfile_serialization=False)
        buf.seek(0)
        assert lib.load(buf).tolist() == [1.0, 1.0]


def _round_trip_protocol(lib, protocol):
    buf = io.BytesIO()
    lib.save(lib.nn.Linear(2, 2), buf, pickle_protocol=protocol)
    buf.seek(0)
    return lib.load(buf, weights_only=False)


@pytest.mark.parametrize("name", ["complex64", "float8_e4m3fn"])
def test_torch_files_with_dtypes_we_lack_name_the_dtype(name):
    raw = _torch_file({"x": torch.zeros(2, dtype=getattr(torch, name))})
    with pytest.raises(pickle.UnpicklingError, match="a dtype tinygrad_lite does not have"):
        tl.load(io.BytesIO(raw))


def test_corrupt_torch_archive_raises_runtime_error():
    raw = bytearray(_torch_file({"a": torch.ones(100)}))
    at = raw.find(b"data.pkl") + 60  # inside the compressed-or-stored pickle: a CRC mismatch
    raw[at:at + 20] = b"\xff" * 20
    with pytest.raises(RuntimeError, match="corrupt or truncated torch.save archive"):
        tl.load(io.BytesIO(bytes(raw)))  # (torch.load lets a UnicodeDecodeError through here)


def test_a_shared_view_outside_its_storage_is_refused():
    base = tl.arange(8.0)
    buf = io.BytesIO()
    tl.save([base, base[2:4]], buf)
    raw = buf.getvalue()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    tree = json.loads(header["__metadata__"]["tinygrad_lite"])
    tree["tree"]["L"][1]["o"] = 7  # two elements from offset 7 of 8: past the end
    header["__metadata__"]["tinygrad_lite"] = json.dumps(tree)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with pytest.raises(RuntimeError, match="lies outside its storage"):
        tl.load(io.BytesIO(len(text).to_bytes(8, "little") + text + raw[8 + n:]))


def test_deepcopy_of_a_module_drops_grads_as_parameters_do():
    for lib in (tl, torch):
        model = lib.nn.Linear(2, 2)
        model(lib.ones(1, 2)).sum().backward()
        clone = copy.deepcopy(model)
        assert clone.weight.grad is None and type(clone.weight) is lib.nn.Parameter
        assert clone.weight is not model.weight and clone.weight.requires_grad
        assert model.weight.grad is not None
        leaf = lib.ones(2, requires_grad=True)
        leaf.sum().backward()
        assert copy.deepcopy(leaf).grad.tolist() == [1.0, 1.0]  # a plain tensor keeps it


def test_generator_state_survives_save_and_load():
    for lib in (tl, torch):
        gen = lib.Generator().manual_seed(3)
        state = _round_trip(lib, {"rng": gen.get_state()})["rng"]
        expected = lib.rand(3, generator=gen)
        restored = lib.Generator()
        restored.set_state(state)
        assert lib.equal(lib.rand(3, generator=restored), expected)


def test_unsafe_globals_of_torch_files_are_listed():
    raw = _torch_file({"m": torch.nn.Linear(1, 1), "p": Point(1, 2),
                       "u": torch.ones(2, dtype=torch.uint16)})
    expected = torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw))
    assert sorted(tl.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw))) == sorted(
        expected) == [f"{__name__}.Point", "torch.nn.modules.linear.Linear"]
    with tl.serialization.safe_globals([tl.nn.Linear]):
        assert tl.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw)) == [
            f"{__name__}.Point"]
    with pytest.raises(RuntimeError, match="truncated"):
        tl.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(raw[:200]))


def test_deepcopy_keeps_views_sharing_their_storage():
    """copy.deepcopy copies each storage once, as PyTorch's: a tensor and its slice copied
    together still share memory, and a copied slice or transpose keeps its offset and strides."""
    torch = pytest.importorskip("torch")
    for lib in (tl, torch):
        a = lib.arange(6.0)
        b, w = copy.deepcopy((a, a[1:4]))
        w[0] = 100.0
        assert b.tolist() == [0.0, 100.0, 2.0, 3.0, 4.0, 5.0] and a[1].item() == 1.0
        t = copy.deepcopy(lib.arange(6.0).reshape(2, 3).t())
        assert t.stride() == (1, 3) and t.tolist() == [[0.0, 3.0], [1.0, 4.0], [2.0, 5.0]]
        assert copy.deepcopy(lib.arange(10.0)[2:5]).storage_offset() == 2


@pytest.mark.parametrize("map_location", ["meta", {"cpu": "meta"}])
def test_map_location_meta_loads_meta_tensors(map_location):
    """Shapes, dtypes, classes and requires_grad without values, as PyTorch's; a tensor saved
    twice stays one object."""
    layer = tl.nn.Linear(3, 2)
    buf = io.BytesIO()
    tl.save({"model": layer.state_dict(), "p": layer.weight, "again": layer.weight,
             "list": [tl.ones(2)], "n": 3}, buf)
    buf.seek(0)
    loaded = tl.load(buf, map_location=map_location, weights_only=False)
    assert loaded["model"]["weight"].is_meta and tuple(loaded["model"]["weight"].shape) == (2, 3)
    assert type(loaded["p"]) is tl.nn.Parameter and loaded["p"].is_meta
    assert loaded["p"].requires_grad and loaded["again"] is loaded["p"]
    assert loaded["list"][0].is_meta and loaded["n"] == 3
    assert type(loaded["model"]).__name__ == "OrderedDict"
