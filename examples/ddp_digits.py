"""The digits MLP trained data-parallel on several ranks with DistributedDataParallel.

    python -m tinygrad_lite.distributed.run --nproc-per-node 2 examples/ddp_digits.py
    mpiexec -n 2 python examples/ddp_digits.py          # the same, with MPI's own launcher

Each rank reads its share of every epoch through a DistributedSampler, runs the model on a batch
of 64 / world_size, and DDP averages the gradients during backward, so the ranks stay identical
and the run follows one process with batch 64. Rank 0 reports the test accuracy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a plain checkout too
sys.path.insert(0, str(Path(__file__).resolve().parent))
from mlp_digits import accuracy, load_digits, make_model  # noqa: E402

import tinygrad_lite as tl  # noqa: E402
import tinygrad_lite.distributed as dist  # noqa: E402
from tinygrad_lite import nn  # noqa: E402
from tinygrad_lite.utils.data import DataLoader, TensorDataset  # noqa: E402
from tinygrad_lite.utils.data.distributed import DistributedSampler  # noqa: E402


def main(argv: list[str] | None = None) -> float:
    """Train on every rank; return the test accuracy (the same on every rank)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()

    tl.manual_seed(args.seed)  # the same initial weights everywhere (DDP also broadcasts them)
    x_train, y_train, x_test, y_test = load_digits(args.seed)
    dataset = TensorDataset(tl.tensor(x_train), tl.tensor(y_train))
    sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True,
                                 seed=args.seed)
    loader = DataLoader(dataset, batch_size=64 // world, sampler=sampler)
    model = nn.parallel.DistributedDataParallel(make_model())
    optimizer = tl.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        model.train()
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
        if rank == 0 and (epoch % 10 == 0 or epoch == args.epochs - 1):
            print(f"epoch {epoch:3d}  test accuracy "
                  f"{accuracy(model.module.eval(), x_test, y_test):.1%}  ({world} ranks)")
    test_acc = accuracy(model.module.eval(), x_test, y_test)
    if rank == 0:
        print(f"test accuracy {test_acc:.2%} on {world} ranks")
    dist.destroy_process_group()
    return test_acc


if __name__ == "__main__":
    main()
