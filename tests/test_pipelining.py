"""tl.distributed.pipelining: schedules, stages and model splitting.

The schedules run for real on 2 and 4 ranks (``tests/distributed/pipelining.py`` through the
launcher, oversubscribed on small machines): outputs, losses and gradients against one process,
activation counts, bytes sent, a crash and a shape mismatch ending the job. The action lists,
microbatch splitting and ``pipeline()``'s splitting are checked here in-process (no MPI).
"""

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
from tinygrad_lite import nn
from tinygrad_lite.distributed.pipelining import (
    SplitPoint,
    TensorChunkSpec,
    merge_chunks,
    pipe_split,
    pipeline,
    split_args_kwargs_into_chunks,
)
from tinygrad_lite.distributed.pipelining.microbatch import _Replicate
from tinygrad_lite.distributed.pipelining.schedules import (
    _Action,
    gpipe_order,
    interleaved_1f1b_order,
    one_f_one_b_order,
    simulate,
)

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tests" / "distributed" / "pipelining.py"
mpiexec = Path(sys.executable).with_name("mpiexec")
needs_mpi = pytest.mark.skipif(
    importlib.util.find_spec("mpi4py") is None
    or not (mpiexec.exists() or shutil.which("mpiexec")),
    reason="MPI is not installed (pip install 'tinygrad-lite[distributed]')")


def launch(nproc: int, mode: str, timeout: float = 240) -> subprocess.CompletedProcess:
    """The test script on ``nproc`` ranks, importing this checkout's package, with Open MPI's
    session files in a temporary directory of its own."""
    with tempfile.TemporaryDirectory(prefix="mpi-", ignore_cleanup_errors=True) as tmp:
        env = {**os.environ, "TMPDIR": tmp,
               "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
        return subprocess.run([sys.executable, "-m", "tinygrad_lite.distributed.run",
                                "--nproc-per-node", str(nproc), str(SCRIPT), mode],
                               capture_output=True, text=True, timeout=timeout, env=env)


# -- real multi-rank runs ----------------------------------------------------------------------
@needs_mpi
@pytest.mark.parametrize("nproc", [2, 4])
def test_every_schedule_matches_one_process(nproc):
    result = launch(nproc, "all")
    assert result.returncode == 0, result.stdout + result.stderr
    ok = sorted(line for line in result.stdout.splitlines() if line.endswith(": ok"))
    assert ok == [f"rank {r}: ok" for r in range(nproc)]


@needs_mpi
@pytest.mark.parametrize("mode,message", [
    ("crash", "RuntimeError: rank 1 fails on purpose"),
    ("mismatch", "shape mismatch between stage 0 and stage 1: stage 0 sends outputs of shapes "
                 "[[4, 6] float64] but stage 1 expects inputs of shapes [[4, 5] float64]"),
])
def test_failures_end_the_job_with_the_ranks_error(mode, message):
    result = launch(2, mode, timeout=120)
    assert result.returncode != 0
    assert message in result.stderr
    assert "[tinygrad_lite.distributed rank 1] uncaught exception; aborting all ranks" \
        in result.stderr
    assert "should not get here" not in result.stdout


# -- the schedules' action lists ---------------------------------------------------------------
def live_peaks(actions: list[_Action]) -> dict[int, int]:
    peaks: dict[int, int] = {}
    live: dict[int, int] = {}
    for a in actions:
        live[a.stage_index] = live.get(a.stage_index, 0) + (1 if a.computation_type == "F"
                                                             else -1)
        peaks[a.stage_index] = max(peaks.get(a.stage_index, 0), live[a.stage_index])
    return peaks


@pytest.mark.parametrize("p", [1, 2, 3, 4, 8])
def test_gpipe_and_1f1b_orders_run_without_deadlock_with_their_memory_bounds(p):
    for m in range(1, 17):
        gpipe = {s: gpipe_order(s, m) for s in range(p)}
        # one tick per forward or backward: the ideal length is 2 (m + p - 1), bubble included
        assert simulate(gpipe, p) == 2 * (m + p - 1)
        assert all(live_peaks(a) == {s: m} for s, a in gpipe.items())
        if m < p:
            continue
        ofob = {s: one_f_one_b_order(s, p, m) for s in range(p)}
        assert simulate(ofob, p) == 2 * (m + p - 1)
        assert all(live_peaks(a) == {s: min(m, p - s)} for s, a in ofob.items())
        for actions in ofob.values():  # every microbatch once forward, once backward
            assert sorted(actions) == sorted(gpipe_order(actions[0].stage_index, m))


@pytest.mark.parametrize("p,v", [(2, 2), (2, 3), (4, 2), (3, 2)])
def test_interleaved_order_is_valid_and_shortens_the_pipeline(p, v):
    for m in range(p, 17):
        if m % max(1, m // p):
            continue
        order = {r: interleaved_1f1b_order(r, p, v, m) for r in range(p)}
        for r, actions in order.items():
            assert {a.stage_index for a in actions} == set(range(r, p * v, p))
            assert len(actions) == 2 * m * v and len(set(actions)) == 2 * m * v
        ticks = simulate(order, p * v)  # ticks of 1/v of a stage's work each
        one_stage_per_rank = 2 * (m + p - 1) * v
        assert ticks <= one_stage_per_rank
        if m == p:  # Megatron's bound on the bubble: (p - 1) / v of a stage's worth per pass
            assert ticks == 2 * (m * v + p - 1)


def test_simulate_reports_a_deadlock():
    order = {0: [_Action(0, "F", 0), _Action(0, "B", 0)],
             1: [_Action(1, "B", 0), _Action(1, "F", 0)]}  # backward before its forward
    with pytest.raises(RuntimeError, match="deadlocks"):
        simulate(order, 2)


# -- microbatches --------------------------------------------------------------------------------
def test_split_and_merge_follow_tensor_split():
    torch = pytest.importorskip("torch")
    x = np.arange(30.0).reshape(10, 3)
    args, kwargs = split_args_kwargs_into_chunks(
        (tl.tensor(x), 7, tl.tensor(x.T.copy())), {"mask": tl.tensor(x), "flag": True}, 4,
        args_chunk_spec=(TensorChunkSpec(0), _Replicate, TensorChunkSpec(1)))
    expected = [c.numpy() for c in torch.tensor_split(torch.tensor(x), 4)]
    assert [a[0].numpy().tolist() for a in args] == [e.tolist() for e in expected]
    assert [a[1] for a in args] == [7] * 4
    assert [a[2].numpy().tolist() for a in args] == [e.T.tolist() for e in expected]
    assert [k["mask"].numpy().tolist() for k in kwargs] == [e.tolist() for e in expected]
    assert all(k["flag"] is True for k in kwargs)
    merged = merge_chunks([(a[0], {"t": a[2]}) for a in args],
                          (TensorChunkSpec(0), {"t": TensorChunkSpec(1)}))
    np.testing.assert_array_equal(merged[0].numpy(), x)
    np.testing.assert_array_equal(merged[1]["t"].numpy(), x.T)
    with pytest.raises(ValueError, match="smaller than the number of chunks 4"):
        split_args_kwargs_into_chunks((tl.zeros(3, 2),), None, 4)
    assert TensorChunkSpec.from_tuple((0, 1))[1].split_dim == 1


# -- pipeline(): splitting a model -----------------------------------------------------------------
class Net(nn.Module):
    def __init__(self, marks: bool = False) -> None:
        super().__init__()
        tl.manual_seed(0)
        self.embed = nn.Linear(4, 6)
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(6, 6), nn.BatchNorm1d(6), nn.Tanh())
                                    for _ in range(4))
        self.head = nn.Linear(6, 2)
        self.marks = marks

    def forward(self, x):
        x = self.embed(x)
        for i, layer in enumerate(self.layers):
            if self.marks and i == 3:
                pipe_split()
            x = layer(x)
        return self.head(x)


