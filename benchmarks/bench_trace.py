"""The first calls of ``tl.compile`` (the trace, the passes, codegen, loop-fusion planning) against
one eager step, for the models of ``bench_models``.

Each round builds the model, runs three eager steps (numba's kernels load in the first round:
the figures are the compiler's own cost, not numba's) and times the median of ``--steps`` eager
steps; then it builds the model and optimizer afresh, as a training run that compiles its step
from the start, and times ``f = tl.compile(step); f()`` and the second call ``f()``. A fresh
optimizer creates its state in the first call, so the second call traces again (the step it
records has state); the third is the first replay. On a shared machine timings are noisy: the
fastest round of each figure is reported. The budget from the compile issue is 5x one eager
step.

``--profile`` runs the first two compiled calls of one model under cProfile instead and prints
the top entries by own time.

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
    return bench_models.training_step(tl, name)


def eager_ms(step: Callable[[], None], steps: int) -> float:
    """Median milliseconds of ``steps`` eager steps."""
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return 1e3 * statistics.median(times)


def first_calls_ms(step: Callable[[], None]) -> tuple[float, float]:
    """Milliseconds of a fresh compiled step's first call and of its second."""
    start = time.perf_counter()
    compiled = tl.compile(step)
    compiled()
    middle = time.perf_counter()
    compiled()
    return 1e3 * (middle - start), 1e3 * (time.perf_counter() - middle)


def warm_step(name: str) -> Callable[[], None]:
    """A fresh step of model ``name`` after three eager steps."""
    step = make_step(name)
    for _ in range(3):
        step()
    return step


def measure(name: str, rounds: int, steps: int) -> dict:
    eager, first, second = [], [], []
    for _ in range(rounds):
        eager.append(eager_ms(warm_step(name), steps))
        one, two = first_calls_ms(make_step(name))
        first.append(one)
        second.append(two)
    e, f, s = min(eager), min(first), min(second)
    return {"model": name, "eager_ms": e, "first_ms": f, "second_ms": s, "ratio": f / e,
            "both_ratio": (f + s) / e}


def profile(name: str, top: int, sort: str) -> None:
    warm_step(name)  # (numba and the eager kernels load here: one-time imports not profiled)
    first_calls_ms(make_step(name))
    step = make_step(name)
    profiler = cProfile.Profile()
    profiler.enable()
    first_calls_ms(step)
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
                     "yes" if r["ratio"] <= BUDGET else "no", f"{r['second_ms']:.1f}",
                     f"{r['both_ratio']:.2f}x"))
    print(harness.markdown_table(["model", "eager step (ms)", "first compiled call (ms)",
                                  "ratio", f"within {BUDGET:g}x", "second call (ms)",
                                  "both calls / eager step"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
