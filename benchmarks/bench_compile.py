"""``tl.compile`` against the hand-written NumPy floor, eager tinygrad_lite and the peers, in one
process: the toy step (2-16-16-1, 200 points, hinge, SGD momentum), the MLP step (784-256-128-10,
cross-entropy, SGD momentum) at batch 32 and 256, and the 8x8 op chain ``((a*b)+c).relu().sum()``
forward + backward. ``compiled (NumPy backend)`` is the same compiled step traced with
``TINYGRAD_LITE_KERNELS=numpy`` semantics (no loop kernels).

On a shared machine a whole process can run 2x slower from one minute to the next, so every row of
one workload runs interleaved in blocks, and the fastest block of each is reported as a ratio to
the floor's fastest block. Also reported: the first (tracing) call against one eager step (the
fastest of five fresh compiled functions), and the peak traced memory (tracemalloc) of 20
compiled steps against 20 eager ones. Peers run when installed: ``jax.jit`` of the same step
(``pip install jax``), PyTorch eager.

    python3 benchmarks/bench_compile.py [--blocks 15] [--quick]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
import timeit
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as harness  # noqa: E402
import _workloads as wl  # noqa: E402

harness.add_repo_to_path()
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import _kernels  # noqa: E402

# Budgets from the compile issue: compiled time / NumPy floor.
BUDGETS = {"toy": 1.0, "MLP B=32": 1.0, "MLP B=256": 1.0, "op chain 8x8": 1.5}
FIRST_CALL_BUDGET = 20.0  # first (tracing) call / one eager step


def chain_rows() -> dict[str, Callable[[], object]]:
    """The 8x8 op chain: floor, eager, compiled (and PyTorch when installed)."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((8, 8), dtype=np.float32) for _ in range(3))

    def floor() -> tuple:
        u = a * b + c
        mask = (u > 0).astype(np.float32)
        return np.maximum(u, 0).sum(), mask * b, mask * a, mask

    ta, tb, tc = (tl.tensor(v, requires_grad=True) for v in (a, b, c))

    def eager() -> object:
        ta.grad = tb.grad = tc.grad = None
        out = ((ta * tb) + tc).relu().sum()
        out.backward()
        return out

    rows = {"numpy": floor, "tinygrad_lite": eager, "tl_compiled": tl.compile(eager),
            "tl_compiled_numpy": numpy_backend(tl.compile(eager))}
    if importlib.util.find_spec("torch") is not None:
        import torch

        xa, xb, xc = (torch.tensor(v, requires_grad=True) for v in (a, b, c))

        def torch_step() -> object:
            xa.grad = xb.grad = xc.grad = None
            out = ((xa * xb) + xc).relu().sum()
            out.backward()
            return out

        rows["torch"] = torch_step
    if importlib.util.find_spec("jax") is not None:
        import jax
        import jax.numpy as jnp

        grad = jax.jit(jax.value_and_grad(lambda x, y, z: jnp.sum(jnp.maximum(x * y + z, 0)),
                                          argnums=(0, 1, 2)))
        ja, jb, jc = (jnp.asarray(v) for v in (a, b, c))
        rows["jax"] = lambda: jax.block_until_ready(grad(ja, jb, jc))
    return rows


def training_rows(kind: str, batch: int) -> dict[str, Callable[[], object]]:
    """The toy or MLP training step of every available framework (benchmarks/_workloads)."""
    frameworks, _ = wl.available(["numpy", "tinygrad_lite", "tl_compiled", "torch", "jax"])
    rows = {}
    if kind == "toy":
        params, x, y = wl.toy_inputs()
        for fw in frameworks:
            rows[fw] = wl.TOY_BUILDERS[fw](params, x, y)[0]
        rows["tl_compiled_numpy"] = numpy_backend(wl.TOY_BUILDERS["tl_compiled"](params, x, y)[0])
    else:
        params, xs, ys = wl.mlp_inputs(batch)
        for fw in frameworks:
            rows[fw] = wl.MLP_BUILDERS[fw](params, xs, ys)
        rows["tl_compiled_numpy"] = numpy_backend(wl.MLP_BUILDERS["tl_compiled"](params, xs, ys))
    return rows


def numpy_backend(step: Callable[[], object]) -> Callable[[], object]:
    """``step`` (a compiled row) traced with the NumPy kernel backend: its replay is NumPy calls
    only, no loop kernels (the backend is read when a call is traced: the first calls)."""
    calls = [0]

    def run() -> object:
        if calls[0] < 4:
            calls[0] += 1
            with _kernels.use_backend("numpy"):
                return step()
        return step()

    return run


