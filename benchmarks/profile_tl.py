"""cProfile of tinygrad_lite on the MLP step (B=32, B=256) and the toy workload, by tottime.

Prints, per workload, the per-step time of tinygrad_lite and of the NumPy floor (same process,
plain timing) and the top entries of a cProfile run sorted by own time. Evidence for where the
engine spends time beyond the floor's NumPy calls.

    python3 benchmarks/profile_tl.py [--workloads mlp32,mlp256,toy] [--steps 200] [--top 25]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time

import _harness as harness
import _workloads as wl


def build(workload: str, framework: str) -> wl.Step:
    """A step function of ``framework`` for ``workload`` (mlp32, mlp256 or toy)."""
    if workload == "toy":
        return wl.TOY_BUILDERS[framework](*wl.toy_inputs())[0]
    return wl.MLP_BUILDERS[framework](*wl.mlp_inputs(int(workload[3:])))


def per_step(step: wl.Step, steps: int) -> float:
    """Seconds per step over ``steps`` steps (after 10 warm-up steps)."""
    for _ in range(10):
        step()
    start = time.perf_counter()
    for _ in range(steps):
        step()
    return (time.perf_counter() - start) / steps


def main(argv: list[str] | None = None) -> int:
    """Profile each workload and print the tables."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workloads", default="mlp32,mlp256,toy")
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--top", type=int, default=25)
    p.add_argument("--quick", action="store_true", help="20 steps, top 10")
    args = p.parse_args(argv)
    if args.quick:
        args.steps, args.top = 20, 10
    print(harness.environment_header())
    print(f"threads: {harness.format_threads(harness.thread_info())}")
    for workload in args.workloads.split(","):
        floor = per_step(build(workload, "numpy"), args.steps)
        step = build(workload, "tinygrad_lite")
        plain = per_step(step, args.steps)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.steps):
            step()
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.top)
        print(f"\n## {workload}: tinygrad_lite {plain * 1e3:.3f} ms/step, NumPy floor "
              f"{floor * 1e3:.3f} ms/step (×{plain / floor:.2f}); cProfile of {args.steps} steps")
        print(out.getvalue().split("\n", 4)[-1].replace(str(harness.REPO_ROOT) + "/", ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
