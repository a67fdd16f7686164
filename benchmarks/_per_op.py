"""``bench_ops.py --per-op``: forward, and forward + backward, of each common op on (N, N) float32.

The NumPy floor does the same arithmetic by hand: the forward, then the input gradients for a
fixed upstream gradient ``g`` (the frameworks call ``y.backward(g)``, so no extra reduction op is
timed). Each (framework, N) runs in its own subprocess that times every op in both modes; the
gradients are checked against the floor's first.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import _harness as harness
import _workloads as wl
import numpy as np

FRAMEWORKS = ("numpy", "tinygrad_lite", "torch")


def _softmax(a: np.ndarray) -> np.ndarray:
    e = np.exp(a - a.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-a))


# name -> (number of inputs, framework expression, NumPy forward, NumPy input gradients given g).
# Input 0 is N(0, 1); input 1 is N(0, 1), or positive (|x| + 0.5) for div and log.
OPS: dict[str, tuple[int, Callable, Callable, Callable]] = {
    "add": (2, lambda a, b: a + b, lambda a, b: a + b, lambda a, b, y, g: (g, g)),
    "mul": (2, lambda a, b: a * b, lambda a, b: a * b, lambda a, b, y, g: (g * b, g * a)),
    "div": (2, lambda a, b: a / b, lambda a, b: a / b,
            lambda a, b, y, g: (g / b, -g * a / (b * b))),
    "matmul": (2, lambda a, b: a @ b, lambda a, b: a @ b,
               lambda a, b, y, g: (g @ b.T, a.T @ g)),
    "relu": (1, lambda a: a.relu(), lambda a: np.maximum(a, 0), lambda a, y, g: (g * (a > 0),)),
    "exp": (1, lambda a: a.exp(), np.exp, lambda a, y, g: (g * y,)),
    "log": (1, lambda a: a.log(), np.log, lambda a, y, g: (g / a,)),
    "tanh": (1, lambda a: a.tanh(), np.tanh, lambda a, y, g: (g * (1 - y * y),)),
    "sigmoid": (1, lambda a: a.sigmoid(), _sigmoid, lambda a, y, g: (g * y * (1 - y),)),
    "sum": (1, lambda a: a.sum(), np.sum, lambda a, y, g: (np.broadcast_to(g, a.shape),)),
    "mean(1)": (1, lambda a: a.mean(1), lambda a: a.mean(1),
                lambda a, y, g: (np.broadcast_to(g[:, None] / a.shape[1], a.shape),)),
    "softmax(1)": (1, lambda a: a.softmax(1), _softmax,
                   lambda a, y, g: (y * (g - (g * y).sum(1, keepdims=True)),)),
    "transpose": (1, lambda a: a.transpose(0, 1), lambda a: a.T, lambda a, y, g: (g.T,)),
    "reshape": (1, lambda a: a.reshape(-1), lambda a: a.reshape(-1),
                lambda a, y, g: (g.reshape(a.shape),)),
}
POSITIVE = {"div": 1, "log": 0}  # which input must be positive


def inputs(name: str, n: int) -> tuple[list[np.ndarray], np.ndarray]:
    """The op's float32 inputs and the upstream gradient ``g`` (shaped like its output)."""
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((n, n), dtype=np.float32) for _ in range(OPS[name][0])]
    if name in POSITIVE:
        arrays[POSITIVE[name]] = np.abs(arrays[POSITIVE[name]]) + np.float32(0.5)
    y = OPS[name][2](*arrays)
    return arrays, rng.standard_normal(np.shape(y)).astype(np.float32)


def numpy_cases(name: str, arrays: list, g: np.ndarray) -> tuple[Callable, Callable]:
    """(forward, forward + gradients) for the floor."""
    _, _, fwd, bwd = OPS[name]

    def both() -> tuple:
        y = fwd(*arrays)
        return bwd(*arrays, y, g)

    return lambda: fwd(*arrays), both


