"""Run under mpiexec with a mode: "no_sync", "unused", "unused_error", "crash", "mismatch".
Prints "rank R: ok" when the behaviour is right; errors end the job (non-zero exit)."""

import sys

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
from tinygrad_lite import nn

mode = sys.argv[1]
dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()


class TwoHeads(nn.Module):
    """A body and two heads; rank 0 uses head a only, the others head b only."""

    def __init__(self) -> None:
        super().__init__()
        self.body, self.a, self.b = nn.Linear(4, 4), nn.Linear(4, 1), nn.Linear(4, 1)

    def forward(self, x, use_a):
        h = self.body(x).tanh()
        return self.a(h) if use_a else self.b(h)


def batch(step: int):
    rng = np.random.default_rng(100 * step + rank)
    return tl.tensor(rng.standard_normal((3, 4)))


if mode == "no_sync":
    tl.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(nn.Linear(4, 2).double())
    tl.manual_seed(0)
    ref = nn.Linear(4, 2).double()
    with model.no_sync():
        model(batch(0).double()).sum().backward()  # accumulated locally only
    local = model.module.weight.grad.numpy().copy()
    model(batch(1).double()).sum().backward()  # this one averages both micro-batches
    everyone = [tl.zeros(2, 4, dtype=tl.float64) for _ in range(world)]
    for step in (0, 1):
        ref(batch(step).double()).sum().backward()
    dist.all_gather(everyone, ref.weight.grad)
    expected = np.mean([e.numpy() for e in everyone], axis=0)
    np.testing.assert_allclose(model.module.weight.grad.numpy(), expected, rtol=1e-12)
    assert not np.allclose(local, expected)
elif mode in ("unused", "unused_error"):
    tl.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(TwoHeads().double(),
                                                find_unused_parameters=(mode == "unused"))
    model(batch(0).double(), use_a=(rank == 0)).sum().backward()
    if mode == "unused":
        a_grad, b_grad = model.module.a.weight.grad, model.module.b.weight.grad
        assert a_grad is not None and b_grad is not None  # each used by some rank
        total = tl.ones(1)
        dist.all_reduce(total)
        assert model.module.body.weight.grad is not None
elif mode == "crash":
    if rank == 1:
        raise ValueError("rank 1 fails on purpose")
    t = tl.ones(1)
    dist.all_reduce(t)  # would wait forever for rank 1 without the abort
elif mode == "mismatch":
    nn.parallel.DistributedDataParallel(nn.Linear(4, 2 + rank))
dist.destroy_process_group()
print(f"rank {rank}: ok")
