"""Run under mpiexec: pipeline parallelism against one process computing the same thing.

    argv: mode
      all       every schedule (GPipe, 1F1B, interleaved 1F1B with 2 stages per rank) for
                n_microbatches in {p, 2p, 8}, two steps each, on a hand-split MLP; then a model
                split by pipeline() (split_spec paths inside a ModuleList) under 1F1B.
                Checks outputs, the sum of losses and every parameter gradient (1e-10), the
                number of live activations per stage against the schedule, the bytes sent and
                that nothing is left over after a step. Prints "rank r: ok".
      crash     rank 1's stage raises in its forward; the job must end with that error
      mismatch  stage 1 declares inputs of another shape than stage 0 sends
"""

import sys

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
from tinygrad_lite import nn
from tinygrad_lite.distributed.pipelining import (
    PipelineStage,
    Schedule1F1B,
    ScheduleGPipe,
    ScheduleInterleaved1F1B,
    SplitPoint,
    pipeline,
)

TOL = dict(rtol=1e-10, atol=1e-10)
BATCH, WIDTH, IN, OUT = 16, 6, 4, 3


def blocks(count: int) -> nn.Sequential:
    """``count`` blocks (Linear + Tanh; the last a bare Linear), float64, seeded."""
    tl.manual_seed(0)
    layers = []
    for i in range(count):
        fan_in = IN if i == 0 else WIDTH
        if i == count - 1:
            layers.append(nn.Linear(fan_in, OUT))
        else:
            layers.append(nn.Sequential(nn.Linear(fan_in, WIDTH), nn.Tanh()))
    return nn.Sequential(*layers).double()


def data(step: int):
    rng = np.random.default_rng(100 + step)
    return tl.tensor(rng.standard_normal((BATCH, IN))), tl.tensor(rng.standard_normal((BATCH, OUT)))


def reference(model, x, y, m):
    """One process: the whole model on each microbatch, mean of the microbatch losses."""
    model.zero_grad()
    outs, total = [], 0.0
    for xc, yc in zip(tl.tensor_split(x, m), tl.tensor_split(y, m)):
        out = model(xc)
        loss = nn.functional.mse_loss(out, yc)
        (loss / m).backward()
        outs.append(out.detach())
        total += loss.item()
    grads = {name: p.grad.numpy().copy() for name, p in model.named_parameters()}
    return tl.cat(outs).numpy(), total, grads


def probe_receives(stages):
    """Record, each time a stage takes a microbatch's received data, which receives it had
    posted: {(kind, microbatch): set of (kind, microbatch) posted}."""
    posted = {}
    for stage in stages:
        def take(kind, mb, stage=stage, original=stage._take_recv):
            posted[(stage.stage_index, kind, mb)] = set(stage._recvs)
            return original(kind, mb)
        stage._take_recv = take
    return posted


def predicted_peaks(order, stages):
    """Live activations per stage implied by a rank's action list: forwards minus backwards."""
    peaks = {}
    for s in stages:
        live = peak = 0
        for action in order:
            if action.stage_index == s:
                live += 1 if action.computation_type == "F" else -1
                peak = max(peak, live)
        peaks[s] = peak
    return peaks


def check_step(kind, schedule, stages, x, y, m, ref, names_of, rank, world):
    """One step of ``schedule`` against the reference; stages: this rank's."""
    for stage in stages:
        stage.submod.zero_grad()
    losses = []
    has_first = any(s.is_first for s in stages)
    has_last = any(s.is_last for s in stages)
    args = (x,) if has_first else ()
    out = schedule.step(*args, target=y if has_last else None, losses=losses)
    ref_out, ref_total, ref_grads = ref
    where = f"{kind} p={world} m={m} rank {rank}"
    if has_last:
        np.testing.assert_allclose(out.numpy(), ref_out, **TOL, err_msg=where)
        assert len(losses) == m, where
        np.testing.assert_allclose(sum(loss.item() for loss in losses), ref_total, **TOL,
                                   err_msg=where)
    else:
        assert out is None and losses == [], where
    order = schedule.pipeline_order[rank]
    peaks = predicted_peaks(order, [s.stage_index for s in stages])
    for stage in stages:
        for name, p in stage.submod.named_parameters():
            np.testing.assert_allclose(p.grad.numpy(), ref_grads[names_of[stage.stage_index](name)],
                                       **TOL, err_msg=f"{where} stage {stage.stage_index} {name}")
        s, p_ = stage.stage_index, stage.num_stages
        expected_peak = {"gpipe": m, "1f1b": min(m, p_ - s)}.get(kind, peaks[s])
        assert stage.peak_live_activations == expected_peak == peaks[s], \
            (where, s, stage.peak_live_activations, expected_peak, peaks[s])
        # nothing left over: no live activation, pending transfer or stored graph
        assert stage.live_activations == 0 and not stage._saved and not stage._recvs \
            and not stage._sends, where
        out_bytes = int(np.prod(stage.outputs_meta[0][0])) * 8
        in_bytes = int(np.prod(stage.inputs_meta[0][0])) * 8
        expected_bytes = m * (out_bytes * (not stage.is_last) + in_bytes * (not stage.is_first))
        assert stage.bytes_sent == expected_bytes, (where, stage.bytes_sent, expected_bytes)


