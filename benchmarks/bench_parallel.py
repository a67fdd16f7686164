"""Model-parallel training on several ranks, one section per kind of parallelism.

    python3 benchmarks/bench_parallel.py {pipeline,tensor,zero,context} [--nproc 2] [--steps 3]

Each section starts itself on ``--nproc`` ranks (through ``tinygrad_lite.distributed.run``) with
one BLAS thread per rank, and rank 0 prints Markdown tables. Sections:

``pipeline`` (``tl.distributed.pipelining``): an MLP cut into one stage per rank (4 Linear +
Tanh layers of width 512 each, float32, 64 rows per microbatch), and

1. the measured bubble of GPipe and 1F1B, ``1 - sum of the ranks' compute time / (p x step
   time)``, against the ideal ``(p - 1) / (m + p - 1)`` (forward and backward of equal cost on
   every stage, no communication time), for m = 1, 2, 4, 8, 16 microbatches (1F1B needs
   m >= p). The step time is the slowest rank's, the median of ``--steps`` steps after a
   warm-up step; the compute time is what the stages spend in forward and backward;
2. the peak activation memory per stage (the bytes autograd saves for the microbatches a stage
   holds at once), GPipe against 1F1B, m = 8;
3. the bytes all stages send in one step against ``2 m (p - 1) x`` one microbatch's activation
   (each inner boundary carries every activation forward and its gradient back).

``tensor`` (``tl.distributed.tensor.parallel``): a tensor-parallel MLP at 1, 2 and 4 ranks,
step time and memory per rank; it lives in ``_parallel_tensor.py`` (which runs one job per rank
count; ``--nproc`` is ignored, ``--steps`` passed on).

``zero`` (``ZeroRedundancyOptimizer``, ``fully_shard``): an MLP trained with DDP + Adam, DDP +
ZeRO and FSDP2 at 1, 2 and 4 ranks: step time, parameter and optimizer-state bytes per rank,
peak gathered parameters (``_parallel_sharding.py``).

``context`` (``context_parallel``, ring attention): per-rank score memory, bytes moved against
the formula and wall time at T = 1k-8k on 1, 2 and 4 ranks (``_parallel_context.py``; its own
options, e.g. ``--seq``, are given by running that module directly).

On a machine with fewer free cores than ranks the ranks take turns on the CPUs, so "busy" time
includes time the operating system gave to another rank, and the measured bubble reads low;
quiet, one core per rank, is what the figures are for.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WIDTH, ROWS, LAYERS = 512, 64, 4


def pipeline_worker(steps: int) -> None:
    """The pipeline section, on every rank; rank 0 prints."""
    import numpy as np

    import tinygrad_lite as tl
    import tinygrad_lite.distributed as dist
    from tinygrad_lite import nn
    from tinygrad_lite.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

    dist.init_process_group("mpi")
    rank, p = dist.get_rank(), dist.get_world_size()
    tl.manual_seed(rank)
    layers = []
    for _ in range(LAYERS):
        layers += [nn.Linear(WIDTH, WIDTH), nn.Tanh()]
    stage_module = nn.Sequential(*layers)

    def loss_fn(out, target):
        return nn.functional.mse_loss(out, target)

    def run(cls, m: int, track: bool = False):
        """Median step time (slowest rank), every rank's busy time and counters, for one
        schedule and microbatch count."""
        stage = PipelineStage(stage_module, rank, p, "cpu")
        stage.track_activation_bytes = track
        schedule = cls(stage, m, loss_fn=loss_fn)
        rng = np.random.default_rng(0)
        x = tl.tensor(rng.standard_normal((m * ROWS, WIDTH)).astype(np.float32))
        y = tl.tensor(rng.standard_normal((m * ROWS, WIDTH)).astype(np.float32))
        walls, busies = [], []
        for step in range(steps + 1):
            stage_module.zero_grad()
            dist.barrier()
            start = time.perf_counter()
            schedule.step(*((x,) if rank == 0 else ()), target=y if rank == p - 1 else None)
            elapsed = time.perf_counter() - start
            every = [None] * p
            dist.all_gather_object(every, (elapsed, stage.busy_seconds))
            if step:  # the first step settles shapes and warms up
                walls.append(max(e for e, _ in every))
                busies.append(sum(b for _, b in every))
        counters = [None] * p
        dist.all_gather_object(counters, (stage.peak_live_activations,
                                          stage.peak_activation_bytes, stage.bytes_sent))
        wall = statistics.median(walls)
        busy = statistics.median(busies)
        return wall, busy, counters

    if rank == 0:
        print(f"pipeline: {p} ranks, one stage each ({LAYERS} x Linear({WIDTH}, {WIDTH}) + Tanh), "
              f"float32, {ROWS} rows per microbatch, median of {steps} steps\n")
        print("| m | ideal bubble (p-1)/(m+p-1) | GPipe step (ms) | GPipe bubble | "
              "1F1B step (ms) | 1F1B bubble |")
        print("|---|---|---|---|---|---|")
    for m in (1, 2, 4, 8, 16):
        cells = []
        for cls in (ScheduleGPipe, Schedule1F1B):
            if cls is Schedule1F1B and m < p:
                cells.append("n/a (m < p) | n/a")
                continue
            wall, busy, _ = run(cls, m)
            cells.append(f"{wall * 1e3:.1f} | {1 - busy / (p * wall):.3f}")
        if rank == 0:
            print(f"| {m} | {(p - 1) / (m + p - 1):.3f} | {cells[0]} | {cells[1]} |")

    m = 8
    memory = {cls.__name__: run(cls, m, track=True)[2] for cls in (ScheduleGPipe, Schedule1F1B)}
    if rank == 0:
        print(f"\npeak activations per stage, m = {m} (microbatches held; bytes autograd saved)")
        print("| stage | GPipe held | GPipe KiB | 1F1B held | 1F1B KiB |")
        print("|---|---|---|---|---|")
        for s in range(p):
            g, o = memory["ScheduleGPipe"][s], memory["Schedule1F1B"][s]
            print(f"| {s} | {g[0]} | {g[1] / 1024:.0f} | {o[0]} | {o[1] / 1024:.0f} |")
        activation = ROWS * WIDTH * 4
        print("\nbytes sent per step (all stages)")
        print("| m | measured | 2 m (p - 1) x activation |")
        print("|---|---|---|")
        sent = sum(c[2] for c in memory["Schedule1F1B"])
        print(f"| {m} | {sent} | {2 * m * (p - 1) * activation} |")
    dist.destroy_process_group()


SECTIONS = {"pipeline": pipeline_worker}
# sections with a module of their own, which launches one job per rank count (1, 2, 4)
OWN_MODULES = {
    "tensor": ("_parallel_tensor.py", lambda args: ["--steps", str(args.steps)]),
    "zero": ("_parallel_sharding.py", lambda args: ["--steps", str(args.steps)]),
    "context": ("_parallel_context.py", lambda args: []),
}


def main(argv: list[str] | None = None) -> int:
    """Launch a section's workers (or be one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("section", choices=sorted([*SECTIONS, *OWN_MODULES]))
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.section in OWN_MODULES:  # one job per rank count, run by its own module
        module, options = OWN_MODULES[args.section]
        return subprocess.call([sys.executable, str(Path(__file__).with_name(module)),
                                *options(args)])
    if args.worker:
        SECTIONS[args.section](args.steps)
        return 0
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1"}
    return subprocess.call([sys.executable, "-m", "tinygrad_lite.distributed.run",
                            "--nproc-per-node", str(args.nproc), __file__, args.section,
                            "--steps", str(args.steps), "--worker"], env=env)


if __name__ == "__main__":
    sys.exit(main())
