"""The ``tensor`` section of ``benchmarks/bench_parallel.py``: tensor parallelism.

    python3 benchmarks/_parallel_tensor.py [--nprocs 1,2,4] [--steps 10]

A tensor-parallel MLP (Linear d->h column-wise, GELU, Linear h->d row-wise: Megatron-LM's split,
one all-reduce forward and one backward) on 1, 2 and 4 ranks, each job started through
``tinygrad_lite.distributed.run`` with one BLAS thread per rank. Per rank (the largest over the
ranks): the median time of a training step (forward, backward, SGD), the same step of a plain
model of one rank's shard shapes (the computation without the collectives, to tell them apart;
the two alternate), its parameter memory and the peak of the NumPy memory a step allocates
(tracemalloc, in a separate pass so that tracing does not slow the timed steps).

With fewer free cores than ranks the ranks share the CPUs: the times then measure communication
and scheduling more than any speed-up. The memory columns do not depend on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

D, H, TOKENS = 512, 2048, 256
MARK = "TENSOR_PARALLEL_RESULT "


def worker(steps: int) -> None:
    """On every rank of one job; rank 0 prints its figures as one JSON line."""
    import numpy as np

    import tinygrad_lite as tl
    import tinygrad_lite.distributed as dist
    from tinygrad_lite import nn
    from tinygrad_lite.distributed.tensor.parallel import (
        ColwiseParallel,
        RowwiseParallel,
        parallelize_module,
    )

    dist.init_process_group("mpi")
    world, rank = dist.get_world_size(), dist.get_rank()
    mesh = dist.init_device_mesh("cpu", (world,), mesh_dim_names=("tp",))
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(D, H), nn.GELU(), nn.Linear(H, D))
    parallelize_module(model, mesh, {"0": ColwiseParallel(), "2": RowwiseParallel()})
    opt = tl.optim.SGD(model.parameters(), lr=1e-3)
    shard = nn.Sequential(nn.Linear(D, H // world), nn.GELU(), nn.Linear(H // world, D))
    shard_opt = tl.optim.SGD(shard.parameters(), lr=1e-3)
    x = tl.tensor(np.random.default_rng(0).standard_normal((TOKENS, D)).astype(np.float32))

    def step(model: Any = model, opt: Any = opt) -> None:
        opt.zero_grad(set_to_none=True)
        (model(x) ** 2).mean().backward()
        opt.step()

    step()
    step(shard, shard_opt)
    times, alone = [], []
    for _ in range(steps):  # alternating, so that drift in the machine's load hits both
        dist.barrier()
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
        dist.barrier()
        start = time.perf_counter()
        step(shard, shard_opt)
        alone.append(time.perf_counter() - start)
    tracemalloc.start()
    step()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    params = sum(p._data.nbytes for p in model.parameters())
    every: list[Any] = [None] * world
    dist.all_gather_object(every, (statistics.median(times), params, peak,
                                   statistics.median(alone)))
    dist.destroy_process_group()
    if rank == 0:
        print(MARK + json.dumps({
            "ranks": world, "step_ms": max(e[0] for e in every) * 1e3,
            "param_mb": max(e[1] for e in every) / 2 ** 20,
            "peak_mb": max(e[2] for e in every) / 2 ** 20,
            "compute_ms": max(e[3] for e in every) * 1e3}), flush=True)


def table(results: list[dict[str, Any]], steps: int) -> str:
    """A markdown table of the jobs' figures, one row per rank count."""
    base = next((r["step_ms"] for r in results if r["ranks"] == 1), None)
    lines = [f"tensor: MLP {D} -> {H} -> {D}, {TOKENS} tokens, float32, SGD step; one BLAS "
             f"thread per rank; medians of {steps} steps, the slowest rank's", "",
             "| ranks | step (ms) | speed-up | shard alone, no collectives (ms) | "
             "parameters per rank (MB) | peak step allocations per rank (MB) |",
             "|---|---|---|---|---|---|"]
    for r in results:
        speed = f"{base / r['step_ms']:.2f}x" if base else "-"
        lines.append(f"| {r['ranks']} | {r['step_ms']:.1f} | {speed} | {r['compute_ms']:.1f} | "
                     f"{r['param_mb']:.2f} | {r['peak_mb']:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run one job per rank count (or be a rank of one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nprocs", default="1,2,4")
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.steps)
        return 0
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    results = []
    for n in (int(v) for v in args.nprocs.split(",")):
        out = subprocess.run([sys.executable, "-m", "tinygrad_lite.distributed.run",
                              "--nproc-per-node", str(n), __file__, "--steps", str(args.steps),
                              "--worker"], capture_output=True, text=True, env=env)
        lines = [line for line in out.stdout.splitlines() if line.startswith(MARK)]
        if out.returncode or not lines:
            print(out.stdout, out.stderr, file=sys.stderr)
            return out.returncode or 1
        results.append(json.loads(lines[0][len(MARK):]))
    print(table(results, args.steps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
