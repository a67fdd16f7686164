"""Train a small MLP on the two-moons data set with tinygrad_lite, PyTorch style.

    python examples/mlp_moons.py [--steps 500] [--seed 0]

The model is 2-16-16-1 with ReLU, trained full-batch with a hinge loss and SGD with momentum;
every piece (parameters, forward, backward, update under no_grad) is written out so the loop
reads like its PyTorch equivalent.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402


def make_moons(n: int, noise: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Two interleaved half circles in 2-D; labels are -1 and +1."""
    t = rng.uniform(0, np.pi, n)
    upper = rng.random(n) < 0.5
    x = np.where(upper, np.cos(t), 1 - np.cos(t))
    y = np.where(upper, np.sin(t), 0.5 - np.sin(t))
    points = np.stack([x, y], axis=1) + rng.normal(0, noise, (n, 2))
    return points.astype(np.float32), np.where(upper, 1.0, -1.0).astype(np.float32)


def init_linear(fan_in: int, fan_out: int) -> tuple[tl.Tensor, tl.Tensor]:
    """PyTorch's default Linear initialisation: uniform in +-1/sqrt(fan_in)."""
    bound = 1 / np.sqrt(fan_in)
    weight = (tl.rand(fan_out, fan_in) * 2 - 1) * bound
    bias = (tl.rand(fan_out) * 2 - 1) * bound
    return weight.requires_grad_(), bias.requires_grad_()


def main(argv: list[str] | None = None) -> float:
    """Train and return the final training accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tl.manual_seed(args.seed)
    points, labels = make_moons(200, 0.1, np.random.default_rng(args.seed))
    x, y = tl.tensor(points), tl.tensor(labels)
    params = [*init_linear(2, 16), *init_linear(16, 16), *init_linear(16, 1)]
    w1, b1, w2, b2, w3, b3 = params
    velocity = [tl.zeros_like(p) for p in params]

    for step in range(args.steps):
        hidden = (x @ w1.T + b1).relu()
        hidden = (hidden @ w2.T + b2).relu()
        score = (hidden @ w3.T + b3).reshape(-1)
        loss = (1 - y * score).relu().mean()  # hinge loss

        for p in params:
            p.grad = None
        loss.backward()
        with tl.no_grad():  # SGD with momentum 0.9, lr 0.05, written out
            for p, v in zip(params, velocity):
                v.data *= 0.9
                v.data += p.grad.data
                p.data -= 0.05 * v.data
        if step % 100 == 0 or step == args.steps - 1:
            accuracy = ((score > 0) == (y > 0)).float().mean().item()
            print(f"step {step:4d}  loss {loss.item():.4f}  accuracy {accuracy:.1%}")
    return accuracy


if __name__ == "__main__":
    main()
