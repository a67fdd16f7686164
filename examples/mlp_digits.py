"""Classify scikit-learn's bundled 8x8 digits (no download) with an MLP, DataLoader and Adam.

    python examples/mlp_digits.py [--epochs 30] [--seed 0]

Trains a 64-128-10 network with cross-entropy, reports the test accuracy, then saves the weights
with ``tl.save``, reloads them into a fresh model with ``tl.load`` and checks that the reloaded
model scores the same.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn  # noqa: E402
from tinygrad_lite.utils.data import DataLoader, TensorDataset  # noqa: E402


def load_digits(seed: int) -> tuple[np.ndarray, ...]:
    """Train/test split (75/25) of the 1,797 digits, pixels scaled to [0, 1]."""
    from sklearn.datasets import load_digits as sk_digits

    data = sk_digits()
    x, y = (data.data / 16.0).astype(np.float32), data.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(x))
    split = len(x) * 3 // 4
    return x[order[:split]], y[order[:split]], x[order[split:]], y[order[split:]]


def make_model() -> nn.Module:
    """A 64-128-10 MLP."""
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))


def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    """Fraction of ``x`` classified as ``y``."""
    with tl.no_grad():
        return float((model(tl.tensor(x)).argmax(dim=1).numpy() == y).mean())


def main(argv: list[str] | None = None) -> float:
    """Train, check the save/load round trip, and return the test accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    tl.manual_seed(args.seed)
    x_train, y_train, x_test, y_test = load_digits(args.seed)
    loader = DataLoader(TensorDataset(tl.tensor(x_train), tl.tensor(y_train)), batch_size=64,
                        shuffle=True)
    model = make_model()
    optimizer = tl.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        model.train()
        total = 0.0
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(xb)
        if epoch % 10 == 0 or epoch == args.epochs - 1:
            print(f"epoch {epoch:3d}  loss {total / len(x_train):.4f}  "
                  f"test accuracy {accuracy(model.eval(), x_test, y_test):.1%}")
    test_acc = accuracy(model.eval(), x_test, y_test)

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "digits.safetensors"
        tl.save(model.state_dict(), path)
        fresh = make_model()
        fresh.load_state_dict(tl.load(path))
        reloaded = accuracy(fresh.eval(), x_test, y_test)
    print(f"test accuracy {test_acc:.2%}, after tl.save/tl.load {reloaded:.2%}")
    if reloaded != test_acc:
        raise RuntimeError(f"reloaded model scores {reloaded:.4f}, expected {test_acc:.4f}")
    return test_acc


if __name__ == "__main__":
    main()