def run_stages(pipe, x):
    out = x
    for i in range(pipe.num_stages):
        out = pipe.get_stage_module(i)(out)
    return out


def test_split_by_module_paths_inside_a_module_list():
    model = Net().double()
    x = tl.tensor(np.random.default_rng(0).standard_normal((5, 4)))
    stats = model.layers[0][1].running_mean.numpy().copy()
    pipe = pipeline(model, (x,), split_spec={"layers.1": SplitPoint.BEGINNING,
                                              "layers.2": SplitPoint.END})
    # tracing left the running statistics alone
    np.testing.assert_array_equal(model.layers[0][1].running_mean.numpy(), stats)
    assert pipe.num_stages == 3
    names = [sorted(dict(pipe.get_stage_module(i).named_parameters())) for i in range(3)]
    assert names[0] == sorted(n for n, _ in model.named_parameters()
                              if n.startswith(("embed.", "layers.0.")))
    assert names[1] == sorted(n for n, _ in model.named_parameters()
                              if n.startswith(("layers.1.", "layers.2.")))
    assert names[2] == sorted(n for n, _ in model.named_parameters()
                              if n.startswith(("layers.3.", "head.")))
    # the stages share the model's parameters and compute what it computes
    assert pipe.get_stage_module(2).head.weight is model.head.weight
    model.eval()
    expected = model(x).detach().numpy()
    np.testing.assert_array_equal(run_stages(pipe, x).detach().numpy(), expected)
    np.testing.assert_array_equal(pipe.split_gm(x).detach().numpy(), expected)
    np.testing.assert_array_equal(pipe(x).detach().numpy(), expected)
    inputs, outputs = pipe.info().stage_examples[1]
    assert [tuple(t.shape) for t in inputs] == [(5, 6)] and tuple(outputs[0].shape) == (5, 6)


