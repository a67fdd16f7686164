"""What the reliability fixes cost on one thread: the lock around accumulation into ``.grad``
and the silencing of NumPy's floating-point warnings, each against the same step without it, in
one process, interleaved blocks, fastest block reported (the machine is shared).

    python3 benchmarks/bench_reliability.py [--blocks 15]

* lock: a small MLP training step (forward, backward into 4 parameters, no optimizer), with the
  engine's re-entrant lock and with a no-op stand-in;
* warnings: the per-backward re-check of the filter (the only per-call cost of the design), and,
  for scale, what ``np.errstate`` around every op would have cost (the rejected alternative).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite._core import accumulate_grad  # noqa: E402
from tinygrad_lite._core.quiet import silence_numpy_warnings  # noqa: E402


class NoLock(contextlib.AbstractContextManager):
    """A lock that does nothing: the engine as it was before the thread-safety fix."""

    def __exit__(self, *exc: object) -> None:
        return None


def mlp_step() -> Callable[[], None]:
    """Forward + backward of a 32x64-64-10 MLP (float32), parameters' .grad reset each time."""
    rng = np.random.default_rng(0)
    x = tl.tensor(rng.standard_normal((32, 64), dtype=np.float32))
    params = [tl.tensor(rng.standard_normal(s, dtype=np.float32) * 0.1, requires_grad=True)
              for s in ((64, 64), (64,), (64, 10), (10,))]
    w1, b1, w2, b2 = params

    def step() -> None:
        for p in params:
            p.grad = None
        ((x @ w1 + b1).relu() @ w2 + b2).square().mean().backward()

    return step


def best(fn: Callable[[], object], number: int) -> float:
    """Seconds per call of the fastest of 3 repeats."""
    return min(timeit.repeat(fn, number=number, repeat=3)) / number


def main(argv: list[str] | None = None) -> dict:
    """Print and return the costs in microseconds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=15)
    args = parser.parse_args(argv)
    step = mlp_step()
    real_lock = accumulate_grad._accumulation_lock
    with_lock, without = [], []
    for _ in range(args.blocks):
        accumulate_grad._accumulation_lock = real_lock
        with_lock.append(best(step, 200))
        accumulate_grad._accumulation_lock = NoLock()
        without.append(best(step, 200))
    accumulate_grad._accumulation_lock = real_lock

    a = np.ones((8, 8), np.float32)
    t = tl.tensor(a)

    def exp_errstate() -> None:
        with np.errstate(all="ignore"):
            np.exp(a)

    costs = {
        "mlp step, with lock (us)": min(with_lock) * 1e6,
        "mlp step, no lock (us)": min(without) * 1e6,
        "filter re-check per backward (us)": best(silence_numpy_warnings, 20000) * 1e6,
        "tl exp 8x8, filter installed (us)": best(t.exp, 20000) * 1e6,
        "np.exp 8x8 (us)": best(lambda: np.exp(a), 20000) * 1e6,
        "np.exp 8x8 inside np.errstate (us)": best(exp_errstate, 20000) * 1e6,
    }
    for name, value in costs.items():
        print(f"{name:40s} {value:8.2f}")
    lock = costs["mlp step, with lock (us)"] / costs["mlp step, no lock (us)"] - 1
    print(f"lock overhead on the MLP step: {lock:+.1%}")
    return costs


if __name__ == "__main__":
    main()
