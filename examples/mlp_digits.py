"""Classify scikit-learn's bundled 8x8 digits (no download) with an MLP: a training loop as
PyTorch scripts write it, with DataLoader workers, a warm-up-then-cosine learning-rate schedule,
optional TensorBoard logging and a checkpoint written to a file object.

    python examples/mlp_digits.py [--epochs 30] [--seed 0] [--workers 2] [--tensorboard DIR]

- Batches come from ``DataLoader(num_workers=2, persistent_workers=True)``: two worker
  processes, their order fixed by a ``RandomSampler`` drawing from a seeded ``tl.Generator``
  (which also seeds the workers), so two runs with one seed give the same model.
- Adam's learning rate warms up linearly for the first epoch, then follows a cosine to 1 % of
  its peak: ``SequentialLR`` of ``LinearLR`` and ``CosineAnnealingLR``, stepped every batch.
- ``--tensorboard DIR`` logs the loss, learning rate, test accuracy and weight histograms with
  ``tl.utils.tensorboard.SummaryWriter`` (needs ``pip install tensorboard``).
- At the end, model, optimizer and scheduler go into one checkpoint written with ``tl.save``
  to an ``io.BytesIO``; it is read back with ``tl.load`` into fresh objects, which must score
  the same and continue with the same learning rate.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
import tinygrad_lite as tl  # noqa: E402
from tinygrad_lite import nn  # noqa: E402
from tinygrad_lite.optim.lr_scheduler import (  # noqa: E402
    CosineAnnealingLR,
    LinearLR,
    SequentialLR,
)
from tinygrad_lite.utils.data import DataLoader, RandomSampler, TensorDataset  # noqa: E402

PEAK_LR = 5e-3


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


def make_training(model: nn.Module, warmup: int, total: int) -> tuple:
    """Adam and its schedule: linear warm-up over ``warmup`` steps from 10 % of the peak, then
    a cosine down to 1 % of it by step ``total``."""
    optimizer = tl.optim.Adam(model.parameters(), lr=PEAK_LR)
    scheduler = SequentialLR(optimizer, [
        LinearLR(optimizer, start_factor=0.1, total_iters=warmup),
        CosineAnnealingLR(optimizer, T_max=max(1, total - warmup), eta_min=PEAK_LR / 100)],
        milestones=[warmup])
    return optimizer, scheduler


def accuracy(model: nn.Module, x: np.ndarray, y: np.ndarray) -> float:
    """Fraction of ``x`` classified as ``y``."""
    with tl.no_grad():
        return float((model(tl.tensor(x)).argmax(dim=1).numpy() == y).mean())


def checkpoint_round_trip(model: nn.Module, optimizer: tl.optim.Optimizer, scheduler: object,
                          warmup: int, total: int, epoch: int) -> tuple:
    """Save everything to an in-memory file with ``tl.save``, load it into fresh objects with
    ``tl.load``; returns them and the checkpoint's size in bytes."""
    buffer = io.BytesIO()
    tl.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "scheduler": scheduler.state_dict(), "epoch": epoch}, buffer)
    buffer.seek(0)
    saved = tl.load(buffer)
    fresh = make_model()
    fresh.load_state_dict(saved["model"])
    fresh_opt, fresh_sched = make_training(fresh, warmup, total)
    fresh_opt.load_state_dict(saved["optimizer"])
    fresh_sched.load_state_dict(saved["scheduler"])
    return fresh, fresh_opt, fresh_sched, buffer.getbuffer().nbytes


def main(argv: list[str] | None = None) -> float:
    """Train, check the checkpoint round trip, and return the test accuracy."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2, help="DataLoader worker processes")
    parser.add_argument("--tensorboard", metavar="DIR", help="write TensorBoard logs to DIR")
    args = parser.parse_args(argv)

    tl.manual_seed(args.seed)
    x_train, y_train, x_test, y_test = load_digits(args.seed)
    dataset = TensorDataset(tl.tensor(x_train), tl.tensor(y_train))
    generator = tl.Generator().manual_seed(args.seed)
    loader = DataLoader(dataset, batch_size=64, sampler=RandomSampler(dataset, generator=generator),
                        num_workers=args.workers, persistent_workers=args.workers > 0,
                        generator=generator)
    model = make_model()
    warmup, total = len(loader), args.epochs * len(loader)
    optimizer, scheduler = make_training(model, warmup, total)
    loss_fn = nn.CrossEntropyLoss()
    writer = None
    if args.tensorboard:
        from tinygrad_lite.utils.tensorboard import SummaryWriter

        writer = SummaryWriter(args.tensorboard)
    step = 0
    for epoch in range(args.epochs):
        model.train()
        total_loss = 0.0
        for xb, yb in loader:
            loss = loss_fn(model(xb), yb)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            scheduler.step()
            step += 1
            total_loss += loss.item() * len(xb)
            if writer is not None:
                writer.add_scalar("train/loss", loss.item(), step)
                writer.add_scalar("train/lr", scheduler.get_last_lr()[0], step)
        test_acc = accuracy(model.eval(), x_test, y_test)
        if writer is not None:
            writer.add_scalar("test/accuracy", test_acc, epoch)
            for name, param in model.named_parameters():
                writer.add_histogram(name, param, epoch)
        if epoch % 10 == 0 or epoch == args.epochs - 1:
            print(f"epoch {epoch:3d}  loss {total_loss / len(x_train):.4f}  "
                  f"lr {scheduler.get_last_lr()[0]:.2e}  test accuracy {test_acc:.1%}")
    if writer is not None:
        writer.close()
        print(f"TensorBoard logs in {args.tensorboard}: tensorboard --logdir {args.tensorboard}")

    fresh, fresh_opt, fresh_sched, size = checkpoint_round_trip(
        model, optimizer, scheduler, warmup, total, args.epochs)
    reloaded = accuracy(fresh.eval(), x_test, y_test)
    print(f"test accuracy {test_acc:.2%}, after tl.save/tl.load through io.BytesIO "
          f"({size} bytes) {reloaded:.2%}")
    if reloaded != test_acc:
        raise RuntimeError(f"reloaded model scores {reloaded:.4f}, expected {test_acc:.4f}")
    if (fresh_sched.last_epoch != scheduler.last_epoch
            or fresh_opt.param_groups[0]["lr"] != optimizer.param_groups[0]["lr"]):
        raise RuntimeError("reloaded scheduler is not where the saved one was")
    if not np.array_equal(fresh_opt.state_dict()["state"][0]["exp_avg"].numpy(),
                          optimizer.state_dict()["state"][0]["exp_avg"].numpy()):
        raise RuntimeError("reloaded optimizer state differs from the saved one")
    return test_acc


if __name__ == "__main__":
    main()