def run_all() -> None:
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    ref_model = blocks(2 * world)
    for kind in ("gpipe", "1f1b", "interleaved"):
        for m in sorted({world, 2 * world, 8}):
            model = blocks(2 * world)  # same weights as ref_model
            if kind == "interleaved":  # 2 stages per rank: stage i is block i, on rank i % p
                indices = [rank, rank + world]
                stages = [PipelineStage(model[i], i, 2 * world, "cpu") for i in indices]
                names_of = {i: (lambda n, i=i: f"{i}.{n}") for i in indices}
                schedule = ScheduleInterleaved1F1B(stages, m, loss_fn=nn.functional.mse_loss)
            else:  # one stage per rank: blocks 2r and 2r + 1
                sub = nn.Sequential(model[2 * rank], model[2 * rank + 1])
                stages = [PipelineStage(sub, rank, world, "cpu")]
                names_of = {rank: (lambda n: f"{2 * rank + int(n[0])}{n[1:]}")}
                cls = ScheduleGPipe if kind == "gpipe" else Schedule1F1B
                schedule = cls(stages[0], m, loss_fn=nn.functional.mse_loss)
            posted = probe_receives(stages)
            where = f"{kind} m={m} rank {rank}"
            for step in range(2):  # the second step reuses the settled shapes and buffers
                x, y = data(step)
                posted.clear()
                check_step(kind, schedule, stages, x, y, m, reference(ref_model, x, y, m),
                           names_of, rank, world)
                if kind != "interleaved":
                    # receives go out ahead: microbatch i + 1's input (or output gradient) is
                    # already on its way while microbatch i computes
                    expected = {("F", i) for i in range(m - 1) if rank > 0} | \
                        {("B", i) for i in range(m - 1) if rank < world - 1}
                    assert {(k, i) for _, k, i in posted if i < m - 1} == expected, where
                    for (_, k, i), ahead in posted.items():
                        assert i == m - 1 or (k, i + 1) in ahead, (kind, m, k, i, ahead)
    run_split(rank, world)
    run_errors_and_eval(rank, world, ref_model)
    dist.destroy_process_group()
    print(f"rank {rank}: ok")


