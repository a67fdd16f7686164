"""Train the toy MLP (2-16-16-1 on two moons, hinge loss, SGD with momentum) eagerly and under
``tl.compile``: the same losses, bit for bit, in less time. Prints both times and the IR of one
compiled training step: every NumPy call the step makes, forward, backward and optimizer.

    python examples/compiled_training.py [--steps 300] [--code]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.nn as nn
import tinygrad_lite.nn.functional as F  # noqa: N812 - PyTorch's spelling


def two_moons(n: int = 200, noise: float = 0.1, seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles, labels -1 and +1."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    x = np.where(upper[:, None], np.c_[np.cos(t), np.sin(t)], np.c_[1 - np.cos(t), 0.5 - np.sin(t)])
    return (x + noise * rng.standard_normal((n, 2))).astype(np.float32), \
        np.where(upper, 1.0, -1.0).astype(np.float32)


def make_step(seed: int):  # noqa: ANN201 - returns the step and its model
    """A fresh model and optimizer, and the training step over them."""
    tl.manual_seed(seed)
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(),
                          nn.Linear(16, 1))
    opt = tl.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    def step(x: tl.Tensor, y: tl.Tensor) -> tl.Tensor:
        opt.zero_grad()
        loss = F.relu(1 - y * model(x).reshape(-1)).mean()
        loss.backward()
        opt.step()
        return loss

    return step, model


def train(step, x: tl.Tensor, y: tl.Tensor, steps: int) -> tuple[list[float], float]:  # noqa: ANN001
    """Run ``steps`` steps; the losses and the seconds taken."""
    losses = []
    start = time.perf_counter()
    for _ in range(steps):
        losses.append(step(x, y))
    seconds = time.perf_counter() - start
    return [loss.item() for loss in losses], seconds


def main(argv: list[str] | None = None) -> bool:
    """Eager, then compiled; compare, time, show the IR. Returns whether both runs agree."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--code", action="store_true", help="also print the generated Python")
    args = parser.parse_args(argv)
    x, y = (tl.from_numpy(a) for a in two_moons())

    eager_step, eager_model = make_step(0)
    compiled_step, compiled_model = make_step(0)
    compiled_step = tl.compile(compiled_step)

    eager_losses, eager_s = train(eager_step, x, y, args.steps)
    compiled_losses, compiled_s = train(compiled_step, x, y, args.steps)
    same = eager_losses == compiled_losses and all(
        np.array_equal(a.detach().numpy(), b.detach().numpy())
        for a, b in zip(eager_model.parameters(), compiled_model.parameters()))
    print(f"{args.steps} steps: eager {eager_s * 1e3:.1f} ms, compiled {compiled_s * 1e3:.1f} ms "
          f"({eager_s / compiled_s:.1f}x faster; {compiled_step.traces} traces, "
          f"{compiled_step.replays} replays)")
    print(f"final loss {compiled_losses[-1]:.4f}; identical to eager: {same}")
    print("\nOne compiled training step (tl.compile(step).graph):")
    print(compiled_step.graph)
    if args.code:
        print("\nThe generated replay (tl.compile(step).code):")
        print(compiled_step.code)
    return same


if __name__ == "__main__":
    main()
