"""Deep graph: a chain of D tiny ops on a (16,) leaf, then ``sum().backward()``.

The chain alternates ``y * 1.0001`` and ``y + 0.0001``. It checks that backward has no recursion
limit and that its cost grows linearly with depth (time at D=100,000 should be about 10x the time
at D=10,000). The floor is a NumPy forward loop plus the hand-written backward (the gradient is
the product of the multipliers). Each depth runs in its own subprocess and also reports that
process's peak resident memory.

    python3 benchmarks/bench_chain.py [--depths 1000,10000,100000] [--rounds 2] [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import _harness as harness
import _workloads as wl
import numpy as np


def numpy_chain(depth: int) -> Callable[[], np.ndarray]:
    """The floor: forward loop, then the gradient of sum(y) with respect to the leaf."""
    x = np.ones(16, np.float32)

    def step() -> np.ndarray:
        """Forward through the chain, then backward by hand."""
        y = x
        for i in range(depth):
            y = y * np.float32(1.0001) if i % 2 == 0 else y + np.float32(0.0001)
        grad = np.ones(16, np.float32)
        for i in reversed(range(depth)):
            if i % 2 == 0:
                grad = grad * np.float32(1.0001)
        return grad

    return step


def tinygrad_lite_chain(depth: int) -> Callable[[], np.ndarray]:
    """tinygrad_lite: the chain recorded op by op, then one backward."""
    harness.add_repo_to_path()
    import tinygrad_lite as tl

    x = tl.ones(16, requires_grad=True)

    def step() -> np.ndarray:
        """Forward through the chain, then backward."""
        x.grad = None
        y = x
        for i in range(depth):
            y = y * 1.0001 if i % 2 == 0 else y + 0.0001
        y.sum().backward()
        return x.grad.numpy()

    return step


def torch_chain(depth: int) -> Callable[[], np.ndarray]:
    """PyTorch CPU eager."""
    import torch

    torch.set_num_threads(2)
    x = torch.ones(16, requires_grad=True)

    def step() -> np.ndarray:
        """Forward through the chain, then backward."""
        x.grad = None
        y = x
        for i in range(depth):
            y = y * 1.0001 if i % 2 == 0 else y + 0.0001
        y.sum().backward()
        return x.grad.numpy()

    return step


def mygrad_chain(depth: int) -> Callable[[], np.ndarray]:
    """mygrad."""
    import mygrad as mg

    x = mg.tensor(np.ones(16, np.float32))

    def step() -> np.ndarray:
        """Forward through the chain, then backward."""
        y = x
        for i in range(depth):
            y = y * 1.0001 if i % 2 == 0 else y + 0.0001
        y.sum().backward()
        return np.asarray(x.grad)

    return step


def autograd_chain(depth: int) -> Callable[[], np.ndarray]:
    """HIPS autograd: grad of the chain's sum."""
    import autograd.numpy as anp
    from autograd import grad

    def f(x: np.ndarray) -> np.ndarray:
        y = x
        for i in range(depth):
            y = y * np.float32(1.0001) if i % 2 == 0 else y + np.float32(0.0001)
        return anp.sum(y)

    g, x = grad(f), np.ones(16, np.float32)
    return lambda: g(x)


def micrograd_chain(depth: int) -> Callable[[], np.ndarray]:
    """micrograd: one scalar Value (its recursive topological sort hits the recursion limit)."""
    from micrograd.engine import Value

    x = Value(1.0)

    def step() -> np.ndarray:
        """Forward through the chain, then backward."""
        x.grad = 0.0
        y = x
        for i in range(depth):
            y = y * 1.0001 if i % 2 == 0 else y + 0.0001
        y.backward()
        return np.full(16, x.grad, np.float32)

    return step


SETUPS = {"numpy": numpy_chain, "tinygrad_lite": tinygrad_lite_chain, "torch": torch_chain,
          "mygrad": mygrad_chain, "autograd": autograd_chain, "micrograd": micrograd_chain}
FRAMEWORKS = tuple(SETUPS)


