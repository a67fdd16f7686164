"""The first call of ``tl.compile`` (the trace, the passes, codegen, loop-fusion planning and the
first replay) against one eager step, for the models of ``bench_models``.

Each round builds the model afresh, runs three eager steps (numba's kernels load in the first
round: the figure is the compiler's own cost, not numba's), times the median of ``--steps``
eager steps, then ``f = tl.compile(step); f(); f()``. On a fresh model and optimizer the first
traced call creates the optimizer's scratch buffers (the eager steps took the fused update
kernels instead), so the compiler traces a second time before its first replay, as a user's
first calls do. On a shared machine timings are noisy: the fastest round of each figure is
reported. The budget from the compile issue is 5x one eager step.

``--profile`` runs the first compiled call of one model under cProfile instead and prints the
top entries by own time.

    python3 benchmarks/bench_trace.py [--models cnn,resnet,gpt,lstm] [--rounds 3] [--steps 5]
    python3 benchmarks/bench_trace.py --profile lstm [--top 30] [--sort tottime]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as harness  # noqa: E402
import bench_models  # noqa: E402

harness.add_repo_to_path()
import tinygrad_lite as tl  # noqa: E402

BUDGET = 5.0  # first compiled call / one eager step


def make_step(name: str) -> Callable[[], None]:
    """One training step of model ``name`` (forward, backward, optimizer update)."""
    tl.manual_seed(0)
    model, opt, (x, y) = bench_models.BUILDERS[name](tl)
    loss_fn = tl.nn.functional.cross_entropy

    def step() -> None:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

    return step


def eager_ms(step: Callable[[], None], steps: int) -> float:
    """Median milliseconds of ``steps`` eager steps."""
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def first_call_ms(step: Callable[[], None]) -> float:
    """Milliseconds of a fresh compiled step's first two calls (the trace, the first replay)."""
    start = time.perf_counter()
    compiled = tl.compile(step)
    compiled()
    compiled()
    return 1e3 * (time.perf_counter() - start)


def warm_step(name: str) -> Callable[[], None]:
    """A fresh step of model ``name`` after three eager steps."""
    step = make_step(name)
    for _ in range(3):
        step()
    return step


def measure(name: str, rounds: int, steps: int) -> dict:
    eager, first = [], []
    for _ in range(rounds):
        step = warm_step(name)
        eager.append(eager_ms(step, steps))
        first.append(first_call_ms(step))
    e, f = min(eager), min(first)
    return {"model": name, "eager_ms": e, "first_ms": f, "ratio": f / e}


def profile(name: str, top: int, sort: str) -> None:
    first_call_ms(warm_step(name))  # (a first round: one-time imports are not profiled)
    step = warm_step(name)
    profiler = cProfile.Profile()
    profiler.enable()
    first_call_ms(step)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats(sort).print_stats(top)
    print(out.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(bench_models.MODELS))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--profile", metavar="MODEL")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--sort", default="tottime")
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile, args.top, args.sort)
        return 0
    print(harness.environment_header())
    rows = []
    for name in args.models.split(","):
        r = measure(name, args.rounds, args.steps)
        rows.append((name, f"{r['eager_ms']:.1f}", f"{r['first_ms']:.1f}", f"{r['ratio']:.2f}x",
                     "yes" if r["ratio"] <= BUDGET else "no"))
    print(harness.markdown_table(["model", "eager step (ms)", "first compiled call (ms)",
                                  "ratio", f"within {BUDGET:g}x"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
