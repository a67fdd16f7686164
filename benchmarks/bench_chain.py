"""Deep graph: a chain of D tiny ops on a (16,) leaf, then ``sum().backward()``.

The chain alternates ``y * 1.0001`` and ``y + 0.0001``. It checks that backward has no recursion
limit and that its cost grows linearly with depth (time at D=100,000 should be about 10x the time
at D=10,000). The floor is a NumPy forward loop plus the hand-written backward (the gradient is
the product of the multipliers). Each depth runs in its own subprocess and also reports that
process's peak resident memory.

    python3 benchmarks/bench_chain.py [--depths 1000,10000,100000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

import _harness as harness
import numpy as np

FRAMEWORKS = ("numpy", "tinygrad_lite")


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
        return x.grad.data

    return step


SETUPS = {"numpy": numpy_chain, "tinygrad_lite": tinygrad_lite_chain}


def worker(framework: str, depth: int, repeats: int) -> int:
    """Time ``repeats`` full chains (best and median), check the gradient, report peak RSS."""
    step = SETUPS[framework](depth)
    expected = np.full(16, np.float32(1.0001) ** ((depth + 1) // 2), np.float32)
    first_start = time.perf_counter()
    grad = step()
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
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    harness.emit({"framework": framework, "depth": depth, "first": first,
                  "median": harness.median(times), "best": min(times), "peak_mib": peak_mib})
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run every (framework, depth) worker for several rounds; print a table and the scaling."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--depths", default="1000,10000,100000")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "DEPTH"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.repeats)
    depths = [int(d) for d in args.depths.split(",")]
    print("# bench_chain: D-op chain forward + backward on a (16,) leaf")
    print(harness.environment_header())
    results: dict[tuple[str, int], list[dict]] = {}
    script = Path(__file__).resolve()
    for rnd in range(args.rounds):
        for depth in depths:
            for fw in harness.rotated(list(FRAMEWORKS), rnd):
                try:
                    res = harness.run_worker(script, [fw, str(depth), "--repeats",
                                                      str(args.repeats)])
                except harness.WorkerError as err:
                    print(f"ERROR: {err}", file=sys.stderr)
                    return 1
                results.setdefault((fw, depth), []).append(res)
    rows = []
    for fw in FRAMEWORKS:
        for depth in depths:
            runs = results[(fw, depth)]
            med = harness.median([r["median"] for r in runs])
            floor = harness.median([r["median"] for r in results[("numpy", depth)]])
            rows.append([fw, f"{depth:,}", f"{med * 1e3:,.1f}", f"{med / floor:.2f}",
                         f"{med / depth * 1e6:.2f}", f"{max(r['peak_mib'] for r in runs):.0f}"])
    print()
    print(harness.markdown_table(
        ["framework", "depth", "ms (median)", "×numpy", "µs per op", "peak RSS MiB"], rows))
    if 10_000 in depths and 100_000 in depths:
        print("\n## Scaling (time at 100k / time at 10k; linear is 10)")
        for fw in FRAMEWORKS:
            t10 = harness.median([r["median"] for r in results[(fw, 10_000)]])
            t100 = harness.median([r["median"] for r in results[(fw, 100_000)]])
            print(f"- {fw}: {t100 / t10:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