def measure(rows: dict[str, Callable[[], object]], blocks: int, number: int) -> dict[str, float]:
    """Seconds per call of each row: the fastest of ``blocks`` interleaved blocks."""
    for fn in rows.values():  # warm up (a compiled row traces here)
        for _ in range(3):
            fn()
    best = {name: float("inf") for name in rows}
    for _ in range(blocks):
        for name, fn in rows.items():
            best[name] = min(best[name], timeit.timeit(fn, number=number) / number)
    return best


def first_call_ratio(repeats: int = 5) -> tuple[float, float]:
    """(first compiled call, first replay) of the MLP B=32 step, each over one eager step:
    the fastest of ``repeats`` fresh compiled functions (a cyclic garbage collection of the
    whole process, 15 ms here, lands in one trace or another, as in any timed block)."""
    params, xs, ys = wl.mlp_inputs(32)
    eager = wl.MLP_BUILDERS["tinygrad_lite"](params, xs, ys)
    for _ in range(5):
        eager()
    one_eager = min(timeit.repeat(eager, number=1, repeat=20))
    traces, replays = [], []
    for _ in range(repeats):
        compiled = wl.MLP_BUILDERS["tl_compiled"](params, xs, ys)
        times = []
        for _ in range(3):  # trace (a warm-up: SGD creates its buffers), trace, first replay
            start = time.perf_counter()
            compiled()
            times.append(time.perf_counter() - start)
        traces.append(max(times[:2]))
        replays.append(times[2])
    one_eager = min(one_eager, min(timeit.repeat(eager, number=1, repeat=20)))
    return min(traces) / one_eager, min(replays) / one_eager


def peak_memory(batch: int = 256) -> tuple[int, int]:
    """Peak traced bytes over 20 MLP steps after warm-up: (eager, compiled)."""
    params, xs, ys = wl.mlp_inputs(batch)
    peaks = []
    for fw in ("tinygrad_lite", "tl_compiled"):
        step = wl.MLP_BUILDERS[fw](params, xs, ys)
        for _ in range(3):
            step()
        tracemalloc.start()
        for _ in range(20):
            step()
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    return peaks[0], peaks[1]


def main(argv: list[str] | None = None) -> int:
    """Print the table of ratios and the budgets."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=15)
    p.add_argument("--quick", action="store_true", help="3 blocks, fewer calls")
    args = p.parse_args(argv)
    blocks = 3 if args.quick else args.blocks
    title = "bench_compile: tl.compile against the NumPy floor and the peers (one process)"
    print(f"# {title}\n{harness.environment_header()}", flush=True)
    workloads = {"toy": (lambda: training_rows("toy", 200), 50),
                 "MLP B=32": (lambda: training_rows("mlp", 32), 50),
                 "MLP B=256": (lambda: training_rows("mlp", 256), 10),
                 "op chain 8x8": (chain_rows, 500)}
    table, budgets = [], []
    names = ["numpy", "tinygrad_lite", "tl_compiled", "tl_compiled_numpy", "jax", "torch"]
    for label, (build, number) in workloads.items():
        rows = build()
        best = measure(rows, blocks, max(1, number // (3 if args.quick else 1)))
        floor = best["numpy"]
        table.append([label, f"{floor * 1e6:,.1f}"] + [
            f"{best[n] / floor:.2f}" if n in best else "—" for n in names[1:]])
        budgets.append(harness.Budget(f"compiled {label} / NumPy floor",
                                      best["tl_compiled"] / floor, BUDGETS[label]))
        if "jax" in best:
            print(f"{label}: compiled / jax.jit = {best['tl_compiled'] / best['jax']:.2f}")
        print(f"{label}: done", flush=True)
    first, replay = first_call_ratio()
    eager_peak, compiled_peak = peak_memory()
    text = [f"### {title}", "",
            harness.markdown_table(["workload", "floor µs", "eager ×floor", "compiled ×floor",
                                    "compiled (NumPy backend) ×floor", "jax.jit ×floor",
                                    "torch ×floor"], table), "",
            f"First compiled call (tracing) = {first:.1f} eager steps; first replay (code "
            f"generation) = {replay:.1f} eager steps (MLP B=32).",
            f"Peak traced memory over 20 MLP B=256 steps: eager {eager_peak / 2**20:.2f} MiB, "
            f"compiled {compiled_peak / 2**20:.2f} MiB."]
    budgets.append(harness.Budget("first (tracing) call / one eager step", first,
                                  FIRST_CALL_BUDGET))
    budgets.append(harness.Budget("compiled peak memory / eager", compiled_peak / eager_peak,
                                  1.0))
    return harness.print_report(harness.Report(title, text, budgets))


if __name__ == "__main__":
    sys.exit(main())
