"""tl.distributed and DistributedDataParallel in real multi-process runs: each test starts
``python -m tinygrad_lite.distributed.run`` (mpiexec underneath, 2 or 4 ranks oversubscribed
on the CI's 2 cores). Skipped, with the reason, only where MPI cannot be found."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import tinygrad_lite.distributed as dist

HERE = Path(__file__).resolve().parent / "distributed"
mpiexec = Path(sys.executable).with_name("mpiexec")
# mpi4py and mpiexec are looked for, not loaded: importing mpi4py.MPI here (dist.is_available())
# would start MPI inside pytest's own process, whose session directory outlives the test session
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None
    or not (mpiexec.exists() or shutil.which("mpiexec")),
    reason="MPI is not installed (pip install 'tinygrad-lite[distributed]')")


def run(cmd: list[str], timeout: float) -> subprocess.CompletedProcess:
    """Run ``cmd`` with a temporary directory of its own for Open MPI's session directories,
    removed afterwards, also when a rank aborted and its files were left behind."""
    with tempfile.TemporaryDirectory(prefix="mpi-", ignore_cleanup_errors=True) as tmp:
        # the ranks import this checkout's package (a script's own folder comes first on its
        # path, so without this they would import whichever copy is installed)
        path = os.pathsep.join([str(HERE.parent.parent), os.environ.get("PYTHONPATH", "")])
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, "TMPDIR": tmp, "PYTHONPATH": path})


def launch(nproc: int, script: str, *args: str,
           timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``tests/distributed/<script>`` on ``nproc`` ranks through the launcher."""
    return run([sys.executable, "-m", "tinygrad_lite.distributed.run", "--nproc-per-node",
                str(nproc), str(HERE / script), *args], timeout=timeout)


def ok_ranks(result: subprocess.CompletedProcess) -> list[str]:
    return sorted(line for line in result.stdout.splitlines() if line.endswith(": ok"))


