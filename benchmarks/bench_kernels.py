"""The compiled loop kernels against the NumPy reference, A/B in one process.

Each case runs with ``_kernels.use_backend("numpy")`` and ``use_backend("numba")`` alternately,
in blocks, and reports the fastest block of each and their ratio (numpy time / numba time: above
1 the kernels are faster). Cases: the layers and ops with a kernel family of this issue (LSTM
and GRU layers forward + backward, 2-d max and average pooling forward + backward, the
optimizers' updates over a GPT-sized parameter set) at the shapes of ``bench_models.py``; the
eager kernels of activations, softmax, cross-entropy and normalisation (``eager``: GELU, ReLU,
leaky_relu, dropout's scale, softmax/log_softmax/cross_entropy, layer/RMS/batch norm at GPT's
16x64x128 (MLP 16x64x512, scores 16x4x64x64, logits 1024x65), the CNN's 100x16x28x28 and the
ResNet's 64x16x32x32; ``--dtype`` picks float32 or float64), and the whole training steps of
``bench_models.py``'s models. ``--threads N`` above 1 also turns on the eager kernels' threaded
variants (``ops.kernel_choice.THREADED``, off by default).

    python3 benchmarks/bench_kernels.py [--cases ops,eager,models] [--blocks 7] [--threads 1]
        [--dtype float32]
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


def eager_cases(tl: Any, dtype: str) -> dict[str, Callable[[], object]]:
    """Activations, softmax, cross-entropy and normalisation, forward and forward + backward."""
    F = tl.nn.functional  # noqa: N806 - PyTorch's spelling
    dt = getattr(tl, dtype)

    def randn(*shape: int, grad: bool = False) -> Any:
        return tl.randn(*shape, dtype=dt, requires_grad=grad)

    x, g = randn(16, 64, 512, grad=True), randn(16, 64, 512)
    xc, gc = randn(100, 16, 28, 28, grad=True), randn(100, 16, 28, 28)
    s, gs = randn(16, 4, 64, 64, grad=True), randn(16, 4, 64, 64)
    logits, target = randn(1024, 65, grad=True), tl.randint(0, 65, (1024,))
    xl, gl = randn(16, 64, 128, grad=True), randn(16, 64, 128)
    w, b = randn(128, grad=True), randn(128, grad=True)
    xr, gr = randn(64, 16, 32, 32, grad=True), randn(64, 16, 32, 32)
    wc, bc = randn(16, grad=True), randn(16, grad=True)
    rm, rv = tl.zeros(16, dtype=dt), tl.ones(16, dtype=dt)
    return {
        "gelu (GPT MLP 16x64x512) fwd": lambda: F.gelu(x.detach()),
        "gelu fwd+bwd": lambda: F.gelu(x).backward(g),
        "gelu tanh fwd": lambda: F.gelu(x.detach(), approximate="tanh"),
        "gelu tanh fwd+bwd": lambda: F.gelu(x, approximate="tanh").backward(g),
        "leaky_relu fwd": lambda: F.leaky_relu(x.detach(), 0.01),
        "leaky_relu fwd+bwd": lambda: F.leaky_relu(x, 0.01).backward(g),
        "relu fwd+bwd": lambda: F.relu(x).backward(g),
        "relu (CNN 100x16x28x28) fwd+bwd": lambda: F.relu(xc).backward(gc),
        "dropout p=0.1 fwd+bwd (no kernel: noise check)": lambda: F.dropout(x, 0.1).backward(g),
        "softmax (GPT scores 16x4x64x64) fwd": lambda: F.softmax(s.detach(), -1),
        "softmax fwd+bwd": lambda: F.softmax(s, -1).backward(gs),
        "log_softmax fwd": lambda: F.log_softmax(s.detach(), -1),
        "log_softmax fwd+bwd": lambda: F.log_softmax(s, -1).backward(gs),
        "cross_entropy (GPT 1024x65) fwd": lambda: F.cross_entropy(logits.detach(), target),
        "cross_entropy fwd+bwd": lambda: F.cross_entropy(logits, target).backward(),
        "layer_norm (GPT 16x64x128) fwd": lambda: F.layer_norm(xl.detach(), (128,),
                                                               w.detach(), b.detach()),
        "layer_norm fwd+bwd": lambda: F.layer_norm(xl, (128,), w, b).backward(gl),
        "rms_norm fwd": lambda: F.rms_norm(xl.detach(), (128,), w.detach()),
        "rms_norm fwd+bwd": lambda: F.rms_norm(xl, (128,), w).backward(gl),
        "batch_norm train (CNN 100x16x28x28) fwd": lambda: F.batch_norm(
            xc.detach(), rm, rv, wc.detach(), bc.detach(), training=True),
        "batch_norm train fwd+bwd": lambda: F.batch_norm(xc, rm, rv, wc, bc,
                                                         training=True).backward(gc),
        "batch_norm train (ResNet 64x16x32x32) fwd+bwd": lambda: F.batch_norm(
            xr, rm, rv, wc, bc, training=True).backward(gr),
        "batch_norm eval (CNN) fwd": lambda: F.batch_norm(xc.detach(), rm, rv, wc.detach(),
                                                          bc.detach(), training=False),
    }


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
    parser.add_argument("--cases", default="ops,eager,models")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
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
    # the eager kernels' threaded variants, off by default (see ops/kernel_choice.py)
    importlib.import_module("tinygrad_lite.ops.kernel_choice").THREADED = args.threads > 1
    cases: dict[str, Callable[[], object]] = {}
    if "ops" in args.cases:
        cases.update(op_cases(tl))
    if "eager" in args.cases:
        cases.update(eager_cases(tl, args.dtype))
    if "models" in args.cases:
        cases.update(model_cases(tl))
    print(f"{'case':<52} {'numpy ms':>9} {'numba ms':>9} {'ratio':>6}")
    for name, step in cases.items():
        numpy_s, numba_s = ab(kernels, step, args.blocks)
        print(f"{name:<52} {numpy_s * 1e3:9.2f} {numba_s * 1e3:9.2f} "
              f"{numpy_s / numba_s:6.2f}", flush=True)


if __name__ == "__main__":
    main()
