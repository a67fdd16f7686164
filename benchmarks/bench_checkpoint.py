"""Activation checkpointing: peak memory and time of one training step of a deep MLP, plain and
with ``checkpoint_sequential``, each in a fresh process (peak RSS is per process), and whether the
gradients are identical.

Both children run with ``MALLOC_MMAP_THRESHOLD_=65536``: glibc otherwise raises its mmap
threshold after the first large free and keeps later activations on the heap, where freed memory
stays resident, so peak RSS would not show what is live. The peak of NumPy's traced allocations
(tracemalloc) is reported beside it.

    python3 benchmarks/bench_checkpoint.py [--depth 32] [--width W] [--batch B] [--segments 6]

Without --width/--batch it runs two shapes: width 1024 x batch 256, where the weights and their
gradients (256 MiB) dwarf the activations (about 1 MiB per layer output), so checkpointing can
only trim the top; and width 256 x batch 2048, where activations dominate, as in most training.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import hashlib, json, resource, sys, time, tracemalloc
sys.path.insert(0, sys.argv[1])
import numpy as np
import tinygrad_lite as tl
from tinygrad_lite import nn
from tinygrad_lite.utils.checkpoint import checkpoint_sequential
mode, depth, width, batch, segments = sys.argv[2], *map(int, sys.argv[3:7])
tl.manual_seed(0)
model = nn.Sequential(*[m for _ in range(depth) for m in (nn.Linear(width, width), nn.GELU())])
x = tl.randn(batch, width)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
tracemalloc.start()
start = time.perf_counter()
out = model(x) if mode == "plain" else checkpoint_sequential(model, segments, x,
                                                              use_reentrant=False)
out.square().mean().backward()
seconds = time.perf_counter() - start
traced = tracemalloc.get_traced_memory()[1] / 2**20
tracemalloc.stop()
digest = hashlib.sha256(b"".join(p.grad.numpy().tobytes() for p in model.parameters()))
print(json.dumps({"peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "before_mib": before / 1024, "traced_mib": traced, "seconds": seconds,
                  "grads": digest.hexdigest()}))
"""


def run(mode: str, args: argparse.Namespace) -> dict:
    """One step in a fresh interpreter; its peak RSS, time and a digest of the gradients."""
    out = subprocess.run([sys.executable, "-c", CHILD, str(ROOT), mode, str(args.depth),
                          str(args.width), str(args.batch), str(args.segments)],
                         check=True, capture_output=True, text=True,
                         env={**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"}).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> dict:
    """Print the table; return both runs' figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=32)
    parser.add_argument("--width", type=int)
    parser.add_argument("--batch", type=int)
    parser.add_argument("--segments", type=int, default=6)
    args = parser.parse_args(argv)
    shapes = ([(args.width, args.batch)] if args.width and args.batch
              else [(1024, 256), (256, 2048)])
    results = {}
    for args.width, args.batch in shapes:
        runs = {mode: run(mode, args) for mode in ("plain", "checkpoint")}
        print(f"\n{args.depth}-layer MLP, width {args.width}, batch {args.batch}, "
              f"{args.segments} segments; one forward + backward")
        print("| run | peak RSS (MiB) | RSS before the step | traced peak in the step "
              "| time (s) |")
        print("|---|---|---|---|---|")
        for mode, r in runs.items():
            print(f"| {mode} | {r['peak_mib']:.0f} | {r['before_mib']:.0f} | "
                  f"{r['traced_mib']:.0f} | {r['seconds']:.2f} |")
        same = runs["plain"]["grads"] == runs["checkpoint"]["grads"]
        ratio = runs["checkpoint"]["peak_mib"] / runs["plain"]["peak_mib"]
        step = ((runs["checkpoint"]["peak_mib"] - runs["checkpoint"]["before_mib"])
                / (runs["plain"]["peak_mib"] - runs["plain"]["before_mib"]))
        print(f"peak RSS ratio {ratio:.2f} (growth during the step: {step:.2f}); gradients "
              f"bit-identical: {same}")
        results[(args.width, args.batch)] = runs
    return results

if __name__ == "__main__":
    main()