def framework_cases(fw: str, name: str, arrays: list, g: np.ndarray) -> tuple[Callable, Callable]:
    """(forward recorded for autograd, forward + backward) for tinygrad_lite or torch."""
    if fw == "tinygrad_lite":
        harness.add_repo_to_path()
        import tinygrad_lite as lib

        leaves = [lib.tensor(x, requires_grad=True) for x in arrays]
    else:
        import torch as lib

        lib.set_num_threads(2)
        leaves = [lib.tensor(x, requires_grad=True) for x in arrays]
    tg = lib.tensor(g)
    expr = OPS[name][1]

    def both() -> Any:
        for t in leaves:
            t.grad = None
        expr(*leaves).backward(tg)
        return tuple(t.grad for t in leaves)

    return lambda: expr(*leaves), both


def worker(fw: str, n: int, min_time: float, repeats: int) -> int:
    """Check and time every op forward and forward + backward; print one JSON line."""
    out: dict[str, Any] = {}
    for name in OPS:
        arrays, g = inputs(name, n)
        want = numpy_cases(name, arrays, g)[1]()
        fwd, both = (numpy_cases if fw == "numpy" else
                     lambda *a: framework_cases(fw, *a))(name, arrays, g)
        got = [np.asarray(x if isinstance(x, np.ndarray) else x.numpy()) for x in both()]
        for i, (gv, wv) in enumerate(zip(got, want)):
            if gv.shape != np.shape(wv) or not np.allclose(gv, wv, rtol=1e-4, atol=1e-4):
                print(f"CORRECTNESS MISMATCH: per-op {name} {fw} {n}x{n}: gradient of input {i} "
                      f"differs from the NumPy floor's", file=sys.stderr)
                return harness.MISMATCH_EXIT
        out[name] = [harness.time_per_iteration(fwd, min_time, repeats).median,
                     harness.time_per_iteration(both, min_time, repeats).median]
    harness.emit({"ops": out, "threads": harness.thread_info()})
    return 0


def run(args: argparse.Namespace, script: Path) -> harness.Report:
    """Per size: a table op x (forward, forward + backward) for every framework vs NumPy."""
    frameworks, notes = wl.available([f for f in args.frameworks if f in FRAMEWORKS])
    title = "bench_ops --per-op: forward and forward+backward of each op, float32 (N, N)"
    print(f"# {title}\n{harness.environment_header()}")
    print(f"rounds {args.rounds} | repeat >= {args.min_time} s | {args.repeats} repeats | "
          f"sizes {args.sizes} | frameworks {frameworks}", flush=True)
    text = [f"### {title}", ""] + [f"note: {n}" for n in notes]
    extra = ["--per-op", "--min-time", str(args.min_time), "--repeats", str(args.repeats)]
    found = harness.run_rounds(script, [str(n) for n in args.sizes], frameworks, args.rounds,
                               extra, lambda r: f"{len(r['ops'])} ops")
    if found is None:
        return harness.Report(title, text, [], failed=True)

    def med(fw: str, n: int, op: str, mode: int) -> float:
        return harness.median([r["ops"][op][mode] for r in found[(fw, str(n))]])

    others = [fw for fw in frameworks if fw != "numpy"]
    for n in args.sizes:
        headers = ["op", "numpy fwd µs"]
        headers += [h for fw in others for h in (f"{fw} fwd µs", "×numpy")]
        headers += ["numpy fwd+bwd µs"]
        headers += [h for fw in others for h in (f"{fw} fwd+bwd µs", "×numpy")]
        rows = []
        for op in OPS:
            row: list[object] = [op]
            for mode in (0, 1):
                floor = med("numpy", n, op, mode)
                row.append(harness.fmt_us(floor))
                for fw in others:
                    t = med(fw, n, op, mode)
                    row += [harness.fmt_us(t), f"{t / floor:.2f}"]
            rows.append(row)
        text += [f"{n}x{n} (median of {args.rounds} rounds):", "",
                 harness.markdown_table(headers, rows), ""]
    text.append("Every op's gradients matched the NumPy floor's (rtol 1e-4, atol 1e-4).")
    return harness.Report(title, text, [])
