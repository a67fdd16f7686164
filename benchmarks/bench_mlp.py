"""MLP 784-256-128-10 (ReLU, mean cross-entropy, SGD momentum 0.9): ms per training step.

Batches of 32 and 256 cycle through a fixed pool of 8. Every framework starts from the same
NumPy-generated weights and data; its first 10 losses must match the hand-written NumPy floor's
(rtol 1e-3) or the run stops with a non-zero status. Each (framework, batch) runs in its own
subprocess; see benchmarks/README.md.

    python3 benchmarks/bench_mlp.py [--batches 32,256] [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import _harness as harness
import _workloads as wl
import numpy as np

BUDGETS = {32: 1.15, 256: 1.10}
RTOL = 1e-3


def worker(framework: str, batch: int, min_time: float, repeats: int) -> int:
    """Check the first 10 losses against the floor, then time steps; print one JSON line."""
    params, xs, ys = wl.mlp_inputs(batch)
    floor = wl.mlp_numpy(params, xs, ys)
    want = np.array([floor() for _ in range(10)])
    step = wl.MLP_BUILDERS[framework](params, xs, ys)
    got = np.array([wl.to_float(step()) for _ in range(10)])
    if not np.allclose(got, want, rtol=RTOL, atol=0):
        print(f"CORRECTNESS MISMATCH: {framework} B={batch}: first 10 losses {got.tolist()}, "
              f"NumPy floor {want.tolist()} (rtol {RTOL})", file=sys.stderr)
        return harness.MISMATCH_EXIT
    timing = harness.time_per_iteration(step, min_time, repeats)
    threads = harness.thread_info()
    if framework == "torch":
        import torch

        threads["torch intra-op"] = torch.get_num_threads()
    harness.emit({"median": timing.median, "number": timing.number, "per_iter": timing.per_iter,
                  "max_rel_loss_diff": float(np.max(np.abs(got - want) / np.abs(want))),
                  "threads": threads})
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--batches", default="32,256", help="comma-separated batch sizes")
    p.add_argument("--rounds", type=int, default=3, help="rounds over all workers (default 3)")
    p.add_argument("--frameworks", default=",".join(wl.MLP_FRAMEWORKS))
    p.add_argument("--quick", action="store_true", help="smoke test: 1 round, short repeats")
    p.add_argument("--min-time", type=float, default=0.2, help="seconds per repeat at least")
    p.add_argument("--repeats", type=int, default=7, help="repeats per measurement")
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "BATCH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.min_time, args.repeats = 1, 0.05, 3
    args.batches = [int(b) for b in args.batches.split(",") if b.strip()]
    args.frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = sorted(set(args.frameworks) - set(wl.MLP_FRAMEWORKS))
    if unknown:
        p.error(f"unknown frameworks {unknown}; choose from {list(wl.MLP_FRAMEWORKS)}")
    return args


def run(args: argparse.Namespace) -> harness.Report:
    """Run every (framework, batch) worker for several rounds; the tables and budgets."""
    frameworks, notes = wl.available(args.frameworks)
    title = "bench_mlp: MLP 784-256-128-10 training step (ReLU, cross-entropy, SGD momentum 0.9)"
    print(f"# {title}\n{harness.environment_header()}")
    print(f"rounds {args.rounds} | repeat >= {args.min_time} s | {args.repeats} repeats | "
          f"batches {args.batches} | frameworks {frameworks}", flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]
    extra = ["--min-time", str(args.min_time), "--repeats", str(args.repeats)]
    results = harness.run_rounds(Path(__file__).resolve(), [str(b) for b in args.batches],
                                 frameworks, args.rounds, extra,
                                 lambda r: f"{harness.fmt_ms(r['median'])} ms/step")
    if results is None:
        return harness.Report(title, text, [], failed=True)
    med = {k: harness.median([r["median"] for r in v]) for k, v in results.items()}
    headers = ["framework"]
    for b in args.batches:
        headers += [f"B={b} ms/step", "samples/s", "×numpy", "spread %"]
    rows = []
    for fw in frameworks:
        row: list[object] = [fw]
        for b in args.batches:
            t, floor = med[(fw, str(b))], med.get(("numpy", str(b)))
            row += [harness.fmt_ms(t), f"{b / t:,.0f}",
                    "n/a" if floor is None else f"{t / floor:.2f}",
                    f"{harness.spread_pct([r['median'] for r in results[(fw, str(b))]]):.0f}"]
        rows.append(row)
    text += [harness.markdown_table(headers, rows), "",
             "First 10 losses of every row matched the NumPy floor (rtol 1e-3)."]
    budgets = []
    for b, limit in BUDGETS.items():
        key, floor_key = ("tinygrad_lite", str(b)), ("numpy", str(b))
        ratio = med[key] / med[floor_key] if key in med and floor_key in med else None
        budgets.append(harness.Budget(f"MLP step B={b}", ratio, limit))
    return harness.Report(title, text, budgets)


def main(argv: list[str] | None = None) -> int:
    """Entry point: a worker, or the driver printing tables and budgets."""
    args = parse_args(argv)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.min_time, args.repeats)
    return harness.print_report(run(args))


if __name__ == "__main__":
    sys.exit(main())
