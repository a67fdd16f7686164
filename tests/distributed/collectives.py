"""Run under mpiexec: every collective and ReduceOp, for float32/float64/int64, against NumPy.
Exits non-zero (AssertionError on the failing rank) when a result is wrong."""

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist

dist.init_process_group("mpi")
rank, world = dist.get_rank(), dist.get_world_size()
Op = dist.ReduceOp


def value(r: int, dtype) -> np.ndarray:
    return (np.arange(6).reshape(2, 3) + 3 * r + 1).astype(dtype)


everyone = {dt: np.stack([value(r, dt) for r in range(world)]) for dt in
            (np.float32, np.float64, np.int64)}
expected = {Op.SUM: lambda a: a.sum(0), Op.PRODUCT: lambda a: a.prod(0),
            Op.MIN: lambda a: a.min(0), Op.MAX: lambda a: a.max(0),
            Op.AVG: lambda a: a.mean(0)}
for dt, stacked in everyone.items():
    for op, ref in expected.items():
        if op is Op.AVG and dt is np.int64:
            continue
        for async_op in (False, True):
            t = tl.tensor(value(rank, dt))
            work = dist.all_reduce(t, op=op, async_op=async_op)
            if async_op:
                assert work is not None and work.wait() and work.is_completed()
            assert t.dtype.np == np.dtype(dt)
            np.testing.assert_allclose(t.numpy(), ref(stacked), rtol=1e-6, err_msg=f"{op} {dt}")
    t = tl.tensor(value(rank, dt))
    dist.reduce(t, dst=world - 1, op=Op.MAX)
    if rank == world - 1:
        np.testing.assert_array_equal(t.numpy(), stacked.max(0))
    t = tl.tensor(value(rank, dt))
    dist.broadcast(t, src=1 % world)
    np.testing.assert_array_equal(t.numpy(), stacked[1 % world])
    parts = [tl.zeros(2, 3, dtype=tl.tensor(value(0, dt)).dtype) for _ in range(world)]
    dist.all_gather(parts, tl.tensor(value(rank, dt)))
    for r, p in enumerate(parts):
        np.testing.assert_array_equal(p.numpy(), stacked[r])
    out = tl.zeros(world * 2, 3, dtype=parts[0].dtype)
    dist.all_gather_into_tensor(out, tl.tensor(value(rank, dt)))
    np.testing.assert_array_equal(out.numpy(), stacked.reshape(-1, 3))
    chunks = [tl.tensor(value(rank, dt) * (i + 1)) for i in range(world)]
    mine = tl.zeros(2, 3, dtype=parts[0].dtype)
    dist.reduce_scatter(mine, chunks, op=Op.SUM)
    np.testing.assert_array_equal(mine.numpy(), stacked.sum(0) * (rank + 1))
    big = tl.tensor(np.concatenate([value(rank, dt) * (i + 1) for i in range(world)]))
    mine = tl.zeros(2, 3, dtype=parts[0].dtype)
    dist.reduce_scatter_tensor(mine, big)
    np.testing.assert_array_equal(mine.numpy(), stacked.sum(0) * (rank + 1))
    gathered = [tl.zeros(2, 3, dtype=parts[0].dtype) for _ in range(world)] if rank == 0 else None
    dist.gather(tl.tensor(value(rank, dt)), gathered, dst=0)
    if rank == 0:
        for r, g in enumerate(gathered):
            np.testing.assert_array_equal(g.numpy(), stacked[r])
    got = tl.zeros(2, 3, dtype=parts[0].dtype)
    dist.scatter(got, [tl.tensor(value(r, dt)) for r in range(world)] if rank == 0 else None,
                 src=0)
    np.testing.assert_array_equal(got.numpy(), stacked[rank])
    outs = [tl.zeros(2, 3, dtype=parts[0].dtype) for _ in range(world)]
    dist.all_to_all(outs, [tl.tensor(value(rank, dt) + 100 * i) for i in range(world)])
    for r, o in enumerate(outs):
        np.testing.assert_array_equal(o.numpy(), stacked[r] + 100 * rank)

# uneven all_to_all_single: rank r sends i + 1 rows (each filled with 10 r + i) to rank i
sizes_in = [i + 1 for i in range(world)]
source = tl.tensor(np.concatenate([np.full((i + 1, 2), 10.0 * rank + i) for i in range(world)]))
target = tl.zeros((rank + 1) * world, 2, dtype=tl.float64)
dist.all_to_all_single(target, source, output_split_sizes=[rank + 1] * world,
                       input_split_sizes=sizes_in)
expected = np.concatenate([np.full((rank + 1, 2), 10.0 * r + rank) for r in range(world)])
np.testing.assert_array_equal(target.numpy(), expected)
# all_to_all with tensors of different sizes per destination
outs = [tl.zeros(rank + 1) for _ in range(world)]
dist.all_to_all(outs, [tl.full((i + 1,), float(rank)) for i in range(world)])
for r, o in enumerate(outs):
    np.testing.assert_array_equal(o.numpy(), np.full(rank + 1, float(r)))

# point to point, in a ring
left, right = (rank - 1) % world, (rank + 1) % world
box = tl.zeros(3)
send = dist.isend(tl.full((3,), float(rank)), dst=right)
assert dist.recv(box, src=left) == left
send.wait()
np.testing.assert_array_equal(box.numpy(), np.full(3, float(left)))
objects = [None, None] if rank else [{"lr": 0.1}, [1, 2]]
dist.broadcast_object_list(objects, src=0)
assert objects == [{"lr": 0.1}, [1, 2]]
gathered_objects = [None] * world
dist.all_gather_object(gathered_objects, {"rank": rank})
assert gathered_objects == [{"rank": r} for r in range(world)]
evens = dist.new_group([r for r in range(world) if r % 2 == 0])
if rank % 2 == 0:
    t = tl.ones(1)
    dist.all_reduce(t, group=evens)
    assert t.item() == (world + 1) // 2 and dist.get_world_size(evens) == (world + 1) // 2
else:
    assert dist.get_rank(evens) == -1
dist.barrier()
dist.destroy_process_group()
print(f"rank {rank}: ok")
