"""Hogwild: several processes train one shared MLP in place, without locks.

``model.share_memory()`` moves the parameters into shared memory; each process started by
``tl.multiprocessing.spawn`` gets handles to that memory (under fork it inherits it), runs its
own SGD on its own mini-batches, and writes its updates straight into the shared weights. The
parent never copies anything back: its model has been trained when the workers finish.

    python examples/hogwild.py --processes 2 --steps 200 --start-method spawn
"""

from __future__ import annotations

import argparse
import math

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.multiprocessing as mp


def make_data(n: int, seed: int) -> tuple[tl.Tensor, tl.Tensor]:
    """Points on [-pi, pi]^2 and the target sin(x0) * cos(x1)."""
    g = np.random.default_rng(seed)
    x = g.uniform(-math.pi, math.pi, size=(n, 2)).astype(np.float32)
    y = (np.sin(x[:, :1]) * np.cos(x[:, 1:])).astype(np.float32)
    return tl.tensor(x), tl.tensor(y)


def evaluate(model: tl.nn.Module) -> float:
    """Mean squared error on a fixed held-out set."""
    x, y = make_data(512, seed=1234)
    with tl.no_grad():
        return float(tl.nn.functional.mse_loss(model(x), y))


def train(rank: int, model: tl.nn.Module, steps: int, batch: int, lr: float) -> None:
    """One Hogwild worker: plain SGD on its own data, updating the shared parameters."""
    x, y = make_data(steps * batch, seed=rank)
    opt = tl.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    for step in range(steps):
        xb, yb = x[step * batch:(step + 1) * batch], y[step * batch:(step + 1) * batch]
        opt.zero_grad()
        loss = tl.nn.functional.mse_loss(model(xb), yb)
        loss.backward()
        opt.step()
        if step % max(1, steps // 4) == 0 or step == steps - 1:
            print(f"  process {rank} step {step:4d}  batch loss {loss.item():.4f}", flush=True)


def main(argv: list[str] | None = None) -> tuple[float, float]:
    """Train with ``--processes`` workers; returns the held-out loss before and after."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=2)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--start-method", default="spawn", choices=["spawn", "fork"])
    args = parser.parse_args(argv)

    tl.manual_seed(0)
    model = tl.nn.Sequential(tl.nn.Linear(2, 32), tl.nn.Tanh(), tl.nn.Linear(32, 32),
                             tl.nn.Tanh(), tl.nn.Linear(32, 1))
    model.share_memory()
    before = evaluate(model)
    print(f"held-out loss before: {before:.4f} ({args.processes} processes, "
          f"{args.start_method})")
    mp.spawn(train, args=(model, args.steps, args.batch, args.lr), nprocs=args.processes,
             start_method=args.start_method)
    after = evaluate(model)
    print(f"held-out loss after:  {after:.4f} (the parent's own model, trained by the workers)")
    return before, after


if __name__ == "__main__":
    main()
