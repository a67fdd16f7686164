"""The ``tensor`` section of bench_parallel.py: a tensor-parallel MLP (Linear d->h column-wise,
GELU, Linear h->d row-wise: Megatron-LM's split, one all-reduce forward and one backward) on
1, 2 and 4 ranks, one BLAS thread per rank. Per rank: the median time of a training step
(forward, backward, SGD), the same step of a plain model of one rank's shard shapes (the
computation without the collectives, to tell them apart), its parameter memory and the peak of
the NumPy memory a step allocates (tracemalloc, in a separate pass so that tracing does not
slow the timed steps).
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from typing import Any

D, H, TOKENS, STEPS = 512, 2048, 256, 10


def worker() -> dict[str, Any] | None:
    """Run on every rank of the job; rank 0 returns the figures (the others None)."""
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
    x = tl.tensor(np.random.default_rng(0).standard_normal((TOKENS, D)).astype(np.float32))

    shard = nn.Sequential(nn.Linear(D, H // world), nn.GELU(), nn.Linear(H // world, D))
    shard_opt = tl.optim.SGD(shard.parameters(), lr=1e-3)

    def step(model: Any = model, opt: Any = opt) -> None:
        opt.zero_grad(set_to_none=True)
        (model(x) ** 2).mean().backward()
        opt.step()

    step()
    step(shard, shard_opt)
    times, alone = [], []
    for _ in range(STEPS):  # alternating, so that drift in the machine's load hits both
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
    every = [None] * world
    dist.all_gather_object(every, (statistics.median(times), params, peak,
                                   statistics.median(alone)))
    dist.destroy_process_group()
    if rank:
        return None
    return {"ranks": world, "step_ms": [e[0] * 1e3 for e in every],
            "param_mb": [e[1] / 2 ** 20 for e in every],
            "peak_mb": [e[2] / 2 ** 20 for e in every],
            "compute_ms": [e[3] * 1e3 for e in every]}


def table(results: list[dict[str, Any]]) -> str:
    """A markdown table of the workers' figures, one row per rank count."""
    base = next((r["step_ms"][0] for r in results if r["ranks"] == 1), None)
    lines = [f"Tensor-parallel MLP {D} -> {H} -> {D}, {TOKENS} tokens, float32, SGD step; "
             "one BLAS thread per rank (medians of {STEPS} steps; the slowest rank counts)",
             "", "| ranks | step (ms) | speed-up | shard alone, no collectives (ms) | "
             "parameters per rank (MB) | peak step allocations per rank (MB) |",
             "|---|---|---|---|---|---|"]
    for r in results:
        slowest = max(r["step_ms"])
        speed = f"{base / slowest:.2f}x" if base else "-"
        lines.append(f"| {r['ranks']} | {slowest:.1f} | {speed} | {max(r['compute_ms']):.1f} | "
                     f"{max(r['param_mb']):.2f} | {max(r['peak_mb']):.2f} |")
    return "\n".join(lines).replace("{STEPS}", str(STEPS))
