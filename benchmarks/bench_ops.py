"""Forward + backward of ``y = ((a*b)+c).relu().sum()`` on float32 (N, N): per-op overhead.

The graph is rebuilt every iteration and the gradients of a, b and c are materialized. Compared:
hand-written NumPy with manual gradients (the floor), tinygrad_lite and, when installed, PyTorch
(CPU, eager), mygrad, HIPS autograd and micrograd (up to 32x32). Each (framework, size) runs in
its own subprocess; see benchmarks/README.md. ``--per-op`` instead times each common op alone,
forward and forward + backward, against NumPy doing the same arithmetic (see _per_op.py).

    python3 benchmarks/bench_ops.py [--sizes 8,32,512] [--rounds 3] [--quick] [--per-op]
        [--ops sort(1),erf]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _harness as harness
import _per_op as per_op_bench
import _workloads as wl
import numpy as np

FRAMEWORKS = ("numpy", "tinygrad_lite", "torch", "mygrad", "autograd", "micrograd")
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
        return y.item(), ta.grad.numpy(), tb.grad.numpy(), tc.grad.numpy()

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


def setup_mygrad(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable, Callable]:
    """mygrad: tensors created once; its backward fills ``.grad`` (cleared by the next op)."""
    import mygrad as mg
    from mygrad.nnet.activations import relu

    ta, tb, tc = (mg.tensor(x) for x in (a, b, c))

    def step() -> Any:
        """One forward + backward."""
        y = relu(ta * tb + tc).sum()
        y.backward()
        return y

    def result() -> Result:
        """One step, returning y and the gradients as NumPy arrays."""
        y = step()
        return y.item(), ta.grad, tb.grad, tc.grad

    return step, result


def setup_autograd(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable, Callable]:
    """HIPS autograd: value_and_grad over the tuple (a, b, c)."""
    import autograd.numpy as anp
    from autograd import value_and_grad

    vg = value_and_grad(lambda abc: anp.sum(anp.maximum(abc[0] * abc[1] + abc[2], 0)))

    def step() -> Any:
        """One forward + backward."""
        return vg((a, b, c))

    def result() -> Result:
        """One step, returning y and the gradients as NumPy arrays."""
        y, (ga, gb, gc) = step()
        return float(y), ga, gb, gc

    return step, result


def setup_micrograd(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> tuple[Callable, Callable]:
    """micrograd: one scalar Value per element (its recursive backward needs a raised limit)."""
    from micrograd.engine import Value

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * a.size + 1000))
    va, vb, vc = ([Value(float(v)) for v in x.ravel()] for x in (a, b, c))

    def step() -> Any:
        """One forward + backward, from zero gradients."""
        for v in (*va, *vb, *vc):
            v.grad = 0.0
        y = sum((x * w + z).relu() for x, w, z in zip(va, vb, vc))
        y.backward()
        return y

    def result() -> Result:
        """One step, returning y and the gradients as NumPy arrays."""
        y = step()
        return (y.data, *(np.array([v.grad for v in vs]).reshape(a.shape)
                           for vs in (va, vb, vc)))

    return step, result


SETUPS = {"numpy": setup_numpy, "tinygrad_lite": setup_tinygrad_lite, "torch": setup_torch,
          "mygrad": setup_mygrad, "autograd": setup_autograd, "micrograd": setup_micrograd}
# micrograd needs ~40 µs per element: 512x512 would take ~10 s per iteration; not run.
MAX_SIZE = {"micrograd": 32}


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
    p.add_argument("--sizes", default=None,
                   help="comma-separated N (default 8,32,512; with --per-op 8,512)")
    p.add_argument("--rounds", type=int, default=None,
                   help="rounds over all workers (default 3; with --per-op 2)")
    p.add_argument("--frameworks", default=None, help="comma-separated subset")
    p.add_argument("--per-op", action="store_true",
                   help="per-op table: forward and forward+backward of each common op")
    p.add_argument("--ops", default=None,
                   help="with --per-op: comma-separated subset of the op rows (default all)")
    p.add_argument("--quick", action="store_true",
                   help="smoke test: 1 round, 0.05 s per repeat, 3 repeats")
    p.add_argument("--min-time", type=float, default=None,
                   help="seconds per repeat at least (default 0.2; with --per-op 0.05)")
    p.add_argument("--repeats", type=int, default=None,
                   help="repeats per measurement (default 7; with --per-op 5)")
    p.add_argument("--worker", nargs=2, metavar=("FRAMEWORK", "N"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    per_op = args.per_op
    defaults = (("8,512", 2, 0.05, 5) if per_op else ("8,32,512", 3, 0.2, 7))
    quick = (1, 0.02, 3) if per_op else (1, 0.05, 3)
    args.sizes = args.sizes or defaults[0]
    args.rounds = args.rounds or (quick[0] if args.quick else defaults[1])
    args.min_time = args.min_time or (quick[1] if args.quick else defaults[2])
    args.repeats = args.repeats or (quick[2] if args.quick else defaults[3])
    allowed = per_op_bench.FRAMEWORKS if per_op else FRAMEWORKS
    args.sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    args.frameworks = [f.strip() for f in (args.frameworks or ",".join(allowed)).split(",")
                       if f.strip()]
    unknown = sorted(set(args.frameworks) - set(allowed))
    if unknown:
        p.error(f"unknown frameworks {unknown}; choose from {list(allowed)}")
    if args.rounds < 1 or args.repeats < 1 or not args.sizes:
        p.error("--rounds, --repeats and --sizes need at least one")
    return args


def run(args: argparse.Namespace) -> harness.Report:
    """Run every (framework, size) worker for several rounds; the table and budgets."""
    if args.per_op:
        return per_op_bench.run(args, Path(__file__).resolve())
    frameworks, notes = wl.available(args.frameworks)
    title = "bench_ops: forward+backward of ((a*b)+c).relu().sum(), float32 (N, N)"
    print(f"# {title}\n{harness.environment_header()}")
    print(f"rounds {args.rounds} | repeat >= {args.min_time} s | {args.repeats} repeats | "
          f"sizes {args.sizes} | frameworks {frameworks}", flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]
    per_round: dict[tuple[str, int], list[float]] = {}
    extra = ["--min-time", str(args.min_time), "--repeats", str(args.repeats)]
    for n in args.sizes:
        fws = [fw for fw in frameworks if n <= MAX_SIZE.get(fw, n)]
        found = harness.run_rounds(Path(__file__).resolve(), [str(n)], fws, args.rounds, extra,
                                   lambda r: f"{harness.fmt_us(r['median']):>9} µs "
                                             f"(loops {r['number']})")
        if found is None:
            return harness.Report(title, text, [], failed=True)
        per_round.update({(fw, n): [r["median"] for r in runs]
                          for (fw, _), runs in found.items()})
    skipped = [f"{fw} at {n}x{n}" for fw in frameworks for n in args.sizes
               if (fw, n) not in per_round]
    if skipped:
        text.append(f"note: not run (too slow): {', '.join(skipped)}")
    text += [table(frameworks, args.sizes, per_round), "",
             "Every row's y and gradients matched the NumPy floor (rtol 1e-5, atol 1e-6)."]
    budgets = [harness.Budget(f"op chain {n}x{n}", _ratio(per_round, "tinygrad_lite", n), limit)
               for n, limit in BUDGETS.items() if n in args.sizes]
    return harness.Report(title, text, budgets)


def main(argv: list[str] | None = None) -> int:
    """Entry point: a worker, or the driver printing the table and budgets."""
    args = parse_args(argv)
    if args.worker:
        fw, n = args.worker[0], int(args.worker[1])
        if args.per_op:
            return per_op_bench.worker(fw, n, args.min_time, args.repeats, args.ops)
        return worker(fw, n, args.min_time, args.repeats)
    return harness.print_report(run(args))


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
            if (fw, n) not in per_round:
                row += ["n/a (not run)", "", ""]
                continue
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
