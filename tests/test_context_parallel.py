"""Context parallelism: ring attention (``ops.ring_attention``) in one process on a ring of one
rank (gradcheck, against PyTorch's attention), the shard layout, and
``tl.distributed.tensor.experimental.context_parallel`` in a real 4-rank MPI job
(tests/distributed/context_parallel.py: cp = 1, 2, 4, causal and not, balanced and not, both
rotation methods, against single-process attention in float64)."""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest

import tinygrad_lite as tl
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's alias
from tinygrad_lite.distributed.tensor.experimental import _attention
from tinygrad_lite.nn._functional import attention as sdpa_module
from tinygrad_lite.ops import ring_attention as ra
from tinygrad_lite.ops.ring_attention import Chunk, shard_chunks

ROOT = Path(__file__).resolve().parent.parent
HERE = ROOT / "tests" / "distributed"
mpiexec = Path(sys.executable).with_name("mpiexec")
has_mpi = importlib.util.find_spec("mpi4py") is not None and (
    mpiexec.exists() or shutil.which("mpiexec") is not None)


class Solo:
    """A ring of one rank: nothing to send."""

    rank, size = 0, 1

    def rotate(self, array, tag):
        raise AssertionError("a ring of one rank sends nothing")


@pytest.mark.parametrize("block", [None, 4])
@pytest.mark.parametrize("is_causal", [False, True])
def test_ring_of_one_matches_pytorch_and_gradchecks(is_causal, block):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((2, 3, 10, 4)) for _ in range(3))
    tq, tk, tv = (tl.tensor(a, requires_grad=True) for a in (q, k, v))
    out, lse = ra.ring_attention(tq, tk, tv, Solo(), True, is_causal, 0.5, block)
    want = torch.nn.functional.scaled_dot_product_attention(
        *(torch.tensor(a) for a in (q, k, v)), is_causal=is_causal, scale=0.5)
    np.testing.assert_allclose(out.detach().numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    scores = torch.tensor(q) @ torch.tensor(k).transpose(-1, -2) * 0.5
    if is_causal:
        scores = scores.masked_fill(~torch.ones(10, 10, dtype=torch.bool).tril(), float("-inf"))
    np.testing.assert_allclose(lse, torch.logsumexp(scores, -1).numpy(), rtol=1e-12)

    def f(a, b, c):
        return ra.ring_attention(a, b, c, Solo(), True, is_causal, 0.5, block)[0]

    assert tl.autograd.gradcheck(f, (tq, tk, tv))


def test_shard_chunks_cover_the_sequence_once():
    for size in (1, 2, 4):
        for balanced in (True, False):
            n = 12 // size if not balanced else 16 // size
            seen = sorted(p for r in range(size)
                          for c in shard_chunks(r, size, n, balanced)
                          for p in range(c.start, c.start + c.length))
            assert seen == list(range(n * size))
    assert shard_chunks(1, 4, 4, True) == [Chunk(0, 2, 2), Chunk(2, 12, 2)]
    assert shard_chunks(1, 4, 4, False) == [Chunk(0, 4, 4)]


def test_attention_override_runs_and_is_removed():
    calls = []

    def fake(q, k, v, mask, dropout_p, is_causal, scale):
        calls.append((tuple(q.shape), is_causal, scale))
        return q * 0

    q = tl.ones(1, 2, 3, 4)
    sdpa_module.push_attention_override(fake)
    try:
        F.scaled_dot_product_attention(q, q, q, is_causal=True)
    finally:
        sdpa_module.pop_attention_override(fake)
    assert calls == [((1, 2, 3, 4), True, 0.5)]
    out = F.scaled_dot_product_attention(q, q, q)
    np.testing.assert_allclose(out.numpy(), np.ones((1, 2, 3, 4)))


def test_rotate_method_names():
    before = _attention._cp_options.rotate_method
    try:
        _attention.set_rotate_method("allgather")
        assert _attention._cp_options.rotate_method is _attention._RotateMethod.ALL_GATHER
        _attention.set_rotate_method("alltoall")
        assert _attention._cp_options.rotate_method is _attention._RotateMethod.ALL_TO_ALL
        with pytest.raises(NotImplementedError, match="'ring'"):
            _attention.set_rotate_method("ring")
    finally:
        _attention._cp_options.rotate_method = before


@pytest.mark.skipif(not has_mpi, reason="MPI is not installed "
                                        "(pip install 'tinygrad-lite[distributed]')")
def test_context_parallel_matches_single_process_attention_on_4_ranks():
    with tempfile.TemporaryDirectory(prefix="mpi-", ignore_cleanup_errors=True) as tmp:
        # this checkout's package in the ranks, whatever is installed
        path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
        result = subprocess.run(
            [sys.executable, "-m", "tinygrad_lite.distributed.run", "--nproc-per-node", "4",
             str(HERE / "context_parallel.py")], capture_output=True, text=True, timeout=300,
            env={**os.environ, "TMPDIR": tmp, "PYTHONPATH": path})
    assert result.returncode == 0, result.stdout + result.stderr
    assert sorted(line for line in result.stdout.splitlines() if line.endswith(": ok")) == \
        [f"rank {r}: ok" for r in range(4)]
