"""The toy workload: a 2-16-16-1 MLP on 200 two-moons points, full batch, 500 steps.

Loss: mean hinge ``relu(1 - y * score)``; SGD lr 0.01, momentum 0.9. The wall time covers all
500 steps from the initial weights (imports and setup excluded). Every framework starts from the
same NumPy-generated weights and data; its first 10 losses (rtol 1e-3), final loss (atol 1e-3)
and final accuracy (within 1 point) must match the NumPy floor's or the run stops with a non-zero
status. micrograd is far too slow for 500 steps: it runs ``--micrograd-steps`` steps (checked
against the floor's first losses) and its 500-step time is extrapolated, marked as such.

    python3 benchmarks/bench_toy.py [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import _harness as harness
import _workloads as wl
import numpy as np

STEPS = 500
BUDGET = 2.0


def train(framework: str, steps: int) -> tuple[float, list[float], float, float]:
    """Build from the initial weights, time ``steps`` steps: (s, losses, first s, acc)."""
    params, x, y = wl.toy_inputs()
    step, predict = wl.TOY_BUILDERS[framework](params, x, y)
    losses = []
    start = time.perf_counter()
    losses.append(step())
    first = time.perf_counter() - start
    for _ in range(steps - 1):
        losses.append(step())
    wall = time.perf_counter() - start
    return wall, [wl.to_float(v) for v in losses], first, wl.accuracy(predict(), y)


def worker(framework: str, steps: int, repeats: int) -> int:
    """Train ``repeats`` times from scratch, check against the floor; print one JSON line."""
    _, want, _, want_acc = train("numpy", STEPS)
    walls, firsts = [], []
    for _ in range(repeats):
        wall, got, first, acc = train(framework, steps)
        walls.append(wall)
        firsts.append(first)
    problems = []
    k = min(10, steps)
    if not np.allclose(got[:k], want[:k], rtol=1e-3, atol=0):
        problems.append(f"first {k} losses {got[:k]}, floor {want[:k]}")
    if steps == STEPS and (abs(got[-1] - want[-1]) > 1e-3 or abs(acc - want_acc) > 0.01):
        problems.append(f"final loss {got[-1]:.5f} / accuracy {acc:.3f}, floor "
                        f"{want[-1]:.5f} / {want_acc:.3f}")
    if problems:
        print(f"CORRECTNESS MISMATCH: toy {framework}: " + "; ".join(problems), file=sys.stderr)
        return harness.MISMATCH_EXIT
    wall = harness.median(walls)
    harness.emit({"wall": wall * STEPS / steps, "steps": steps, "ms_per_step": wall / steps * 1e3,
                  "first_ms": harness.median(firsts) * 1e3, "final_loss": got[-1],
                  "accuracy": acc if steps == STEPS else None, "threads": harness.thread_info()})
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3, help="rounds over all workers (default 3)")
    p.add_argument("--repeats", type=int, default=3, help="500-step runs per worker (median)")
    p.add_argument("--frameworks", default=",".join(wl.TOY_FRAMEWORKS))
    p.add_argument("--micrograd-steps", type=int, default=3,
                   help="steps micrograd runs (about 4 s each); its 500-step time is extrapolated")
    p.add_argument("--quick", action="store_true", help="smoke test: 1 round, 1 repeat")
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "STEPS"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.repeats, args.micrograd_steps = 1, 1, 1
    args.frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = sorted(set(args.frameworks) - set(wl.TOY_FRAMEWORKS))
    if unknown:
        p.error(f"unknown frameworks {unknown}; choose from {list(wl.TOY_FRAMEWORKS)}")
    return args


def run(args: argparse.Namespace) -> harness.Report:
    """Run every framework's worker for several rounds (micrograd once); table and budget."""
    frameworks, notes = wl.available(args.frameworks)
    title = "bench_toy: 2-16-16-1 MLP, 200 two-moons points, full batch, 500 steps (hinge, SGD)"
    print(f"# {title}\n{harness.environment_header()}")
    print(f"rounds {args.rounds} | {args.repeats} runs per worker | frameworks {frameworks}",
          flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]
    script = Path(__file__).resolve()

    def describe(r: dict) -> str:
        return f"{r['wall']:.3f} s, final loss {r['final_loss']:.4f}, acc {r['accuracy']}"

    fast = [fw for fw in frameworks if fw != "micrograd"]
    results = harness.run_rounds(script, [str(STEPS)], fast, args.rounds,
                                 ["--repeats", str(args.repeats)], describe)
    if results is not None and "micrograd" in frameworks:
        slow = harness.run_rounds(script, [str(args.micrograd_steps)], ["micrograd"], 1,
                                  ["--repeats", "1"], describe, timeout=3600)
        results = None if slow is None else {**results, ("micrograd", str(STEPS)): next(
            iter(slow.values()))}
    if results is None:
        return harness.Report(title, text, [], failed=True)
    walls = {fw: [r["wall"] for r in results[(fw, str(STEPS))]] for fw in frameworks}
    floor = harness.median(walls["numpy"]) if "numpy" in walls else None
    rows = []
    for fw in frameworks:
        runs = results[(fw, str(STEPS))]
        wall, last = harness.median(walls[fw]), runs[-1]
        extrapolated = last["steps"] != STEPS
        rows.append([fw + (f" ({last['steps']} steps, extrapolated)" if extrapolated else ""),
                     f"{wall:,.3f}", "n/a" if floor is None else f"{wall / floor:,.2f}",
                     f"{harness.spread_pct(walls[fw]):.0f}",
                     f"{harness.median([r['ms_per_step'] for r in runs]):,.3f}",
                     f"{harness.median([r['first_ms'] for r in runs]):,.2f}",
                     "—" if extrapolated else f"{last['final_loss']:.4f}",
                     "—" if extrapolated else f"{last['accuracy']:.3f}"])
    text += [harness.markdown_table(["framework", "wall s (500 steps)", "×numpy", "spread %",
                                     "ms/step", "first step ms", "final loss", "final acc"],
                                    rows), "",
             "Every row's first losses matched the floor (rtol 1e-3); full runs also matched its "
             "final loss (atol 1e-3) and accuracy."]
    ratio = (harness.median(walls["tinygrad_lite"]) / floor
             if "tinygrad_lite" in walls and floor else None)
    return harness.Report(title, text, [harness.Budget("toy workload (500 steps)", ratio,
                                                       BUDGET)])


def main(argv: list[str] | None = None) -> int:
    """Entry point: a worker, or the driver printing the table and budget."""
    args = parse_args(argv)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.repeats)
    return harness.print_report(run(args))


if __name__ == "__main__":
    sys.exit(main())