def worker(framework: str, depth: int, repeats: int) -> int:
    """Time ``repeats`` full chains (best and median), check the gradient, report peak RSS."""
    step = SETUPS[framework](depth)
    expected = np.full(16, np.float32(1.0001) ** ((depth + 1) // 2), np.float32)
    first_start = time.perf_counter()
    try:
        grad = step()
    except RecursionError as err:
        harness.emit({"framework": framework, "depth": depth, "error": f"RecursionError: {err}",
                      "peak_mib": harness.peak_rss_mib()})
        return 0
    first = time.perf_counter() - first_start
    if not np.allclose(grad, expected, rtol=1e-3):
        print(f"CORRECTNESS MISMATCH: {framework} D={depth}: gradient {grad[0]} != {expected[0]}",
              file=sys.stderr)
        return harness.MISMATCH_EXIT
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    peak_mib = harness.peak_rss_mib()
    harness.emit({"framework": framework, "depth": depth, "first": first,
                  "threads": harness.thread_info(),
                  "median": harness.median(times), "best": min(times), "peak_mib": peak_mib})
    return 0


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depths", default="1000,10000,100000")
    p.add_argument("--rounds", type=int, default=2, help="rounds over all workers (default 2)")
    p.add_argument("--repeats", type=int, default=3, help="timed chains per worker (median)")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS))
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 1 round, 1 repeat (the depths stay, to test 100k)")
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "DEPTH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.repeats = 1, 1
    args.depths = [int(d) for d in args.depths.split(",") if d.strip()]
    args.frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = sorted(set(args.frameworks) - set(FRAMEWORKS))
    if unknown:
        p.error(f"unknown frameworks {unknown}; choose from {list(FRAMEWORKS)}")
    return args


def run(args: argparse.Namespace) -> harness.Report:
    """Run every (framework, depth) worker for several rounds; the table, scaling and budget."""
    frameworks, notes = wl.available(args.frameworks)
    title = "bench_chain: D-op chain forward + backward on a (16,) leaf"
    print(f"# {title}\n{harness.environment_header()}")
    print(f"rounds {args.rounds} | {args.repeats} timed chains per worker | depths {args.depths} "
          f"| frameworks {frameworks}", flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]

    def describe(r: dict) -> str:
        return r.get("error", "")[:60] or f"{r['median'] * 1e3:,.1f} ms"

    results: dict[tuple[str, int], list[dict]] = {}
    failed: set[str] = set()  # a framework failing at one depth skips the larger depths
    for depth in args.depths:
        fws = [fw for fw in frameworks if fw not in failed]
        found = harness.run_rounds(Path(__file__).resolve(), [str(depth)], fws, args.rounds,
                                   ["--repeats", str(args.repeats)], describe)
        if found is None:
            return harness.Report(title, text, [], failed=True)
        for (fw, _), runs in found.items():
            results[(fw, depth)] = runs
            if any("error" in r for r in runs):
                failed.add(fw)

    def med(fw: str, depth: int) -> float | None:
        runs = results.get((fw, depth), [])
        if not runs or any("error" in r for r in runs):
            return None
        return harness.median([r["median"] for r in runs])

    rows = []
    for fw in frameworks:
        for depth in args.depths:
            runs, t, floor = results.get((fw, depth)), med(fw, depth), med("numpy", depth)
            if runs is None:
                rows.append([fw, f"{depth:,}", "skipped (failed at a smaller depth)", "", "", "",
                             ""])
            elif t is None:
                rows.append([fw, f"{depth:,}", runs[0]["error"][:70], "", "", "", ""])
            else:
                rows.append([fw, f"{depth:,}", f"{t * 1e3:,.1f}",
                             f"{harness.median([r['first'] for r in runs]) * 1e3:,.1f}",
                             "n/a" if floor is None else f"{t / floor:.2f}",
                             f"{t / depth * 1e6:.2f}",
                             f"{max(r['peak_mib'] for r in runs):.0f}"])
    text += [harness.markdown_table(["framework", "depth", "ms (median)", "first call ms",
                                     "×numpy", "µs per op", "peak RSS MiB"], rows), "",
             "Every completed row's gradient matched the closed form 1.0001^(D/2) (rtol 1e-3)."]
    budgets = []
    if 10_000 in args.depths and 100_000 in args.depths:
        text += ["", "Scaling (time at 100k / time at 10k; linear is 10):", ""]
        for fw in frameworks:
            t10, t100 = med(fw, 10_000), med(fw, 100_000)
            text.append(f"- {fw}: " + ("n/a (did not complete)" if t10 is None or t100 is None
                                       else f"{t100 / t10:.1f}"))
        t10, t100 = med("tinygrad_lite", 10_000), med("tinygrad_lite", 100_000)
        # Linear within noise: allow 13 (30 % over 10), as reported not enforced.
        budgets.append(harness.Budget("100k chain: time(100k) / time(10k), linear ≈ 10",
                                      None if t10 is None or t100 is None else t100 / t10,
                                      13.0, unit="ratio"))
        budgets.append(harness.Budget("100k chain completes (no RecursionError)", None, 0,
                                      passed=t100 is not None))
    return harness.Report(title, text, budgets)


def main(argv: list[str] | None = None) -> int:
    """Entry point: a worker, or the driver printing the table, scaling and budget."""
    args = parse_args(argv)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.repeats)
    return harness.print_report(run(args))


if __name__ == "__main__":
    sys.exit(main())
