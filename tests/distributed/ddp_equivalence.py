"""Run under mpiexec: DDP on N ranks with batch B/N each must match one process with batch B.

    argv: model kind ("mlp" or "cnn"), steps, output .npz path (written by rank 0)
"""

import sys

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
from tinygrad_lite import nn


def build(kind: str) -> nn.Module:
    tl.manual_seed(0)
    if kind == "cnn":
        return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(),
                             nn.Flatten(), nn.Linear(4 * 6 * 6, 3))
    return nn.Sequential(nn.Linear(5, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(),
                         nn.Linear(16, 3))


def data(kind: str, step: int, batch: int):
    rng = np.random.default_rng(step)
    x = rng.standard_normal((batch, 1, 6, 6) if kind == "cnn" else (batch, 5))
    return x.astype(np.float64), rng.integers(0, 3, batch)


def main() -> None:
    kind, steps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    batch = 24
    local = nn.parallel.SyncBatchNorm.convert_sync_batchnorm(build(kind).double())
    ddp_model = nn.parallel.DistributedDataParallel(local, bucket_cap_mb=0.0005)
    ref_model = build(kind).double()  # the same weights, trained on the whole batch alone
    opts = [tl.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
            for m in (ddp_model, ref_model)]
    share = batch // world
    for step in range(steps):
        x, y = data(kind, step, batch)
        mine = slice(rank * share, (rank + 1) * share)
        for model, opt, xs, ys in ((ddp_model, opts[0], x[mine], y[mine]),
                                   (ref_model, opts[1], x, y)):
            opt.zero_grad()
            nn.functional.cross_entropy(model(tl.tensor(xs)), tl.tensor(ys)).backward()
            opt.step()
    if rank == 0:
        ours = {f"ddp.{k}": v.numpy() for k, v in ddp_model.module.state_dict().items()}
        ref = {f"ref.{k}": v.numpy() for k, v in ref_model.state_dict().items()}
        np.savez(out, **ours, **ref)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
