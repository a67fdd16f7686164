"""REINFORCE on a multi-armed bandit: a softmax policy over arms (a small ``nn.Module``
holding one logits Parameter) learns which arm pays most from sampled rewards alone.

    python examples/reinforce_bandit.py [--arms 10] [--steps 300] [--batch 32] [--seed 0]

- Each arm pays a Gaussian reward around its own mean (drawn once from the seed); the agent
  never sees the means.
- The policy is ``tl.distributions.Categorical(logits=...)``; each step samples a batch of
  arms, and the score-function gradient ``-(log pi(a) * (r - baseline)).mean()`` (baseline:
  the batch's mean reward, which lowers the variance without biasing the gradient) goes to
  Adam. An entropy bonus keeps it exploring early on.
- It prints the average return as it rises from the random-play level towards the best arm's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn  # noqa: E402
from tinygrad_lite.distributions import Categorical  # noqa: E402


class Policy(nn.Module):
    """A state-free softmax policy: one logit per arm."""

    def __init__(self, arms: int) -> None:
        super().__init__()
        self.logits = nn.Parameter(tl.zeros(arms))

    def forward(self) -> Categorical:
        """The distribution over arms."""
        return Categorical(logits=self.logits)


def make_bandit(arms: int, seed: int) -> np.ndarray:
    """The arms' mean rewards (standard normal draws)."""
    return np.random.default_rng(seed).standard_normal(arms)


def main(argv: list[str] | None = None) -> float:
    """Train; returns the average return over the last tenth of the steps."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--arms", type=int, default=10)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--entropy", type=float, default=0.01, help="entropy bonus weight")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tl.manual_seed(args.seed)
    means = make_bandit(args.arms, args.seed)
    noise = np.random.default_rng(args.seed + 1)
    policy = Policy(args.arms)
    optimizer = tl.optim.Adam(policy.parameters(), lr=args.lr)
    print(f"{args.arms} arms; random play averages {means.mean():+.3f}, the best arm pays "
          f"{means.max():+.3f}")
    returns = []
    for step in range(1, args.steps + 1):
        pi = policy()
        actions = pi.sample((args.batch,))
        rewards = means[actions.numpy()] + noise.standard_normal(args.batch)
        returns.append(float(rewards.mean()))
        advantage = tl.tensor(rewards - rewards.mean(), dtype=tl.float32)
        loss = -(pi.log_prob(actions) * advantage).mean() - args.entropy * pi.entropy()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % max(1, args.steps // 10) == 0:
            recent = np.mean(returns[-max(1, args.steps // 10):])
            print(f"step {step:4d}  average return {recent:+.3f}  "
                  f"P(best arm) {pi.probs[int(means.argmax())].item():.2f}")
    final = float(np.mean(returns[-max(1, args.steps // 10):]))
    print(f"final average return {final:+.3f} (best arm {means.max():+.3f})")
    return final


if __name__ == "__main__":
    main()
