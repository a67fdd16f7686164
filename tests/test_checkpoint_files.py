"""Checkpoint files against a hostile or unlucky world: malformed and malicious files are
refused with an error naming the file (never a hang, a huge allocation or a bare Python error),
saves interrupted at any point leave nothing behind for long, and the bytes are deterministic
and readable by the safetensors package itself."""

import json
import os
import subprocess
import sys
import tracemalloc

import numpy as np
import pytest

import tinygrad_lite as tl
from tinygrad_lite.serialization.files import TMP_SUFFIX


def framed(header: dict, body: bytes = b"") -> bytes:
    text = json.dumps(header).encode()
    return len(text).to_bytes(8, "little") + text + body


def meta(value: str, tensors: dict | None = None) -> bytes:
    header = {"__metadata__": {"tinygrad_lite": value}, **(tensors or {})}
    return framed(header)


HOSTILE = {
    "deep_header": ((200_000).to_bytes(8, "little") + b"[" * 200_000, "not valid JSON"),
    "deep_metadata": (meta("[" * 100_000 + "]" * 100_000), "corrupt tinygrad_lite metadata"),
    "metadata_not_object": (meta("[1, 2]"), "corrupt tinygrad_lite metadata"),
    "tree_wrong_type": (meta('{"tree": 5}'), "corrupt tinygrad_lite structure"),
    "tree_wrong_node": (meta('{"tree": {"D": 5}}'), "corrupt tinygrad_lite structure"),
    "tree_missing_tensor": (meta('{"tree": {"T": "w"}}'), "corrupt tinygrad_lite structure"),
    "flat_wrong_type": (meta('{"flat": 7}'), "'flat' must be a list"),
    "metadata_values_not_strings": (framed({"__metadata__": {"a": 1}}), "map strings"),
    "header_too_long": ((10**12).to_bytes(8, "little") + b"{}", "header length field says"),
    "offsets_past_end": (framed({"w": {"dtype": "F32", "shape": [10**9],
                                       "data_offsets": [0, 4 * 10**9]}}), "is truncated"),
    "shape_offsets_disagree": (framed({"w": {"dtype": "F32", "shape": [3],
                                             "data_offsets": [0, 8]}}, b"\0" * 8), "needs 12"),
    "negative_shape": (framed({"w": {"dtype": "F32", "shape": [-1],
                                     "data_offsets": [0, 0]}}), "invalid shape"),
    "float_offsets": (framed({"w": {"dtype": "F32", "shape": [1],
                                    "data_offsets": [0.0, 4.0]}}, b"\0" * 4), "data_offsets"),
    "overlap": (framed({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
                        "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}},
                       b"\0" * 12), "hole or overlapping"),
    "hole": (framed({"a": {"dtype": "U8", "shape": [2], "data_offsets": [2, 4]}}, b"\0" * 4),
             "hole or overlapping"),
    "unknown_dtype": (framed({"w": {"dtype": "F8_E4M3", "shape": [1],
                                    "data_offsets": [0, 1]}}, b"\0"), "unsupported dtype"),
    "bfloat16-short": (framed({"w": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 4]}},
                              b"\0" * 4), "BF16, shape .3.. needs 6 bytes"),
    "entry_not_object": (framed({"w": 3}), "not an object"),
    "torch_zip": (b"PK\x03\x04" + b"\0" * 60, "not a readable torch.save file"),
    "plain_pickle": (b"\x80\x02}q\x00." + b"\0" * 10,
                     "is a pickle file .*neither a safetensors file nor a PyTorch zip"),
    "torch_legacy_pickle": (b"\x80\x02\x8a\x0a" + (0x1950A86A20F9469CFC6C).to_bytes(10, "little")
                            + b"." + b"\0" * 10, "written by torch.save in its legacy"),
    "text": (b"hello world, this is a text file\n" * 10,
             "is not a checkpoint .safetensors or PyTorch zip.: the header length field says"),
    "random_bytes": (bytes(range(7, 256)) * 2, r"is not a checkpoint .safetensors or PyTorch zip."),
    "zero_times_huge_shape": (framed({"w": {"dtype": "F32", "shape": [0, 2**62],
                                            "data_offsets": [0, 0]}}), "'w' has shape .* too big"),
    "zero_times_overflowing_shape": (framed({"w": {"dtype": "F64", "shape": [2**40, 0, 2**40],
                                                   "data_offsets": [0, 0]}}), "'w' .* too big"),
    "too_many_dimensions": (framed({"w": {"dtype": "U8", "shape": [1] * 65,
                                          "data_offsets": [0, 1]}}, b"\0"),
                            "'w' has 65 dimensions, more than 64"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_hostile_file_is_refused_naming_the_file(tmp_path, case):
    data, message = HOSTILE[case]
    path = tmp_path / f"{case}.safetensors"
    path.write_bytes(data)
    with pytest.raises(RuntimeError, match=message) as info:
        tl.load(path)
    assert str(path) in str(info.value)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_symlink_to_a_device_is_not_read(tmp_path):
    link = tmp_path / "zero.safetensors"
    link.symlink_to("/dev/zero")
    with pytest.raises(RuntimeError, match="is a device"):
        tl.load(link)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_fifo_is_refused_without_hanging(tmp_path):
    fifo = tmp_path / "pipe.safetensors"
    os.mkfifo(fifo)
    with pytest.raises(RuntimeError, match="is a FIFO"):
        tl.load(fifo)


def test_plain_pickle_and_text_files_say_what_they_are(tmp_path):
    import pickle

    path = tmp_path / "data.pkl"
    with open(path, "wb") as fh:
        pickle.dump({"w": [1.0, 2.0]}, fh)  # the default protocol: a FRAME after PROTO
    with pytest.raises(RuntimeError, match="is a pickle file") as info:
        tl.load(path)
    assert "legacy" not in str(info.value) and "pickle.load" in str(info.value)
    for protocol in (2, 3, 4, 5):  # torch's legacy header in every protocol torch.save may use
        path.write_bytes(pickle.dumps(0x1950A86A20F9469CFC6C, protocol=protocol) + b"\0" * 8)
        with pytest.raises(RuntimeError, match="legacy .pre-1.6. pickle format"):
            tl.load(path)
    text = tmp_path / "notes.txt"
    text.write_text("not a checkpoint\n" * 20)
    with pytest.raises(RuntimeError, match=r"notes.txt' is not a checkpoint \(safetensors or "
                                           r"PyTorch zip\): the header length field says"):
        tl.load(text)


def test_plain_pickle_is_refused_with_pytorchs_exception_type(tmp_path):
    import pickle

    torch = pytest.importorskip("torch")
    path = tmp_path / "data.pkl"
    path.write_bytes(pickle.dumps({"w": [1.0]}))
    with pytest.raises(RuntimeError, match="magic number"):  # PyTorch: not its legacy header
        torch.load(path, weights_only=False)
    with pytest.raises(RuntimeError, match="is a pickle file"):
        tl.load(path, weights_only=False)
    legacy = tmp_path / "legacy.pt"  # and a real legacy file is still told apart from it
    torch.save({"w": torch.ones(2)}, legacy, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="legacy .pre-1.6. pickle format"):
        tl.load(legacy)


def test_many_empty_tensors_load_in_bounded_memory(tmp_path):
    # 100,000 empty tensors: a 6.6 MB header. Reading it once held a dict and two lists per entry
    # besides the result (peak 82 MiB); the result itself (100,000 tensors) is ~40 MiB.
    n = 100_000
    path = tmp_path / "empty.safetensors"
    path.write_bytes(framed({f"t{i}": {"dtype": "F32", "shape": [0], "data_offsets": [0, 0]}
                             for i in range(n)}))
    tracemalloc.start()
    try:
        state = tl.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(state) == n and state["t7"].shape == (0,) and state["t7"].dtype == tl.float32
    assert peak < 65 * 2**20, f"peak {peak / 2**20:.1f} MiB"


def test_real_torch_save_file_loads(tmp_path):
    # PyTorch's own archive format is read (tests/test_serialization_torch_files.py); its
    # legacy pre-1.6 pickle format is refused with a way out
    torch = pytest.importorskip("torch")
    path = tmp_path / "model.pt"
    torch.save({"w": torch.ones(3)}, path)
    assert tl.load(path)["w"].tolist() == [1.0, 1.0, 1.0]
    torch.save({"w": torch.ones(3)}, path, _use_new_zipfile_serialization=False)
    with pytest.raises(RuntimeError, match="safetensors.torch import save_file"):
        tl.load(path)


def test_file_objects_round_trip(tmp_path):
    import io

    state = {"w": tl.arange(6.0).reshape(2, 3), "step": 3, "names": ["a", "b"]}
    buffer = io.BytesIO()
    tl.save(state, buffer)
    buffer.seek(0)
    back = tl.load(buffer)
    np.testing.assert_array_equal(back["w"].numpy(), state["w"].numpy())
    assert back["step"] == 3 and back["names"] == ["a", "b"]
    with open(tmp_path / "x.st", "wb") as fh:
        tl.save(state, fh)
    with open(tmp_path / "x.st", "rb") as fh:
        assert tl.load(fh)["step"] == 3
    with open(tmp_path / "x.st") as fh, pytest.raises(TypeError, match="'rb'"):
        tl.load(fh)


def test_stale_temporary_of_a_killed_save_is_removed(tmp_path):
    target = tmp_path / "ck.safetensors"
    dead_pid = 2**22 + 12345  # above the default pid_max: no such process
    stale = tmp_path / f".ck.safetensors.{dead_pid}.abc{TMP_SUFFIX}"
    stale.write_bytes(b"x" * 1000)
    alive = tmp_path / f".ck.safetensors.{os.getppid()}.abc{TMP_SUFFIX}"  # a live writer's
    alive.write_bytes(b"y")
    tl.save({"w": tl.ones(2)}, target)
    assert not stale.exists() and alive.exists()
    stale.write_bytes(b"x")
    tl.load(target)
    assert not stale.exists()


def test_failed_save_leaves_no_temporary(tmp_path, monkeypatch):
    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError, match="disk full"):
        tl.save({"w": tl.ones(2)}, tmp_path / "ck.safetensors")
    assert os.listdir(tmp_path) == []