@pytest.mark.parametrize("nproc", [2, 4])
def test_every_collective_and_reduce_op_against_numpy(nproc):
    result = launch(nproc, "collectives.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ok_ranks(result) == [f"rank {r}: ok" for r in range(nproc)]


@pytest.mark.parametrize("kind,nproc", [("mlp", 2), ("mlp", 4), ("cnn", 2)])
def test_ddp_matches_one_process_with_the_whole_batch(kind, nproc, tmp_path):
    out = tmp_path / "params.npz"
    result = launch(nproc, "ddp_equivalence.py", kind, "10", str(out))
    assert result.returncode == 0, result.stdout + result.stderr
    saved = np.load(out)
    names = [k[4:] for k in saved if k.startswith("ddp.")]
    assert names
    for name in names:  # SyncBatchNorm in the CNN: its running statistics match too
        np.testing.assert_allclose(saved[f"ddp.{name}"], saved[f"ref.{name}"], rtol=1e-6,
                                   atol=1e-12, err_msg=name)


@pytest.mark.parametrize("mode", ["no_sync", "unused"])
def test_ddp_no_sync_and_find_unused_parameters(mode):
    result = launch(2, "ddp_features.py", mode)
    assert result.returncode == 0, result.stdout + result.stderr
    assert len(ok_ranks(result)) == 2


@pytest.mark.parametrize("mode,message", [
    ("unused_error", "find_unused_parameters=True"),
    ("mismatch", "have different parameters"),
    ("crash", "rank 1 fails on purpose"),
])
def test_failures_end_the_job_with_a_clear_error_not_a_hang(mode, message):
    result = launch(2, "ddp_features.py", mode, timeout=60)
    assert result.returncode != 0
    assert message in result.stderr
    assert "aborting all ranks" in result.stderr


def test_launcher_builds_an_mpiexec_command():
    from tinygrad_lite.distributed.run import mpiexec_command

    cmd = mpiexec_command(3, ["train.py", "--lr", "0.1"])
    assert cmd[1:4] == ["-n", "3", "--oversubscribe"] and cmd[-3:] == ["train.py", "--lr", "0.1"]
    assert sys.executable in cmd


def test_single_process_without_mpiexec_is_world_of_one():
    script = ("import tinygrad_lite as tl, tinygrad_lite.distributed as dist\n"
              "dist.init_process_group('gloo')\n"
              "t = tl.ones(2); dist.all_reduce(t)\n"
              "print(dist.get_world_size(), dist.get_rank(), t.numpy().tolist())\n")
    result = run([sys.executable, "-c", script], timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1 0 [1.0, 1.0]"


def test_errors_before_init_and_for_cuda_backends():
    with pytest.raises(ValueError, match="has not been initialized"):
        dist.get_rank()
    with pytest.raises(RuntimeError, match="NCCL"):
        dist.init_process_group("nccl")


def test_distributed_sampler_partitions_like_pytorch():
    from tinygrad_lite.utils.data.distributed import DistributedSampler

    for n, ranks, drop_last in ((10, 3, False), (10, 3, True), (2, 4, False), (12, 4, False)):
        shares = [list(DistributedSampler(range(n), ranks, r, shuffle=False,
                                          drop_last=drop_last)) for r in range(ranks)]
        assert len({len(s) for s in shares}) == 1
        covered = sorted(i for s in shares for i in s)
        if not drop_last:
            assert set(covered) == set(range(n)) and len(covered) >= n
        torch_data = pytest.importorskip("torch.utils.data.distributed")
        expected = [list(torch_data.DistributedSampler(range(n), ranks, r, shuffle=False,
                                                       drop_last=drop_last))
                    for r in range(ranks)]
        assert shares == expected
    sampler = DistributedSampler(range(20), 2, 0, shuffle=True, seed=3)
    first = list(sampler)
    sampler.set_epoch(1)
    assert sorted(first) != first and list(sampler) != first
    with pytest.raises(ValueError, match="Invalid rank"):
        DistributedSampler(range(4), 2, 2)


def test_ddp_digits_example_on_two_ranks():
    pytest.importorskip("sklearn")
    example = Path(__file__).resolve().parent.parent / "examples" / "ddp_digits.py"
    result = run([sys.executable, "-m", "tinygrad_lite.distributed.run", "--nproc-per-node", "2",
                  str(example), "--epochs", "8"], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    accuracy = float(result.stdout.split("test accuracy ")[-1].split("%")[0]) / 100
    assert accuracy > 0.9


def test_device_mesh_groups_coordinates_and_sub_meshes():
    result = launch(4, "device_mesh.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ok_ranks(result) == [f"rank {r}: ok" for r in range(4)]


def test_p2p_batches_object_lists_subgroups_coalesced_and_monitored_barrier():
    result = launch(2, "p2p_and_groups.py")
    assert result.returncode == 0, result.stdout + result.stderr
    assert ok_ranks(result) == ["rank 0: ok", "rank 1: ok"]


def test_backend_names_errors_and_launch_environment(monkeypatch):
    assert dist.Backend("NCCL") == "nccl" and type(dist.Backend("mpi")) is str
    assert dist.Backend.GLOO == "gloo" and "xccl" in dist.Backend.backend_list
    with pytest.raises(ValueError, match="Invalid backend"):
        dist.Backend("tcp")
    assert not (dist.is_nccl_available() or dist.is_ucc_available() or dist.is_xccl_available())
    assert not dist.is_backend_available("nccl")
    for kind in (dist.DistBackendError, dist.DistNetworkError, dist.DistStoreError):
        assert issubclass(kind, dist.DistError) and issubclass(kind, RuntimeError)
    monkeypatch.delenv("TORCHELASTIC_RUN_ID", raising=False)
    assert not dist.is_torchelastic_launched()
    monkeypatch.setenv("TORCHELASTIC_RUN_ID", "abc")
    assert dist.is_torchelastic_launched()
    for variable in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"):
        monkeypatch.delenv(variable, raising=False)
    with pytest.raises(RuntimeError, match="LOCAL_RANK"):
        dist.get_node_local_rank()
    assert dist.get_node_local_rank(fallback_rank=3) == 3
    monkeypatch.setenv("OMPI_COMM_WORLD_LOCAL_RANK", "2")
    assert dist.get_node_local_rank() == 2
    monkeypatch.setenv("LOCAL_RANK", "1")
    assert dist.get_node_local_rank(fallback_rank=3) == 1
    torch_dist = pytest.importorskip("torch.distributed")
    assert set(dist.Backend.backend_list) <= set(torch_dist.Backend.backend_list)


@pytest.mark.parametrize("kind", ["hash", "file", "tcp", "prefix"])
def test_stores_follow_pytorchs_semantics(kind, tmp_path):
    from datetime import timedelta

    make = {"hash": dist.HashStore, "file": lambda: dist.FileStore(str(tmp_path / "store")),
            "tcp": lambda: dist.TCPStore("127.0.0.1", 0, 1, True),
            "prefix": lambda: dist.PrefixStore("job", dist.HashStore())}[kind]
    store = make()
    store.set("a", "x")
    assert store.get("a") == b"x" and store.add("n", 3) == 3 and store.add("n", 2) == 5
    assert store.get("n") == b"5" and store.num_keys() == 2 and store.check(["a", "n"])
    assert store.compare_set("a", "x", "y") == b"y" and store.compare_set("a", "z", "w") == b"y"
    assert store.compare_set("absent", "q", "r") == b"q" and not store.check(["absent"])
    assert store.compare_set("absent", "", "v") == b"v"
    store.append("log", b"ab")
    store.append("log", "cd")
    store.multi_set(["k1", "k2"], ["v1", b"v2"])
    assert store.multi_get(["log", "k2"]) == [b"abcd", b"v2"]
    assert store.delete_key("a") and not store.delete_key("a")
    store.set_timeout(timedelta(milliseconds=50))
    assert store.timeout == timedelta(milliseconds=50)
    with pytest.raises(dist.DistStoreError, match="timeout"):
        store.get("missing")
    with pytest.raises(dist.DistStoreError, match="timeout"):
        store.wait(["missing"], timedelta(milliseconds=20))
    if kind == "tcp":  # a second client sees the same keys
        client = dist.TCPStore("127.0.0.1", store.port)
        assert client.get("k1") == b"v1" and sorted(client.list_keys()) == sorted(
            store.list_keys())
    if kind == "prefix":
        assert store.underlying_store.get("job/k1") == b"v1"
