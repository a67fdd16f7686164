"""The compiled loop kernels against the NumPy reference, A/B in one process.

Each case runs with ``_kernels.use_backend("numpy")`` and ``use_backend("numba")`` alternately,
in blocks, and reports the fastest block of each and their ratio (numpy time / numba time: above
1 the kernels are faster). Cases: the layers and ops with a kernel family of this issue (LSTM
and GRU layers forward + backward, 2-d max and average pooling forward + backward, the
optimizers' updates over a GPT-sized parameter set) at the shapes of ``bench_models.py``, and
the whole training steps of ``bench_models.py``'s models.

    python3 benchmarks/bench_kernels.py [--cases ops,models] [--blocks 7] [--threads 1]
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent


def ab(kernels: Any, step: Callable[[], object], blocks: int,
       per_block: int = 3) -> tuple[float, float]:
    """Fastest per-call time (s) of ``step`` under the numpy and the numba backend
    (``kernels``: the package's ``_kernels``)."""
    best = {"numpy": float("inf"), "numba": float("inf")}
    for name in best:  # warm: compile or load the kernels, allocate the caches
        with kernels.use_backend(name):
            step()
    for _ in range(blocks):
        for name in best:
            with kernels.use_backend(name):
                start = time.perf_counter()
                for _ in range(per_block):
                    step()
                best[name] = min(best[name], (time.perf_counter() - start) / per_block)
    return best["numpy"], best["numba"]


def op_cases(tl: Any) -> dict[str, Callable[[], object]]:
    """The ops of this issue's kernel families, at bench_models' shapes."""
    functional = tl.nn.functional
    cases: dict[str, Callable[[], object]] = {}
    x = tl.randn(64, 32, 64)
    for kind in ("LSTM", "GRU"):
        layer = getattr(tl.nn, kind)(64, 128)

        def rnn_step(layer=layer) -> None:
            out, _ = layer(x)
            out.sum().backward()

        cases[f"{kind} 64->128 T=64 B=32 fwd+bwd"] = rnn_step
    for shape in ((100, 16, 28, 28), (64, 32, 16, 16)):
        xp = tl.randn(*shape, requires_grad=True)
        for name, fn in (("max_pool2d 2x2", lambda a: functional.max_pool2d(a, 2)),
                         ("max_pool2d 3x3/2 pad 1", lambda a: functional.max_pool2d(a, 3, 2, 1)),
                         ("avg_pool2d 2x2", lambda a: functional.avg_pool2d(a, 2))):
            def pool_step(fn=fn, xp=xp) -> None:
                fn(xp).sum().backward()

            cases[f"{name} {shape} fwd+bwd"] = pool_step
    # a GPT-sized parameter set (4 blocks of width 128 and the embeddings, ~0.93M floats)
    shapes = [(1000, 128), (64, 128)]
    for _ in range(4):
        shapes += [(384, 128), (384,), (128, 128), (128,), (512, 128), (512,), (128, 512),
                   (128,), (128,), (128,), (128,), (128,)]
    for name, kwargs in (("AdamW", {"lr": 3e-4}), ("Adam", {"lr": 1e-3}),
                         ("SGD", {"lr": 0.01, "momentum": 0.9}), ("RMSprop", {"lr": 0.01})):
        params = [tl.randn(*s, requires_grad=True) for s in shapes]
        for p in params:
            p.grad = tl.randn(*p.shape)
        cases[f"{name} step, 0.93M params"] = getattr(tl.optim, name)(params, **kwargs).step
    return cases


def model_cases(tl: Any) -> dict[str, Callable[[], object]]:
    """Whole training steps (forward, backward, update) of bench_models' models."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    bench_models = importlib.import_module("bench_models")
    cases: dict[str, Callable[[], object]] = {}
    for name in bench_models.MODELS:
        model, opt, (x, y) = getattr(bench_models, {"cnn": "lenet"}.get(name, name))(tl)

        def train_step(model=model, opt=opt, x=x, y=y) -> None:
            opt.zero_grad()
            tl.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()

        cases[f"{name} training step"] = train_step
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default="ops,models")
    parser.add_argument("--blocks", type=int, default=7)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(args.threads)
    sys.path.insert(0, str(REPO))
    tl = importlib.import_module("tinygrad_lite")  # after the thread settings: BLAS reads them
    kernels = importlib.import_module("tinygrad_lite._kernels")
    if not kernels.available():
        sys.exit("numba is not installed: there is nothing to compare")
    tl.manual_seed(0)
    cases: dict[str, Callable[[], object]] = {}
    if "ops" in args.cases:
        cases.update(op_cases(tl))
    if "models" in args.cases:
        cases.update(model_cases(tl))
    print(f"{'case':<52} {'numpy ms':>9} {'numba ms':>9} {'ratio':>6}")
    for name, step in cases.items():
        numpy_s, numba_s = ab(kernels, step, args.blocks)
        print(f"{name:<52} {numpy_s * 1e3:9.2f} {numba_s * 1e3:9.2f} "
              f"{numpy_s / numba_s:6.2f}", flush=True)


if __name__ == "__main__":
    main()
