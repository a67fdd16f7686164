"""Forward + backward of ``y = ((a*b)+c).relu().sum()`` on float32 (N, N): per-op overhead.

The graph is rebuilt every iteration and the gradients of a, b and c are materialized. Compared:
hand-written NumPy with manual gradients (the floor), tinygrad_lite and, when installed, PyTorch
(CPU, eager). Each (framework, size) runs in its own subprocess; see benchmarks/README.md.

    python3 benchmarks/bench_ops.py [--sizes 8,32,512] [--rounds 3] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import _harness as harness
import numpy as np

FRAMEWORKS = ("numpy", "tinygrad_lite", "torch")
# Largest allowed (tinygrad_lite time / numpy time) per size; reported, not enforced.
BUDGETS = {8: 2.5, 512: 1.3}
RTOL, ATOL = 1e-5, 1e-6

Result = tuple[float, np.ndarray, np.ndarray, np.ndarray]  # y, grad a, grad b, grad c


def numpy_step(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> Result:
    """The floor: the forward pass and the hand-derived gradients, in plain NumPy."""
    t = a * b
    u = t + c
    r = np.maximum(u, 0)
    y = r.sum()
    mask = (u > 0).astype(np.float32)
    return y, mask * b, mask * a, mask


def make_inputs(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Three fixed float32 (n, n) arrays drawn from N(0, 1)."""
    rng = np.random.default_rng(0)
    return tuple(rng.standard_normal((n, n), dtype=np.float32) for _ in range(3))


# -- one framework each: (step to time, function that runs a step and returns its result) --------


def setup_numpy(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable, Callable]:
    """The NumPy floor."""

    def step() -> Result:
        """One forward + backward."""
        return numpy_step(a, b, c)

    return step, step


def setup_tinygrad_lite(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable, Callable]:
    """tinygrad_lite, leaves created once, grads reset to None every step."""
    harness.add_repo_to_path()
    import tinygrad_lite as tl

    ta, tb, tc = (tl.tensor(x, requires_grad=True) for x in (a, b, c))

    def step() -> None:
        """One forward + backward, from fresh (None) gradients."""
        ta.grad = tb.grad = tc.grad = None
        y = ((ta * tb) + tc).relu().sum()
        y.backward()

    def result() -> Result:
        """One step, returning y and the gradients as NumPy arrays."""
        ta.grad = tb.grad = tc.grad = None
        y = ((ta * tb) + tc).relu().sum()
        y.backward()
        return y.item(), ta.grad.data, tb.grad.data, tc.grad.data

    return step, result


def setup_torch(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable, Callable]:
    """PyTorch CPU eager with 2 intra-op threads, grads reset to None every step."""
    import torch

    torch.set_num_threads(2)
    ta, tb, tc = (torch.tensor(x, requires_grad=True) for x in (a, b, c))

    def step() -> None:
        """One forward + backward, from fresh (None) gradients."""
        ta.grad = tb.grad = tc.grad = None
        y = ((ta * tb) + tc).relu().sum()
        y.backward()

    def result() -> Result:
        """One step, returning y and the gradients as NumPy arrays."""
        ta.grad = tb.grad = tc.grad = None
        y = ((ta * tb) + tc).relu().sum()
        y.backward()
        return y.item(), ta.grad.numpy(), tb.grad.numpy(), tc.grad.numpy()

    return step, result


SETUPS = {"numpy": setup_numpy, "tinygrad_lite": setup_tinygrad_lite, "torch": setup_torch}


def check(framework: str, n: int, got: Result, want: Result, when: str) -> list[str]:
    """Differences between a framework's (y, grads) and the NumPy reference, as messages."""
    problems = []
    for name, g, w in zip(("y", "grad a", "grad b", "grad c"), got, want, strict=True):
        g, w = np.asarray(g, dtype=np.float64), np.asarray(w, dtype=np.float64)
        if g.shape != w.shape:
            problems.append(f"{name}: shape {g.shape}, expected {w.shape}")
        elif not np.allclose(g, w, rtol=RTOL, atol=ATOL):
            err = np.abs(g - w).max()
            problems.append(f"{name}: max abs difference {err:.3g} (rtol {RTOL}, atol {ATOL})")
    return [f"{framework} {n}x{n} {when}: {p}" for p in problems]


def worker(framework: str, n: int, min_time: float, repeats: int) -> int:
    """Check one framework against the NumPy reference, then time it; print one JSON line."""
    a, b, c = make_inputs(n)
    want = numpy_step(a.copy(), b.copy(), c.copy())
    step, result = SETUPS[framework](a, b, c)
    result()  # a first step, so the check below also covers a rebuilt graph
    problems = check(framework, n, result(), want, "before timing")
    if not problems:
        timing = harness.time_per_iteration(step, min_time, repeats)
        problems = check(framework, n, result(), want, "after timing")
    if problems:
        print("CORRECTNESS MISMATCH\n  " + "\n  ".join(problems), file=sys.stderr)
        return harness.MISMATCH_EXIT
    threads = harness.thread_info()
    if framework == "torch":
        import torch

        threads["torch intra-op"] = torch.get_num_threads()
    harness.emit({"framework": framework, "n": n, "number": timing.number, "median": timing.median,
                  "per_iter": timing.per_iter, "threads": threads})
    return 0


