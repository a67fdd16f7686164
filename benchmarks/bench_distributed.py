"""tl.distributed against raw mpi4py, and DDP's overlap of communication with backward.

    python3 benchmarks/bench_distributed.py [--nproc 2]

Starts itself on ``--nproc`` ranks (through tinygrad_lite.distributed.run) and prints, on rank 0:

1. ``all_reduce`` of a float32 tensor against ``comm.Allreduce`` on the same buffer, from 4 KB
   to 16 MB (the best of 5 alternating rounds of medians; the overhead is the Python around
   the same MPI call);
2. a DDP training step of an MLP with buckets of 1 MB, whose all-reduces start during backward,
   against the same step with one bucket that can only start after backward, and backward
   alone (no communication).

On one 2-core machine the ranks share the cores, so an all-reduce running "in the background"
competes with backward for the same CPUs, and MPI's shared-memory transport progresses mostly
inside MPI calls: the overlap this machine can show is small. The numbers say what the design
costs here, not what it gains across machines.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def timed(fn, repeat: int) -> float:
    """Median seconds of ``fn()`` over ``repeat`` calls (after a warm-up)."""
    fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def worker() -> None:
    """The measurements, on every rank; rank 0 prints."""
    import tinygrad_lite as tl
    import tinygrad_lite.distributed as dist
    from tinygrad_lite import nn

    dist.init_process_group("mpi")
    group = dist.GroupMember.WORLD
    assert group is not None
    comm, rank = group.comm, dist.get_rank()
    from mpi4py import MPI

    if rank == 0:
        print("| message | mpi4py Allreduce (ms) | tl all_reduce (ms) | overhead |")
        print("|---|---|---|---|")
    for size in (4 << 10, 64 << 10, 1 << 20, 4 << 20, 16 << 20):
        t = tl.ones(size // 4)
        raw = np.ones(size // 4, np.float32)
        repeat = 30 if size <= 1 << 20 else 10
        ours_runs, theirs_runs = [], []
        for _ in range(5):  # alternate, and keep each side's best round: drift cancels out
            comm.Barrier()
            ours_runs.append(timed(lambda t=t: dist.all_reduce(t), repeat))
            comm.Barrier()
            theirs_runs.append(timed(
                lambda raw=raw: comm.Allreduce(MPI.IN_PLACE, raw, op=MPI.SUM), repeat))
        ours, theirs = min(ours_runs), min(theirs_runs)
        if rank == 0:
            print(f"| {size >> 10} KB | {theirs * 1e3:.3f} | {ours * 1e3:.3f} | "
                  f"{ours / theirs - 1:+.1%} |")

    def make(cap: float):
        tl.manual_seed(0)
        model = nn.Sequential(*[m for _ in range(6) for m in (nn.Linear(512, 512), nn.ReLU())],
                              nn.Linear(512, 10))
        return model if cap < 0 else nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap)

    x, y = tl.randn(64, 512), tl.tensor(np.arange(64) % 10)
    results = {}
    for name, cap in (("backward only, no DDP", -1.0), ("DDP, 1 MB buckets (overlap)", 1.0),
                      ("DDP, one bucket after backward", 1e6)):
        model = make(cap)

        def step(model=model) -> None:
            for p in model.parameters():
                p.grad = None
            nn.functional.cross_entropy(model(x), y).backward()

        comm.Barrier()
        results[name] = timed(step, 20)
    if rank == 0:
        print(f"\nDDP step, MLP 6 x 512 x 512, batch 64 per rank, {dist.get_world_size()} ranks")
        print("| step | ms |")
        print("|---|---|")
        for name, seconds in results.items():
            print(f"| {name} | {seconds * 1e3:.1f} |")
    dist.destroy_process_group()


def main(argv: list[str] | None = None) -> int:
    """Launch the workers (or be one)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nproc", type=int, default=2)
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    return subprocess.call([sys.executable, "-m", "tinygrad_lite.distributed.run",
                            "--nproc-per-node", str(args.nproc), __file__, "--worker"])


if __name__ == "__main__":
    sys.exit(main())
