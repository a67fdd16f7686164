"""The compiled loop kernels (``tinygrad_lite/_kernels``) against the NumPy reference, per op,
in one process: each case runs with ``_kernels.use_backend("numpy")`` and ``("numba")`` in turn,
interleaved round by round, and the median of each side is reported with their ratio
(reference / kernels: above 1, the kernels are faster). The shapes are those of
``bench_models.py``: GPT (batch 16, T 64, width 128, 4 heads, MLP width 512, vocabulary 65), the
CNN's batch norm (100x16x28x28) and the ResNet's (64x16x32x32).

``--threads 1`` (the default) times the serial kernels; ``--threads N`` lets the kernels above
``threads.PARALLEL_MIN_ELEMENTS`` use N threads (the BLAS budget too), turning on
``kernel_choice.THREADED`` (off by default: see there).

    python3 benchmarks/bench_kernels.py [--ops act,softmax,norm] [--dtype float32]
        [--rounds 15] [--threads 1]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import tinygrad_lite as tl  # noqa: E402
import tinygrad_lite.nn.functional as F  # noqa: E402,N812 - PyTorch's spelling
from tinygrad_lite import _kernels  # noqa: E402
from tinygrad_lite.ops import kernel_choice  # noqa: E402


def activation_cases(dt: object) -> dict[str, Callable[[], object]]:
    x = tl.randn(16, 64, 512, dtype=dt, requires_grad=True)
    g = tl.randn(16, 64, 512, dtype=dt)
    xc = tl.randn(100, 16, 28, 28, dtype=dt, requires_grad=True)
    gc = tl.randn(100, 16, 28, 28, dtype=dt)
    return {
        "gelu (GPT MLP 16x64x512) fwd": lambda: F.gelu(x.detach()),
        "gelu fwd+bwd": lambda: F.gelu(x).backward(g),
        "gelu tanh fwd": lambda: F.gelu(x.detach(), approximate="tanh"),
        "gelu tanh fwd+bwd": lambda: F.gelu(x, approximate="tanh").backward(g),
        "leaky_relu fwd": lambda: F.leaky_relu(x.detach(), 0.01),
        "leaky_relu fwd+bwd": lambda: F.leaky_relu(x, 0.01).backward(g),
        "relu fwd+bwd": lambda: F.relu(x).backward(g),
        "relu (CNN 100x16x28x28) fwd+bwd": lambda: F.relu(xc).backward(gc),
        "dropout p=0.1 fwd+bwd": lambda: F.dropout(x, 0.1).backward(g),
    }


def softmax_cases(dt: object) -> dict[str, Callable[[], object]]:
    s = tl.randn(16, 4, 64, 64, dtype=dt, requires_grad=True)
    gs = tl.randn(16, 4, 64, 64, dtype=dt)
    logits = tl.randn(1024, 65, dtype=dt, requires_grad=True)
    target = tl.randint(0, 65, (1024,))
    return {
        "softmax (GPT scores 16x4x64x64) fwd": lambda: F.softmax(s.detach(), -1),
        "softmax fwd+bwd": lambda: F.softmax(s, -1).backward(gs),
        "log_softmax fwd": lambda: F.log_softmax(s.detach(), -1),
        "log_softmax fwd+bwd": lambda: F.log_softmax(s, -1).backward(gs),
        "cross_entropy (GPT 1024x65) fwd": lambda: F.cross_entropy(logits.detach(), target),
        "cross_entropy fwd+bwd": lambda: F.cross_entropy(logits, target).backward(),
    }


def norm_cases(dt: object) -> dict[str, Callable[[], object]]:
    x = tl.randn(16, 64, 128, dtype=dt, requires_grad=True)
    g = tl.randn(16, 64, 128, dtype=dt)
    w = tl.randn(128, dtype=dt, requires_grad=True)
    b = tl.randn(128, dtype=dt, requires_grad=True)
    xb = tl.randn(100, 16, 28, 28, dtype=dt, requires_grad=True)
    gb = tl.randn(100, 16, 28, 28, dtype=dt)
    xr = tl.randn(64, 16, 32, 32, dtype=dt, requires_grad=True)
    gr = tl.randn(64, 16, 32, 32, dtype=dt)
    wc = tl.randn(16, dtype=dt, requires_grad=True)
    bc = tl.randn(16, dtype=dt, requires_grad=True)
    rm, rv = tl.zeros(16, dtype=dt), tl.ones(16, dtype=dt)
    return {
        "layer_norm (GPT 16x64x128) fwd": lambda: F.layer_norm(x.detach(), (128,), w.detach(),
                                                               b.detach()),
        "layer_norm fwd+bwd": lambda: F.layer_norm(x, (128,), w, b).backward(g),
        "rms_norm fwd": lambda: F.rms_norm(x.detach(), (128,), w.detach()),
        "rms_norm fwd+bwd": lambda: F.rms_norm(x, (128,), w).backward(g),
        "batch_norm train (CNN 100x16x28x28) fwd": lambda: F.batch_norm(
            xb.detach(), rm, rv, wc.detach(), bc.detach(), training=True),
        "batch_norm train fwd+bwd": lambda: F.batch_norm(xb, rm, rv, wc, bc,
                                                         training=True).backward(gb),
        "batch_norm train (ResNet 64x16x32x32) fwd+bwd": lambda: F.batch_norm(
            xr, rm, rv, wc, bc, training=True).backward(gr),
        "batch_norm eval (CNN) fwd": lambda: F.batch_norm(xb.detach(), rm, rv, wc.detach(),
                                                          bc.detach(), training=False),
    }


GROUPS = {"act": activation_cases, "softmax": softmax_cases, "norm": norm_cases}


def measure(fn: Callable[[], object], rounds: int) -> dict[str, float]:
    """Median seconds per call of each backend, the backends interleaved call by call."""
    times: dict[str, list[float]] = {"numpy": [], "numba": []}
    for backend in times:  # warm-up: compiles (or loads) the kernels, fills caches
        with _kernels.use_backend(backend):
            fn()
    for _ in range(rounds):
        for backend, seen in times.items():
            with _kernels.use_backend(backend):
                start = time.perf_counter()
                fn()
                seen.append(time.perf_counter() - start)
    return {backend: statistics.median(seen) for backend, seen in times.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ops", default="act,softmax,norm")
    parser.add_argument("--dtype", default="float32", choices=["float32", "float64"])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    if not _kernels.available():
        sys.exit("numba is not installed: nothing to compare")
    tl.set_num_threads(args.threads)
    kernel_choice.THREADED = args.threads > 1
    dt = getattr(tl, args.dtype)
    print(f"{args.dtype}, {args.threads} thread(s), median of {args.rounds} interleaved rounds")
    print(f"{'case':48s} {'numpy ms':>9s} {'numba ms':>9s} {'ratio':>6s}")
    for group in args.ops.split(","):
        for name, fn in GROUPS[group](dt).items():
            t = measure(fn, args.rounds)
            print(f"{name:48s} {t['numpy'] * 1e3:9.3f} {t['numba'] * 1e3:9.3f} "
                  f"{t['numpy'] / t['numba']:6.2f}", flush=True)


if __name__ == "__main__":
    main()