class Net(nn.Module):
    """Embedding layer, a list of blocks run in a loop, a head: split inside the list."""

    def __init__(self, depth: int) -> None:
        super().__init__()
        tl.manual_seed(1)
        self.embed = nn.Linear(IN, WIDTH)
        self.layers = nn.ModuleList(nn.Sequential(nn.Linear(WIDTH, WIDTH), nn.Tanh())
                                    for _ in range(depth))
        self.head = nn.Linear(WIDTH, OUT)

    def forward(self, x):
        x = self.embed(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def run_split(rank: int, world: int) -> None:
    """pipeline() with split_spec paths: stage r starts at layers.(2r)."""
    m = 2 * world
    model, ref_model = Net(2 * world).double(), Net(2 * world).double()
    x, y = data(7)
    spec = {f"layers.{2 * r}": SplitPoint.BEGINNING for r in range(1, world)}
    pipe = pipeline(model, (tl.tensor_split(x, m)[0],), split_spec=spec)
    assert pipe.num_stages == world
    stage = pipe.build_stage(rank, "cpu")
    schedule = Schedule1F1B(stage, m, loss_fn=nn.functional.mse_loss)
    check_step("1f1b", schedule, [stage], x, y, m, reference(ref_model, x, y, m),
               {rank: (lambda n: n)}, rank, world)


def run_errors_and_eval(rank: int, world: int, ref_model) -> None:
    """Argument errors raised before any communication, and a forward-only eval()."""
    model = blocks(2 * world)
    sub = nn.Sequential(model[2 * rank], model[2 * rank + 1])
    stage = PipelineStage(sub, rank, world, "cpu")
    for call, error, text in [
        (lambda: Schedule1F1B(stage, world - 1), ValueError, "must be greater than or equal"),
        (lambda: PipelineStage(sub, (rank + 1) % world, world, "cpu"), ValueError,
         "belongs on group rank"),
        (lambda: PipelineStage(sub, world, world, "cpu"), ValueError, "must lie in"),
        (lambda: ScheduleGPipe([stage], 2), TypeError, "expected a PipelineStage"),
    ]:
        try:
            call()
        except error as exc:
            assert text in str(exc), (text, str(exc))
        else:
            raise AssertionError(f"expected {error.__name__}: {text}")
    if world == 2:  # 5 microbatches make 2 rounds of 2.5
        stages = [PipelineStage(model[i], i, 2 * world, "cpu") for i in (rank, rank + world)]
        try:
            ScheduleInterleaved1F1B(stages, 5)
        except ValueError as exc:
            assert "multiple of the number of rounds" in str(exc)
        else:
            raise AssertionError("interleaved 1F1B accepted 5 microbatches in 2 rounds")
    schedule = Schedule1F1B(stage, world, loss_fn=nn.functional.mse_loss)
    with tl.no_grad():
        try:
            schedule.step()
        except RuntimeError as exc:
            assert "no_grad" in str(exc)
        else:
            raise AssertionError("step() ran under no_grad")
    # scale_grads=False: the gradients are the sum over microbatches, not the mean
    m = 2 * world
    summed = Schedule1F1B(PipelineStage(sub, rank, world, "cpu"), m,
                          loss_fn=nn.functional.mse_loss, scale_grads=False)
    x, y = data(4)
    _, _, ref_grads = reference(ref_model, x, y, m)
    sub.zero_grad()
    summed.step(*((x,) if rank == 0 else ()), target=y if rank == world - 1 else None)
    for name, p in sub.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), m * ref_grads[f"{2 * rank + int(name[0])}"
                                                                 f"{name[1:]}"], **TOL)
    x, y = data(3)
    out = schedule.eval(*((x,) if rank == 0 else ()))
    if rank == world - 1:
        np.testing.assert_allclose(out.numpy(), ref_model(x).detach().numpy(), **TOL)
        assert stage.peak_live_activations == 0  # forward only: nothing kept for backward
    else:
        assert out is None


def run_crash() -> None:
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()

    class Failing(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = nn.Linear(IN, IN).double()
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            if rank == 1 and self.calls == 3:  # the first call infers shapes
                raise RuntimeError("rank 1 fails on purpose")
            return self.lin(x)

    stage = PipelineStage(Failing(), rank, world, "cpu")
    schedule = Schedule1F1B(stage, 4, loss_fn=lambda out, y: out.sum())
    x, _ = data(0)
    schedule.step(*((x,) if rank == 0 else ()), target=x if rank == world - 1 else None)
    print(f"rank {rank}: should not get here")


def run_mismatch() -> None:
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    mb = BATCH // 4
    if rank == 0:
        stage = PipelineStage(nn.Linear(IN, WIDTH).double(), 0, world, "cpu")
    else:  # declares inputs of 5 features where stage 0 sends 6
        stage = PipelineStage(nn.Linear(5, OUT).double(), rank, world, "cpu",
                              input_args=tl.zeros(mb, 5, dtype=tl.float64))
    schedule = ScheduleGPipe(stage, 4, loss_fn=nn.functional.mse_loss)
    x, y = data(0)
    schedule.step(*((x,) if rank == 0 else ()), target=y if rank == world - 1 else None)
    print(f"rank {rank}: should not get here")


if __name__ == "__main__":
    {"all": run_all, "crash": run_crash, "mismatch": run_mismatch}[sys.argv[1]]()
