"""The Transformer's fused ops over 3-D/4-D input, forward + backward: how much memory beyond
their inputs they allocate, against what the op cannot do without, and their time against
PyTorch CPU in the same run.

Memory is the peak of NumPy's traced allocations (tracemalloc) while one forward and its
``backward(g)`` run, the inputs and ``g`` allocated before; it is counted in units of the op's
largest tensor (the (B, H, T, T) scores of attention and softmax, the activation of layer norm,
the logits of cross-entropy). The essential count is what the op cannot do without at its peak,
the result being alive during its own backward: softmax and log_softmax keep their result and
make the input gradient (2); attention keeps the probabilities, makes the score gradient and
the three input gradients and returns an output (1 + 1 + 3 x 0.5 + 0.5 = 4, the (B, H, T, E)
tensors being half a unit here); layer norm keeps the normalised input, returns its output, and
its backward needs the weighted gradient beside the input gradient (4); cross-entropy holds the
shifted logits and their exponentials in the forward (2). A peak above it is a copy the op could
avoid.

    python3 benchmarks/bench_copies.py [--blocks 5]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import timeit
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _harness as harness  # noqa: E402

harness.add_repo_to_path()
import tinygrad_lite as tl  # noqa: E402

B, H, T, E, C, V = 16, 4, 64, 32, 128, 65  # the small GPT of bench_models


def cases(lib: object, rng: np.random.Generator) -> dict[str, tuple[Callable, list, int, int]]:
    """Per op: (forward, its input tensors, the unit in bytes, the essential count)."""
    F = lib.nn.functional  # type: ignore[attr-defined]  # noqa: N806 - PyTorch's alias

    def tensor(shape: tuple, grad: bool = True) -> object:
        data = rng.standard_normal(shape).astype(np.float32)
        return lib.tensor(data, requires_grad=grad)  # type: ignore[attr-defined]

    scores = B * H * T * T * 4
    q, k, v = (tensor((B, H, T, E)) for _ in range(3))
    s = tensor((B, H, T, T))
    x = tensor((B, T, C))
    norm = lib.nn.LayerNorm(C)  # type: ignore[attr-defined]
    logits, logits3 = tensor((B * T, V)), tensor((B, V, T))
    target = lib.tensor(rng.integers(0, V, B * T))  # type: ignore[attr-defined]
    target3 = lib.tensor(rng.integers(0, V, (B, T)))  # type: ignore[attr-defined]
    return {
        "scaled_dot_product_attention, causal (16x4x64x32)":
            (lambda: F.scaled_dot_product_attention(q, k, v, is_causal=True), [q, k, v],
             scores, 4),
        "softmax, last dim (16x4x64x64)": (lambda: F.softmax(s, -1), [s], scores, 2),
        "log_softmax, last dim (16x4x64x64)": (lambda: F.log_softmax(s, -1), [s], scores, 2),
        "layer_norm (16x64x128)": (lambda: norm(x), [x], B * T * C * 4, 4),
        "cross_entropy (1024x65)": (lambda: F.cross_entropy(logits, target), [logits],
                                    B * T * V * 4, 2),
        "cross_entropy, 3-D (16x65x64)": (lambda: F.cross_entropy(logits3, target3), [logits3],
                                          B * T * V * 4, 2),
    }


def step_of(forward: Callable, inputs: list, lib: object) -> Callable[[], None]:
    """Forward and backward with a fixed upstream gradient, gradients cleared first."""
    out = forward()
    seed = lib.ones_like(out) if out.ndim == 0 else lib.tensor(  # type: ignore[attr-defined]
        np.random.default_rng(1).standard_normal(tuple(out.shape)).astype(np.float32))

    def step() -> None:
        for t in inputs:
            t.grad = None
        forward().backward(seed)

    return step


def peak_units(step: Callable[[], None], unit: int) -> float:
    """Peak traced NumPy memory of one step, in units of ``unit`` bytes."""
    step()  # warm up (lazy module state, scratch arrays)
    tracemalloc.start()
    tracemalloc.reset_peak()
    step()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / unit


def main(argv: list[str] | None = None) -> int:
    """Print the table."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--blocks", type=int, default=5)
    args = p.parse_args(argv)
    print(f"# bench_copies\n{harness.environment_header()}", flush=True)
    ours = cases(tl, np.random.default_rng(0))
    theirs: dict = {}
    if importlib.util.find_spec("torch") is not None:
        import torch

        torch.set_num_threads(tl.get_num_threads())
        theirs = cases(torch, np.random.default_rng(0))
    rows = []
    for name, (forward, inputs, unit, essential) in ours.items():
        step = step_of(forward, inputs, tl)
        units = peak_units(step, unit)
        timed = {"tl": step}
        if name in theirs:
            t_forward, t_inputs = theirs[name][:2]
            timed["torch"] = step_of(t_forward, t_inputs, torch)
        best = dict.fromkeys(timed, float("inf"))
        for _ in range(args.blocks):
            for key, fn in timed.items():
                best[key] = min(best[key], timeit.timeit(fn, number=5) / 5)
        torch_ms = f"{best['torch'] * 1e3:.2f}" if "torch" in best else "-"
        ratio = f"{best['tl'] / best['torch']:.2f}x" if "torch" in best else "-"
        rows.append([name, f"{units:.2f}", str(essential), f"{best['tl'] * 1e3:.2f}", torch_ms,
                     ratio])
    print(harness.markdown_table(["op, forward + backward", "peak memory (units)", "essential",
                                  "tinygrad_lite ms", "PyTorch ms", "ratio"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
