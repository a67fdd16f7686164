"""Run every benchmark and print its Markdown tables, then one budget section for them all.

    python3 benchmarks/run_all.py            # the full run (about 10-15 minutes on 2 cores)
    python3 benchmarks/run_all.py --quick    # smoke test of everything (about 3 minutes)

Budgets are ratios to the NumPy floor measured in the same run; they are reported (PASS/FAIL),
never enforced by the exit status. A correctness mismatch (a framework computing something other
than the floor) or a failed worker makes the exit status non-zero.
"""

from __future__ import annotations

import argparse
import sys
import time

import _harness as harness
import bench_chain
import bench_memory
import bench_mlp
import bench_ops
import bench_toy

# (name, module, extra command-line arguments) in the order they run and print.
BENCHMARKS = (
    ("op chains", bench_ops, []),
    ("per-op", bench_ops, ["--per-op"]),
    ("MLP", bench_mlp, []),
    ("toy", bench_toy, []),
    ("deep chain", bench_chain, []),
    ("memory", bench_memory, []),
)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmarks one after the other; print all tables and the budget summary."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smoke-test settings for everything")
    p.add_argument("--only", default="", help="comma-separated subset of: "
                   + ", ".join(name for name, _, _ in BENCHMARKS))
    args = p.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    start = time.perf_counter()
    reports = []
    for name, module, extra in BENCHMARKS:
        if only and name not in only:
            continue
        print(f"\n======== {name} ========", flush=True)
        reports.append(module.run(module.parse_args([*extra, *(["--quick"] if args.quick
                                                                 else [])])))
    wall = time.perf_counter() - start

    print("\n\n# Results" + (" (--quick: smoke-test settings, not for comparison)"
                              if args.quick else ""))
    print(harness.environment_header())
    print(f"driver threads: {harness.format_threads(harness.thread_info())}; "
          f"torch rows use torch.set_num_threads(2); wall time {wall / 60:.1f} min")
    for report in reports:
        print("\n" + "\n".join(report.text))
    print("\n## Budgets (ratio to the NumPy floor in the same run; reported, not enforced)")
    for report in reports:
        for budget in report.budgets:
            print(budget.line())
    failed = [r.title.split(":")[0] for r in reports if r.failed]
    if failed:
        print(f"\nFAILED (correctness mismatch or worker error): {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