# -- the driver ----------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line (see the module docstring)."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes", default="8,32,512", help="comma-separated N (default 8,32,512)")
    p.add_argument("--rounds", type=int, default=3, help="rounds over all workers (default 3)")
    p.add_argument("--frameworks", default=",".join(FRAMEWORKS), help="comma-separated subset")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 1 round, 0.05 s per repeat, 3 repeats")
    p.add_argument("--min-time", type=float, default=0.2, help="seconds per repeat at least")
    p.add_argument("--repeats", type=int, default=7, help="repeats per measurement")
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.quick:
        args.rounds, args.min_time, args.repeats = 1, 0.05, 3
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.frameworks = [f.strip() for f in args.frameworks.split(",") if f.strip()]
    unknown = sorted(set(args.frameworks) - set(FRAMEWORKS))
    if unknown:
        p.error(f"unknown frameworks {unknown}; choose from {list(FRAMEWORKS)}")
    if args.rounds < 1 or args.repeats < 1 or not args.sizes:
        p.error("--rounds, --repeats and --sizes need at least one")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run every (framework, size) worker for several rounds and print the table and budgets."""
    args = parse_args(argv)
    if args.worker:
        return worker(args.worker[0], int(args.worker[1]), args.min_time, args.repeats)

    frameworks = list(args.frameworks)
    notes = []
    if "torch" in frameworks and importlib.util.find_spec("torch") is None:
        frameworks.remove("torch")
        notes.append("torch: not installed, skipped (`pip install torch==2.13.0` to compare)")
    print("# bench_ops: forward+backward of ((a*b)+c).relu().sum(), float32 (N, N)")
    print(harness.environment_header())
    print(f"rounds {args.rounds} | repeat >= {args.min_time} s | {args.repeats} repeats | "
          f"sizes {args.sizes} | frameworks {frameworks}")
    for note in notes:
        print(f"note: {note}")

    script = Path(__file__).resolve()
    worker_args = ["--min-time", str(args.min_time), "--repeats", str(args.repeats)]
    per_round: dict[tuple[str, int], list[float]] = {}
    for rnd in range(args.rounds):
        order = harness.rotated(frameworks, rnd)
        print(f"\nround {rnd + 1}/{args.rounds}: order {order}")
        for n in args.sizes:
            for fw in order:
                try:
                    res = harness.run_worker(script, [fw, str(n), *worker_args])
                except harness.WorkerError as err:
                    kind = "correctness mismatch" if err.mismatch else "worker failed"
                    print(f"\nERROR ({kind}): {err}", file=sys.stderr)
                    return 1
                per_round.setdefault((fw, n), []).append(res["median"])
                print(f"  {fw:>13} {n:>4}x{n:<4} {harness.fmt_us(res['median']):>9} µs  "
                      f"(loops {res['number']}, threads: {harness.format_threads(res['threads'])})")

    print("\n" + table(frameworks, args.sizes, per_round))
    print("\n## Budget (tinygrad_lite time / numpy time; reported, not enforced)")
    for n, limit in BUDGETS.items():
        ratio = _ratio(per_round, "tinygrad_lite", n)
        if ratio is None:
            print(f"- tinygrad_lite at {n}x{n}: ×numpy ≤ {limit}: SKIP (not measured)")
        else:
            verdict = "PASS" if ratio <= limit else "FAIL"
            print(f"- tinygrad_lite at {n}x{n}: ×numpy {ratio:.2f} (budget ≤ {limit}): {verdict}")
    return 0


def _ratio(per_round: dict, fw: str, n: int) -> float | None:
    """Median time of ``fw`` over median time of numpy at size ``n`` (None if either is missing)."""
    if (fw, n) not in per_round or ("numpy", n) not in per_round:
        return None
    return harness.median(per_round[(fw, n)]) / harness.median(per_round[("numpy", n)])


def table(frameworks: list[str], sizes: list[int], per_round: dict) -> str:
    """The results table: per size, median µs, ratio to numpy and the spread across rounds."""
    headers = ["framework"]
    for n in sizes:
        headers += [f"{n}x{n} µs", "×numpy", "spread %"]
    rows = []
    for fw in frameworks:
        row: list[object] = [fw]
        for n in sizes:
            times = per_round[(fw, n)]
            ratio = _ratio(per_round, fw, n)
            row += [
                harness.fmt_us(harness.median(times)),
                "n/a" if ratio is None else f"{ratio:.2f}",
                f"{harness.spread_pct(times):.0f}",
            ]
        rows.append(row)
    return harness.markdown_table(headers, rows)


if __name__ == "__main__":
    sys.exit(main())
