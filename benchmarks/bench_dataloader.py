"""DataLoader throughput with worker processes: an image-like dataset whose ``__getitem__``
spends about 1 ms in NumPy (a 3x64x64 image, normalised and augmented), batch 32, for 0, 2 and
4 workers; batches per second, best of a few epochs. The load average is printed: on a shared
2-core machine the numbers move with it.

    python3 benchmarks/bench_dataloader.py [--samples 512]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite.utils.data import DataLoader, Dataset  # noqa: E402


class Images(Dataset):
    """Synthetic 3x64x64 images with about 1 ms of per-sample NumPy work."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple:
        rng = np.random.default_rng(i)
        img = rng.random((3, 64, 64), dtype=np.float32)
        for _ in range(28):  # "augmentation": blur-like passes
            img = 0.5 * img + 0.25 * (np.roll(img, 1, 1) + np.roll(img, 1, 2))
        img = (img - img.mean()) / (img.std() + 1e-6)
        return tl.tensor(img), i % 10


def main(argv: list[str] | None = None) -> dict:
    """Print and return batches per second per worker count."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1024)
    args = parser.parse_args(argv)
    data = Images(args.samples)
    start = time.perf_counter()
    for i in range(50):
        data[i]
    per_item = (time.perf_counter() - start) / 50
    print(f"__getitem__: {per_item * 1e3:.2f} ms; load average {os.getloadavg()[0]:.2f}")
    results = {}
    for workers in (0, 2, 4):
        best = float("inf")
        for _ in range(2):
            loader = DataLoader(data, batch_size=32, num_workers=workers)
            start = time.perf_counter()
            batches = sum(1 for _ in loader)
            best = min(best, time.perf_counter() - start)
        results[workers] = batches / best
        print(f"{workers} workers: {results[workers]:6.1f} batches/s")
    return results


if __name__ == "__main__":
    main()
