"""Attention forward + backward, naive (the T x T matrices, kept for backward) against the
blocked FlashAttention path: time and peak traced memory (NumPy's allocations, tracemalloc) at
batch x heads = 8, head dim 64, float32.

    python3 benchmarks/bench_attention.py [--lengths 512 1024 2048 4096] [--causal]
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite.nn._functional.attention import attention_math  # noqa: E402
from tinygrad_lite.nn._functional.flash_attention import flash_attention  # noqa: E402


def naive_attention(q, k, v, is_causal: bool = False):
    """The plain path (scores, softmax, product), whatever the length: what
    scaled_dot_product_attention runs below its switch to the blocked kernel."""
    return attention_math(q, k, v, None, 0.0, is_causal, 1.0 / np.sqrt(q.shape[-1]))


def measure(fn, q, k, v, causal: bool) -> tuple[float, float]:
    """(seconds, peak MiB) of one forward + backward."""
    for t in (q, k, v):
        t.grad = None
    tracemalloc.start()
    start = time.perf_counter()
    out = fn(q, k, v, is_causal=causal)
    out.sum().backward()
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return seconds, peak


def main(argv: list[str] | None = None) -> list[dict]:
    """Print the table; return its rows."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[512, 1024, 2048, 4096])
    parser.add_argument("--causal", action="store_true")
    args = parser.parse_args(argv)
    rng = np.random.default_rng(0)
    rows = []
    print("| T | naive ms | blocked ms | time blocked/naive | naive peak MiB | blocked peak MiB "
          "| memory blocked/naive |")
    print("|---|---|---|---|---|---|---|")
    for n in args.lengths:
        q, k, v = (tl.tensor(rng.standard_normal((8, n, 64), dtype=np.float32),
                             requires_grad=True) for _ in range(3))
        naive = min((measure(naive_attention, q, k, v, args.causal)
                     for _ in range(2)), key=lambda r: r[0])
        blocked = min((measure(flash_attention, q, k, v, args.causal) for _ in range(2)),
                      key=lambda r: r[0])
        row = {"T": n, "naive_s": naive[0], "blocked_s": blocked[0], "naive_mib": naive[1],
               "blocked_mib": blocked[1]}
        rows.append(row)
        print(f"| {n} | {naive[0] * 1e3:.0f} | {blocked[0] * 1e3:.0f} | "
              f"{blocked[0] / naive[0]:.2f} | {naive[1]:.0f} | {blocked[1]:.0f} | "
              f"{blocked[1] / naive[1]:.3f} |")
    return rows


if __name__ == "__main__":
    main()