def test_pipe_split_marks_and_sequential_models():
    model = Net(marks=True).double().eval()
    x = tl.tensor(np.random.default_rng(1).standard_normal((3, 4)))
    pipe = pipeline(model, (x,))
    assert pipe.num_stages == 2
    assert "layers.3.0.weight" in dict(pipe.get_stage_module(1).named_parameters())
    np.testing.assert_array_equal(run_stages(pipe, x).detach().numpy(), model(x).detach().numpy())
    seq = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Sequential(nn.Linear(3, 3), nn.Tanh()),
                        nn.Linear(3, 1)).double()
    pipe = pipeline(seq, (x,), split_spec={"2.1": SplitPoint.BEGINNING})  # inside a child
    assert pipe.num_stages == 2
    np.testing.assert_array_equal(run_stages(pipe, x).detach().numpy(), seq(x).detach().numpy())
    assert pipeline(seq, (x,)).get_stage_module(0) is seq  # no split: the model itself


class NotAChain(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)

    def forward(self, x):
        return self.b(self.a(x) * 2)


class InPlaceBetween(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a, self.b = nn.Linear(2, 2), nn.Linear(2, 2)

    def forward(self, x):
        h = self.a(x)
        h.mul_(2)  # the same tensor object, changed: not a chain
        return self.b(h)


def test_split_errors_name_the_module_and_the_reason():
    x = tl.ones(1, 2)
    with pytest.raises(ValueError, match="does not take exactly the output of a"):
        pipeline(InPlaceBetween(), (x,), split_spec={"b": SplitPoint.BEGINNING})
    with pytest.raises(ValueError, match=r"cannot split inside the root module \(NotAChain\): "
                                         r"the call of b does not take exactly the output of a"):
        pipeline(NotAChain(), (x,), split_spec={"b": SplitPoint.BEGINNING})
    seq = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
    with pytest.raises(ValueError, match="'2', which is not a submodule"):
        pipeline(seq, (x,), split_spec={"2": SplitPoint.BEGINNING})
    with pytest.raises(ValueError, match=r"leave stage\(s\) \[0\] with no submodule call"):
        pipeline(seq, (x,), split_spec={"0": SplitPoint.BEGINNING})
    with pytest.raises(TypeError, match="must be a SplitPoint"):
        pipeline(seq, (x,), split_spec={"1": "beginning"})
    assert pipeline(seq, (x,), split_spec={"0": SplitPoint.END}).num_stages == 2


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.first, self.second = Affine(), Affine()

    def forward(self, x, scale=1.0):
        return self.second(self.first(x, scale=scale), scale=2.0)


class Affine(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x, scale=1.0):
        return self.lin(x) * scale


def test_keyword_arguments_reach_the_first_stage_and_constants_stay():
    model = Scaled()
    x = tl.ones(3, 2)
    pipe = pipeline(model, (x,), {"scale": 3.0}, split_spec={"second": SplitPoint.BEGINNING})
    stage0, stage1 = pipe.get_stage_module(0), pipe.get_stage_module(1)
    expected = model(x, scale=5.0).detach().numpy()
    np.testing.assert_allclose(stage1(stage0(x, scale=5.0)).detach().numpy(), expected)
    np.testing.assert_allclose(pipe.split_gm(x, scale=5.0).detach().numpy(), expected)


class Pair(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(2, 2)

    def forward(self, x):
        return self.lin(x), x * 2


class TakesPair(nn.Module):
    def forward(self, pair):
        return pair[0] + pair[1]


class TakesTwo(nn.Module):
    def forward(self, a, b):
        return a - b


def test_tuple_outputs_pass_whole_through_sequential_and_unpacked_elsewhere():
    x = tl.ones(3, 2)
    seq = nn.Sequential(Pair(), TakesPair(), nn.Linear(2, 1))  # Sequential passes the tuple
    pipe = pipeline(seq, (x,), split_spec={"1": SplitPoint.BEGINNING})
    first = pipe.get_stage_module(0)(x)
    assert isinstance(first, tuple) and len(first) == 2
    np.testing.assert_allclose(pipe.get_stage_module(1)(*first).detach().numpy(),
                               seq(x).detach().numpy())

    class Unpacking(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.pair, self.two = Pair(), TakesTwo()

        def forward(self, x):
            return self.two(*self.pair(x))

    model = Unpacking()
    pipe = pipeline(model, (x,), split_spec={"two": SplitPoint.BEGINNING})
    np.testing.assert_allclose(pipe.split_gm(x).detach().numpy(), model(x).detach().numpy())
