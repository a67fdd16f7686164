"""A 1-layer LSTM (input 64, hidden 128), sequence 64, batch 32: forward + backward, against
PyTorch CPU in the same run with the same thread count (interleaved blocks, the fastest block's
median of each), and the traced peak memory of NumPy's allocations during tinygrad_lite's step.
One thread by default: with more, PyTorch's OpenMP threads and NumPy's BLAS threads spin for the
cores in one process (``bench_models`` runs each framework in its own process).

    python3 benchmarks/bench_lstm.py [--threads 1] [--repeat 5] [--blocks 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import tinygrad_lite as tl  # noqa: E402


def timed(steps: dict, repeat: int, blocks: int) -> dict:
    """Per step function, the fastest of ``blocks`` interleaved blocks, each the median of
    ``repeat`` calls (after one warm-up call): on a shared machine one framework must not get
    the quiet minute and the other the busy one."""
    for step in steps.values():
        step()
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(blocks):
        for name, step in steps.items():
            samples = []
            for _ in range(repeat):
                start = time.perf_counter()
                step()
                samples.append(time.perf_counter() - start)
            best[name] = min(best[name], statistics.median(samples))
    return best


def main(argv: list[str] | None = None) -> dict:
    """Print and return the timings."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--blocks", type=int, default=5)
    args = parser.parse_args(argv)
    tl.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32, 64)).astype(np.float32)
    model = tl.nn.LSTM(64, 128)
    inp = tl.tensor(x)

    def ours() -> None:
        model.zero_grad()
        out, _ = model(inp)
        out.square().mean().backward()

    steps = {"tinygrad_lite": ours}
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        torch.set_num_threads(args.threads)
        tmodel = torch.nn.LSTM(64, 128)
        tinp = torch.tensor(x)

        def theirs() -> None:
            tmodel.zero_grad()
            out, _ = tmodel(tinp)
            out.square().mean().backward()

        steps["torch"] = theirs
    results = timed(steps, args.repeat, args.blocks)
    tracemalloc.start()
    ours()
    results["tl_peak_mib"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(f"LSTM 64->128, T=64, batch 32, forward + backward, {args.threads} thread(s)")
    print("| framework | ms per step |")
    print("|---|---|")
    for name in ("tinygrad_lite", "torch"):
        if name in results:
            print(f"| {name} | {results[name] * 1e3:.1f} |")
    if "torch" in results:
        print(f"ratio tinygrad_lite / torch: {results['tinygrad_lite'] / results['torch']:.2f}")
    print(f"tinygrad_lite traced peak during a step: {results['tl_peak_mib']:.1f} MiB")
    return results


if __name__ == "__main__":
    main()
