"""Memory: peak RSS of 300 MLP training steps at batch 256; RSS over 10,000 toy steps (no growth).

Each (framework, workload) runs in its own fresh subprocess, which reports its resident memory
after importing NumPy, after importing the framework, after setup + 1 step, at the end and its peak
(``ru_maxrss``). The toy workload also reports RSS after 1,000 and 10,000 steps: they should be
equal (no leak, graphs freed every step). The MLP's losses are checked against the floor.

    python3 benchmarks/bench_memory.py [--rounds 1] [--quick]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import _harness as harness
import _workloads as wl
import numpy as np

MLP_STEPS, MLP_BATCH = 300, 256
TOY_STEPS, TOY_EARLY = 10_000, 1_000
BUDGET = 1.1
FRAMEWORKS = wl.MLP_FRAMEWORKS  # micrograd: about 4 s per toy step, far too slow for 10k steps


def worker(framework: str, workload: str, steps: int) -> int:
    """Run one workload ``steps`` steps, recording RSS along the way; print one JSON line."""
    rss = {"numpy": harness.rss_mib()}
    if framework == "tinygrad_lite":
        harness.add_repo_to_path()
    if framework != "numpy":
        importlib.import_module(framework)
    rss["import"] = harness.rss_mib()
    if workload == "mlp":
        params, xs, ys = wl.mlp_inputs(MLP_BATCH)
        step = wl.MLP_BUILDERS[framework](params, xs, ys)
        want = wl.mlp_numpy(params, xs, ys)()
    else:
        params, x, y = wl.toy_inputs()
        step, _ = wl.TOY_BUILDERS[framework](params, x, y)
        want = wl.toy_numpy(params, x, y)[0]()
    got = wl.to_float(step())
    if not np.isclose(got, want, rtol=1e-3, atol=0):
        print(f"CORRECTNESS MISMATCH: memory {workload} {framework}: first loss {got}, floor "
              f"{want}", file=sys.stderr)
        return harness.MISMATCH_EXIT
    rss["setup"] = harness.rss_mib()
    for i in range(1, steps):
        step()
        if i + 1 == TOY_EARLY and workload == "toy":
            rss["early"] = harness.rss_mib()
    rss["end"] = harness.rss_mib()
    harness.emit({"rss": rss, "peak": harness.peak_rss_mib(), "threads": harness.thread_info()})
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=1, help="rounds over all workers (default 1)")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    p.add_argument("--quick", action="store_true",
                   help=f"smoke test: 30 MLP steps, toy RSS at {TOY_EARLY:,} and 2,000 steps")
    p.add_argument("--worker", nargs=3, metavar=("FRAMEWORK", "WORKLOAD", "STEPS"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return args
    args.mlp_steps, args.toy_steps = (30, 2_000) if args.quick else (MLP_STEPS, TOY_STEPS)
    if args.quick:
        args.rounds = 1
    args.frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = sorted(set(args.frameworks) - set(FRAMEWORKS))
    if unknown:
        p.error(f"unknown frameworks {unknown}; choose from {list(FRAMEWORKS)}")
    return args


def run(args: argparse.Namespace) -> harness.Report:
    """Run every (framework, workload) worker; the two tables and the peak-memory budget."""
    frameworks, notes = wl.available(args.frameworks)
    title = (f"bench_memory: peak RSS of {args.mlp_steps} MLP steps (B={MLP_BATCH}); "
             f"RSS over {args.toy_steps:,} toy steps")
    print(f"# {title}\n{harness.environment_header()}", flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]
    text.append("note: micrograd is left out (about 4 s per toy step; the MLP needs softmax)")
    script = Path(__file__).resolve()
    results = {}
    for workload, steps in (("mlp", args.mlp_steps), ("toy", args.toy_steps)):
        for fw in frameworks:
            found = harness.run_rounds(script, [workload], [fw], args.rounds, [str(steps)],
                                       lambda r: f"peak {r['peak']:.1f} MiB, end "
                                                 f"{r['rss']['end']:.1f} MiB")
            if found is None:
                return harness.Report(title, text, [], failed=True)
            results.update(found)

    def cell(fw: str, workload: str, key: str) -> float:
        """Median over rounds of one RSS figure."""
        runs = results[(fw, workload)]
        return harness.median([r["peak"] if key == "peak" else r["rss"][key] for r in runs])

    floor = cell("numpy", "mlp", "peak") if "numpy" in frameworks else None
    rows = [[fw] + [f"{cell(fw, 'mlp', k):.1f}" for k in ("numpy", "import", "setup", "end")]
            + [f"**{cell(fw, 'mlp', 'peak'):.1f}**",
               "n/a" if floor is None else f"{cell(fw, 'mlp', 'peak') / floor:.2f}"]
            for fw in frameworks]
    text += [f"MLP 784-256-128-10, batch {MLP_BATCH}, {args.mlp_steps} steps (MiB):", "",
             harness.markdown_table(["framework", "RSS python+numpy", "after import",
                                     "after setup + 1 step", f"after {args.mlp_steps} steps",
                                     "peak RSS", "peak ×numpy"], rows), ""]
    rows = [[fw, f"{cell(fw, 'toy', 'setup'):.1f}", f"{cell(fw, 'toy', 'early'):.1f}",
             f"{cell(fw, 'toy', 'end'):.1f}",
             f"{cell(fw, 'toy', 'end') - cell(fw, 'toy', 'early'):+.1f}",
             f"{cell(fw, 'toy', 'peak'):.1f}"] for fw in frameworks]
    text += [f"Toy workload, {args.toy_steps:,} full-batch steps (MiB):", "",
             harness.markdown_table(["framework", "after setup + 1 step",
                                     f"after {TOY_EARLY:,} steps",
                                     f"after {args.toy_steps:,} steps", "growth", "peak RSS"],
                                    rows)]
    ratio = (cell("tinygrad_lite", "mlp", "peak") / floor
             if "tinygrad_lite" in frameworks and floor else None)
    return harness.Report(title, text, [harness.Budget(
        f"peak RSS, {args.mlp_steps} MLP steps B={MLP_BATCH}", ratio, BUDGET)])


def main(argv: list[str] | None = None) -> int:
    """Entry point: a worker, or the driver printing the tables and the budget."""
    args = parse_args(argv)
    if args.worker:
        return worker(args.worker[0], args.worker[1], int(args.worker[2]))
    return harness.print_report(run(args))


if __name__ == "__main__":
    sys.exit(main())
