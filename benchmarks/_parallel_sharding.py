"""The ``zero`` section of ``benchmarks/bench_parallel.py``: sharded data parallelism.

    python3 benchmarks/_parallel_sharding.py [--nprocs 1,2,4] [--steps 5]

For 1, 2 and 4 ranks (each started through ``tinygrad_lite.distributed.run`` with one BLAS
thread per rank), the same training step of an MLP (8 Linear + ReLU layers of width 512,
float32, Adam, a global batch of 64 rows split over the ranks) three ways:

- ``DDP + Adam``: every rank holds all parameters and all optimizer state;
- ``DDP + ZeRO``: ``ZeroRedundancyOptimizer(optimizer_class=Adam)``, each rank keeping the
  state of its share of the parameters and broadcasting them after its update;
- ``fully_shard``: FSDP2 on every Linear and on the model; parameters, gradients and state
  sharded, each layer gathered while it runs.

Per rank (the largest over the ranks): the step time (median of ``--steps`` steps after a
warm-up, the slowest rank's), the parameter bytes it holds between steps, its optimizer state
bytes, the peak bytes of gathered parameters alive at once during a step (fully_shard), and the
peak of all NumPy memory allocated during one step (``tracemalloc``, measured on a separate
step: activations, gradients, communication buffers included).

With fewer free cores than ranks, the ranks share the CPUs: the times then measure
communication and scheduling overhead more than any speed-up. The memory columns do not depend
on the machine.
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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

WIDTH, LAYERS, BATCH = 512, 8, 64
MODES = ("DDP + Adam", "DDP + ZeRO", "fully_shard")


def _state_bytes(opt) -> int:
    import tinygrad_lite as tl

    return sum(v._data.nbytes for s in opt.state.values() for v in s.values()
               if isinstance(v, tl.Tensor) and v.ndim > 0)


def worker(steps: int) -> None:
    """Every mode on this rank; rank 0 prints one JSON line per mode."""
    import numpy as np

    import tinygrad_lite as tl
    import tinygrad_lite.distributed as dist
    from tinygrad_lite import nn
    from tinygrad_lite.distributed.fsdp import fully_shard
    from tinygrad_lite.distributed.fsdp._fsdp_param_group import unsharded_bytes
    from tinygrad_lite.distributed.optim import ZeroRedundancyOptimizer

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    rng = np.random.default_rng(0)
    x = tl.tensor(rng.standard_normal((BATCH, WIDTH)).astype(np.float32))
    y = tl.tensor(rng.integers(0, 10, BATCH))
    share = BATCH // world
    xs, ys = x[rank * share:(rank + 1) * share], y[rank * share:(rank + 1) * share]

    for mode in MODES:
        tl.manual_seed(0)
        layers = []
        for _ in range(LAYERS):
            layers += [nn.Linear(WIDTH, WIDTH), nn.ReLU()]
        model = nn.Sequential(*layers, nn.Linear(WIDTH, 10))
        if mode == "fully_shard":
            for layer in model:
                if isinstance(layer, nn.Linear):
                    fully_shard(layer)
            fully_shard(model)
            opt = tl.optim.Adam(model.parameters(), lr=1e-3)
            state_owner = opt
        else:
            model = nn.parallel.DistributedDataParallel(model)
            if mode == "DDP + ZeRO":
                opt = ZeroRedundancyOptimizer(model.parameters(), optimizer_class=tl.optim.Adam,
                                              lr=1e-3)
                state_owner = opt.optim
            else:
                opt = tl.optim.Adam(model.parameters(), lr=1e-3)
                state_owner = opt

        def step(model=model, opt=opt) -> None:
            opt.zero_grad()
            nn.functional.cross_entropy(model(xs), ys).backward()
            opt.step()

        step()  # warm-up: optimizer state allocated
        times = []
        for _ in range(steps):
            dist.barrier()
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        unsharded_bytes.reset_peak()
        dist.barrier()
        tracemalloc.start()
        step()
        _, traced_peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        mine = {
            "step_ms": statistics.median(times) * 1e3,
            "param_bytes": sum(p._data.nbytes for p in model.parameters()),
            "state_bytes": _state_bytes(state_owner),
            "gathered_peak": unsharded_bytes.peak if mode == "fully_shard" else 0,
            "step_peak": traced_peak,
        }
        every: list = [None] * world
        dist.all_gather_object(every, mine)
        if rank == 0:
            row = {key: max(r[key] for r in every) for key in mine}
            print(json.dumps({"mode": mode, "ranks": world, **row}), flush=True)
    dist.destroy_process_group()


def main(argv: list[str] | None = None) -> int:
    """Run the workers for each rank count and print one Markdown table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nprocs", default="1,2,4")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.steps)
        return 0
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1",
           "PYTHONPATH": os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                          os.environ.get("PYTHONPATH", "")])}
    rows = []
    for n in (int(v) for v in args.nprocs.split(",")):
        out = subprocess.run([sys.executable, "-m", "tinygrad_lite.distributed.run",
                              "--nproc-per-node", str(n), __file__, "--worker", "--steps",
                              str(args.steps)], capture_output=True, text=True, env=env)
        if out.returncode:
            sys.stderr.write(out.stdout + out.stderr)
            return out.returncode
        rows += [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    mb = 2.0 ** 20
    print(f"\nSharded data parallelism: MLP {LAYERS} x {WIDTH} x {WIDTH} + head, float32, Adam, "
          f"global batch {BATCH}; per rank, the largest over the ranks")
    print("| ranks | mode | step (ms) | parameters (MB) | optimizer state (MB) | "
          "gathered peak (MB) | step peak, tracemalloc (MB) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        gathered = f"{r['gathered_peak'] / mb:.2f}" if r["mode"] == "fully_shard" else "-"
        print(f"| {r['ranks']} | {r['mode']} | {r['step_ms']:.1f} | {r['param_bytes'] / mb:.2f} "
              f"| {r['state_bytes'] / mb:.2f} | {gathered} | {r['step_peak'] / mb:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
