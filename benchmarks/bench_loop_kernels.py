"""``tl.compile``'s loop kernels on the models of ``bench_models.py``: one training step eager,
compiled with the NumPy backend (the replay of NumPy calls) and compiled with numba's loop
kernels, in one process, interleaved.

The three copies of a model start from the same weights. Each round times ``--steps`` steps of
each variant in turn (median per variant), for ``--rounds`` rounds; the fastest round of each is
reported, with the ratios. Before timing, the kernels' compilation is waited for (its time is
reported: from the on-disk cache when run before), and the first compiled call (the trace) is
timed against one eager step.

    python3 benchmarks/bench_loop_kernels.py [--models cnn,gpt,lstm] [--steps 5] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as harness  # noqa: E402
import bench_models  # noqa: E402

harness.add_repo_to_path()
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import _kernels  # noqa: E402


def _step(model: Any, opt: Any) -> Any:
    loss_fn = tl.nn.functional.cross_entropy

    def step(x: Any, y: Any) -> Any:
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        opt.step()
        return loss

    return step


def _variants(name: str) -> tuple[dict[str, Any], dict[str, float]]:
    """The three step functions of model ``name`` and the setup times (seconds)."""
    steps: dict[str, Any] = {}
    setup: dict[str, float] = {}
    for variant in ("eager", "compiled numpy", "compiled kernels"):
        tl.manual_seed(0)
        model, opt, (x, y) = bench_models.BUILDERS[name](tl)
        step = _step(model, opt)
        if variant != "eager":
            backend = "numpy" if variant == "compiled numpy" else "numba"
            compiled = tl.compile(step)
            with _kernels.use_backend(backend):
                start = time.perf_counter()
                compiled(x, y)  # traced (new optimizer state: traced again on the next call)
                compiled(x, y)
                setup[f"{variant}: two first calls s"] = time.perf_counter() - start
            start = time.perf_counter()
            compiled.wait_for_kernels()
            if compiled.kernels:
                setup["kernels"] = len(compiled.kernels)
                setup["distinct kernels"] = len({k.name for k in compiled.kernels})
                setup["kernel compile wait s"] = time.perf_counter() - start
            step = compiled
        steps[variant] = (step, x, y)
    return steps, setup


def main(argv: list[str] | None = None) -> None:
    """Print one table row per model."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="cnn,gpt,lstm")
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    print("| model | eager ms | compiled (NumPy) ms | compiled (kernels) ms | kernels / eager "
          "| kernels / compiled NumPy | kernels (distinct) |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        steps, setup = _variants(name)
        best: dict[str, float] = {}
        for _ in range(args.rounds):
            for variant, (step, x, y) in steps.items():
                step(x, y)  # (warm)
                times = []
                for _ in range(args.steps):
                    start = time.perf_counter()
                    step(x, y)
                    times.append(time.perf_counter() - start)
                ms = 1e3 * statistics.median(times)
                best[variant] = min(best.get(variant, ms), ms)
        eager, numpy_ms, kernels = (best["eager"], best["compiled numpy"],
                                    best["compiled kernels"])
        print(f"| {name} | {eager:.1f} | {numpy_ms:.1f} | {kernels:.1f} | {kernels / eager:.2f}x"
              f" | {kernels / numpy_ms:.2f}x | {setup.get('kernels', 0)} "
              f"({setup.get('distinct kernels', 0)}) |", flush=True)
        print("    setup: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}"
                                         for k, v in setup.items()), flush=True)


if __name__ == "__main__":
    main()
