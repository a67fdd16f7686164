"""Tensor parallelism (tl.distributed.tensor.parallel) in real multi-process runs against one
process computing the same thing (tests/distributed/tensor_parallel.py, float64), and the
placement types and layout conversions that need no second process."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

from tinygrad_lite.distributed.tensor import Partial, Replicate, Shard
from tinygrad_lite.distributed.tensor._redistribute import convert, layout
from tinygrad_lite.distributed.tensor.parallel import (
    ColwiseParallel,
    PrepareModuleInput,
    PrepareModuleOutput,
    RowwiseParallel,
    SequenceParallel,
)

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "distributed"
mpiexec = Path(sys.executable).with_name("mpiexec")
needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None
    or not (mpiexec.exists() or shutil.which("mpiexec")),
    reason="MPI is not installed (pip install 'tinygrad-lite[distributed]')")


def launch(nproc: int, script: str, *args: str, timeout: float = 240) -> list[str]:
    """Run ``tests/distributed/<script>`` on ``nproc`` ranks with this checkout's package;
    the ranks that printed "rank R: ok"."""
    with tempfile.TemporaryDirectory(prefix="mpi-", ignore_cleanup_errors=True) as tmp:
        env = {**os.environ, "TMPDIR": tmp,
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        result = subprocess.run([sys.executable, "-m", "tinygrad_lite.distributed.run",
                                 "--nproc-per-node", str(nproc), str(HERE / script), *args],
                                capture_output=True, text=True, timeout=timeout, env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    return sorted(line for line in result.stdout.splitlines() if line.endswith(": ok"))


@needs_mpi
@pytest.mark.parametrize("nproc", [2, 4])
def test_mlp_attention_embedding_sequence_parallel_match_one_process(nproc):
    assert launch(nproc, "tensor_parallel.py", "tp") == [f"rank {r}: ok" for r in range(nproc)]


@needs_mpi
def test_tensor_parallel_inside_data_parallel_on_a_2x2_mesh():
    assert launch(4, "tensor_parallel.py", "mesh") == [f"rank {r}: ok" for r in range(4)]


def test_placements_compare_and_print_like_pytorch():
    assert Shard(0) == Shard(0) and Shard(0) != Shard(1) and Shard(-1) != Shard(1)
    assert Replicate() == Replicate() and Partial() == Partial("sum") and Partial() != Replicate()
    assert len({Shard(1), Shard(1), Replicate(), Replicate()}) == 2
    assert Shard(2).is_shard() and Shard(2).is_shard(2) and not Shard(2).is_shard(1)
    assert Replicate().is_replicate() and Partial().is_partial("sum")
    assert not Shard(0).is_replicate() and not Replicate().is_partial()
    torch_tensor = pytest.importorskip("torch.distributed.tensor")
    for ours, theirs in ((Shard(1), torch_tensor.Shard(1)), (Replicate(), torch_tensor.Replicate()),
                         (Partial(), torch_tensor.Partial())):
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    with pytest.raises(NotImplementedError, match="max"):
        Partial("max")


class _Alone:
    """A stand-in group: this is rank ``r`` of ``n`` (only moves without communication)."""

    def __init__(self, r: int, n: int) -> None:
        self.r, self.n = r, n

    def rank(self) -> int:
        return self.r

    def size(self) -> int:
        return self.n


def test_conversions_without_communication():
    x = np.arange(24.0).reshape(2, 4, 3)
    for r in range(2):
        group = _Alone(r, 2)
        np.testing.assert_array_equal(convert(x, group, Replicate(), Shard(1)),
                                      x[:, 2 * r:2 * r + 2])
        padded = convert(x, group, Shard(0), Partial())  # own chunk in place, zeros elsewhere
        assert padded.shape == (4, 4, 3)
        np.testing.assert_array_equal(padded[2 * r:2 * r + 2], x)
        np.testing.assert_array_equal(np.delete(padded, range(2 * r, 2 * r + 2), 0), 0)
        np.testing.assert_array_equal(convert(x, group, Replicate(), Partial()), x / 2)
    with pytest.raises(ValueError, match="does not split evenly"):
        convert(x, _Alone(0, 3), Replicate(), Shard(1))
    # the pairs Megatron-LM names f and g
    assert layout(Replicate(), False) == (Replicate(), Replicate())
    assert layout(Replicate(), True) == (Replicate(), Partial())
    assert layout(Partial(), False) == (Partial(), Replicate())


def test_styles_take_pytorchs_defaults_and_check_their_arguments():
    col, row = ColwiseParallel(), RowwiseParallel()
    assert col.input_layouts == (Replicate(),) and col.output_layouts == (Shard(-1),)
    assert row.input_layouts == (Shard(-1),) and row.output_layouts == (Replicate(),)
    assert col.use_local_output and row.use_local_output
    seq = SequenceParallel()
    assert seq.sequence_sharding == (Shard(1),) and not seq.use_local_output
    prep = PrepareModuleInput(input_layouts=(Shard(0), None),
                              desired_input_layouts=(Replicate(), None))
    assert prep.input_layouts == (Shard(0), None) and not prep.use_local_output
    with pytest.raises(AssertionError, match="same length"):
        PrepareModuleInput(input_layouts=(Shard(0), None), desired_input_layouts=Replicate())
    with pytest.raises(AssertionError, match="same length"):
        PrepareModuleOutput(output_layouts=(Shard(0), None), desired_output_layouts=Replicate())