def test_kill_during_save_then_save_again_leaves_one_file(tmp_path):
    script = ("import os, signal, tinygrad_lite as tl\n"
              "import tinygrad_lite.serialization.files as files\n"
              "def die(fd): os.kill(os.getpid(), signal.SIGKILL)\n"
              "files.os.fsync = die\n"
              f"tl.save({{'w': tl.ones(1000)}}, {str(tmp_path / 'ck.safetensors')!r})\n")
    subprocess.run([sys.executable, "-c", script], timeout=120)
    assert any(p.name.endswith(TMP_SUFFIX) for p in tmp_path.iterdir())  # what a kill leaves
    tl.save({"w": tl.ones(2)}, tmp_path / "ck.safetensors")
    assert [p.name for p in tmp_path.iterdir()] == ["ck.safetensors"]


def test_mode_follows_umask_and_existing_file(tmp_path):
    old = os.umask(0o027)
    try:
        tl.save({"w": tl.ones(1)}, tmp_path / "a.st")
    finally:
        os.umask(old)
    assert (tmp_path / "a.st").stat().st_mode & 0o777 == 0o640
    os.chmod(tmp_path / "a.st", 0o600)
    tl.save({"w": tl.ones(1)}, tmp_path / "a.st")
    assert (tmp_path / "a.st").stat().st_mode & 0o777 == 0o600


