"""Compare tinygrad_lite at another git revision with the working tree, in one process.

On a shared machine the speed of a whole process can move by 2x, so separate-process runs cannot
resolve a 10-30 % change. Here the package at ``--base`` is exported with ``git archive`` into a
temporary directory and imported under another name beside the working tree's; both run the same
steps interleaved in blocks, and the fastest block of each is reported (GC on), together with the
hand-written NumPy floor of the op chain measured in the same blocks. ``--models`` adds eager
training steps of ``bench_models.py``'s models (cnn, resnet, gpt, lstm), for changes to the
kernels and the convolution.

    python3 benchmarks/ab_inprocess.py [--base HEAD~1] [--blocks 25] [--models cnn,resnet]
"""

from __future__ import annotations

import argparse
import importlib
import io
import subprocess
import sys
import tarfile
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent


def import_revision(rev: str, into: Path) -> object:
    """The package at git revision ``rev``, imported as ``tl_base`` (its imports are relative)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", rev, "tinygrad_lite"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    (into / "tinygrad_lite").rename(into / "tl_base")
    sys.path.insert(0, str(into))
    return importlib.import_module("tl_base")


def op_chain(tl: object) -> Callable[[], None]:
    """Forward + backward of ((a*b)+c).relu().sum() on float32 8x8, as bench_ops times it."""
    rng = np.random.default_rng(0)
    ta, tb, tc = (tl.tensor(rng.standard_normal((8, 8), dtype=np.float32), requires_grad=True)
                  for _ in range(3))

    def step() -> None:
        ta.grad = tb.grad = tc.grad = None
        ((ta * tb) + tc).relu().sum().backward()

    return step


def numpy_chain() -> Callable[[], tuple]:
    """The op chain's NumPy floor (bench_ops.numpy_step)."""
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((8, 8), dtype=np.float32) for _ in range(3))

    def step() -> tuple:
        u = a * b + c
        mask = (u > 0).astype(np.float32)
        return np.maximum(u, 0).sum(), mask * b, mask * a, mask

    return step


def mlp_step(tl: object, sizes: tuple, batch: int, hinge: bool) -> Callable[[], None]:
    """One SGD-momentum step of a ReLU MLP: the toy workload (hinge) or the MLP (cross-entropy)."""
    rng = np.random.default_rng(1)
    tl.manual_seed(0)
    layers: list = []
    for i in range(len(sizes) - 1):
        layers += [tl.nn.Linear(sizes[i], sizes[i + 1]), tl.nn.ReLU()]
    model = tl.nn.Sequential(*layers[:-1])
    opt = tl.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = tl.from_numpy(rng.standard_normal((batch, sizes[0])).astype(np.float32))
    if hinge:
        y = tl.from_numpy(np.sign(rng.standard_normal((batch, 1))).astype(np.float32))
    else:
        y = tl.from_numpy(rng.integers(0, sizes[-1], batch))

    def step() -> None:
        opt.zero_grad()
        out = model(x)
        loss = ((1 - y * out).relu().mean() if hinge
                else tl.nn.functional.cross_entropy(out, y))
        loss.backward()
        opt.step()

    return step


def model_step(tl: object, name: str) -> Callable[[], None]:
    """One eager training step of ``bench_models``' model ``name``."""
    import bench_models

    return bench_models.training_step(tl, name)


def fastest_blocks(steps: dict[str, Callable], blocks: int, seconds: float = 0.05) -> dict:
    """Per step, the fastest of ``blocks`` interleaved blocks, in microseconds per call."""
    loops = {}
    for name, fn in steps.items():
        for _ in range(3):  # warm up first: a first call may compile kernels (seconds), which
            fn()            # would otherwise leave one call per block and time it cold
        n = 1
        while timeit.timeit(fn, number=n) < seconds:
            n *= 2
        loops[name] = n
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(blocks):
        for name, fn in steps.items():
            best[name] = min(best[name], timeit.timeit(fn, number=loops[name]) / loops[name])
    return {name: t * 1e6 for name, t in best.items()}


def main(argv: list[str] | None = None) -> int:
    """Print before/after figures for the op chain, the toy step and the MLP step."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--base", default="HEAD~1", help="git revision to compare against")
    p.add_argument("--blocks", type=int, default=25)
    p.add_argument("--models", default="", help="comma-separated bench_models models to add")
    args = p.parse_args(argv)
    sys.path.insert(0, str(REPO))
    import tinygrad_lite as current

    with tempfile.TemporaryDirectory() as tmp:
        base = import_revision(args.base, Path(tmp))
        cases = {
            "op chain 8x8": (op_chain, {"numpy": numpy_chain()}),
            "toy step (2-16-16-1, 200 points)": (
                lambda tl: mlp_step(tl, (2, 16, 16, 1), 200, hinge=True), {}),
            "MLP step (784-256-128-10, batch 32)": (
                lambda tl: mlp_step(tl, (784, 256, 128, 10), 32, hinge=False), {}),
        }
        for name in filter(None, args.models.split(",")):
            cases[f"{name} step (bench_models)"] = (
                lambda tl, name=name: model_step(tl, name), {})
        print(f"base {args.base} against the working tree; fastest of {args.blocks} blocks, µs")
        print("| step | base | current | current/base | numpy |")
        print("|---|---|---|---|---|")
        for label, (make, extra) in cases.items():
            steps = {"base": make(base), "current": make(current), **extra}
            t = fastest_blocks(steps, args.blocks)
            floor = f"{t['numpy']:.2f}" if "numpy" in t else "-"
            print(f"| {label} | {t['base']:.1f} | {t['current']:.1f} | "
                  f"{t['current'] / t['base']:.3f} | {floor} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