def test_saving_to_a_symlink_writes_through_it(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "ck.st"
    link = tmp_path / "latest.st"
    tl.save({"w": tl.ones(1)}, target)
    link.symlink_to(target)
    tl.save({"w": tl.zeros(3)}, link)
    assert link.is_symlink()
    assert tl.load(target)["w"].shape == (3,)


def test_same_state_gives_same_bytes_in_two_processes(tmp_path):
    script = ("import sys, tinygrad_lite as tl\n"
              "state = {'b': tl.arange(4.0), 'a': {'lr': 0.1, 'z': [1, 2]}, 'c': tl.ones(2)}\n"
              "tl.save(state, sys.argv[1])\n")
    for name in ("one", "two"):
        subprocess.run([sys.executable, "-c", script, str(tmp_path / name)], check=True,
                       timeout=120, env={**os.environ, "PYTHONHASHSEED": name == "one" and "1"
                                         or "2"})
    assert (tmp_path / "one").read_bytes() == (tmp_path / "two").read_bytes()


def test_files_interoperate_with_the_safetensors_package(tmp_path):
    st = pytest.importorskip("safetensors.numpy")
    ours = {"w": tl.randn(3, 4), "i": tl.arange(5), "m": tl.ones(2, dtype=tl.bool)}
    tl.save(ours, tmp_path / "ours.st")
    theirs = st.load_file(str(tmp_path / "ours.st"))
    for k, v in ours.items():
        np.testing.assert_array_equal(theirs[k], v.numpy())
    st.save_file({"x": np.arange(6, dtype=np.float16).reshape(2, 3), "e": np.zeros((0, 2))},
                 str(tmp_path / "theirs.st"), metadata={"note": "hi"})
    back = tl.load(tmp_path / "theirs.st")
    assert back["x"].dtype == tl.float16 and back["x"].shape == (2, 3)
    assert back["e"].shape == (0, 2)


def test_many_small_tensors_load_without_large_overhead(tmp_path):
    # the bound is per tensor (peak over file size), so 20,000 tensors show an overhead as
    # well as 100,000 would, in a fifth of the time (tracemalloc slows every allocation)
    state = {f"layer{i}.w": tl.ones(16) for i in range(20_000)}
    path = tmp_path / "many.st"
    tl.save(state, path)
    size = path.stat().st_size
    tracemalloc.start()
    loaded = tl.load(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(loaded) == 20_000
    assert peak < 10 * size, f"peak {peak / 2**20:.1f} MiB for a {size / 2**20:.1f} MiB file"
