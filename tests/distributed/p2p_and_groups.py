"""Run under mpiexec on 2 ranks: batched point-to-point (P2POp, batch_isend_irecv), object
lists sent and received, the group rank queries, subgroups, the coalesced collectives,
monitored_barrier (passing and timing out) and the backend queries. Prints "rank R: ok"."""

import os
import time
from datetime import timedelta

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist

dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
assert world == 2, "written for 2 ranks"
other = 1 - rank


def raises(kind, fn, match=""):
    try:
        fn()
    except kind as exc:
        assert match in str(exc), (match, str(exc))
        return str(exc)
    raise AssertionError(f"expected {kind.__name__}")


# --- P2POp / batch_isend_irecv: both ranks send and receive at once (no deadlock) -------------
box = tl.zeros(3, dtype=tl.float64)
ops = [dist.P2POp(dist.isend, tl.full((3,), float(rank + 1), dtype=tl.float64), other),
       dist.P2POp(dist.irecv, box, group_peer=other)]
for work in dist.batch_isend_irecv(ops):
    work.wait()
np.testing.assert_array_equal(box.numpy(), np.full(3, float(other + 1)))
assert ops[1].peer == other and ops[1].group_peer == other
raises(ValueError, lambda: dist.P2POp(dist.send, box, other), "Invalid ``op``")
raises(ValueError, lambda: dist.P2POp(dist.isend, box), "exactly one")
raises(ValueError, lambda: dist.batch_isend_irecv([]), "P2POp")

# --- object lists ---------------------------------------------------------------------------
if rank == 0:
    dist.send_object_list([{"lr": 0.5}, [1, 2, 3], "text"], dst=1)
    back = [None]
    assert dist.recv_object_list(back) == 1 and back == [("tuple", 1)]
else:
    got = [None, None, None]
    assert dist.recv_object_list(got, src=0) == 0
    assert got == [{"lr": 0.5}, [1, 2, 3], "text"]
    dist.send_object_list([("tuple", 1)], group_dst=0)

# --- group rank queries and subgroups ------------------------------------------------------
assert dist.get_process_group_ranks(None) == [0, 1]
assert dist.get_process_group_ranks(dist.group.WORLD) == [0, 1]
mine, subgroups = dist.new_subgroups(group_size=1)
assert len(subgroups) == 2 and subgroups[rank] is mine
assert subgroups[other] is dist.GroupMember.NON_GROUP_MEMBER
assert dist.get_process_group_ranks(mine) == [rank]
assert dist.get_global_rank(mine, 0) == rank and dist.get_group_rank(mine, rank) == 0
raises(ValueError, lambda: dist.get_group_rank(mine, other), "not part of group")
raises(ValueError, lambda: dist.get_global_rank(mine, 1), "not part of group")
t = tl.ones(2)
dist.all_reduce(t, group=mine)
assert t.numpy().tolist() == [1.0, 1.0]
everyone, listed = dist.new_subgroups()  # Open MPI's ranks per machine: both here
assert len(listed) == 1 and dist.get_process_group_ranks(everyone) == [0, 1]
raises(ValueError, lambda: dist.new_subgroups(group_size=3), "must not exceed")
raises(ValueError, lambda: dist.new_subgroups(group_size=0), "must be positive")
only_zero, groups = dist.new_subgroups_by_enumeration([[0]])
assert (only_zero is None) == (rank == 1) and len(groups) == 1
raises(ValueError, lambda: dist.new_subgroups_by_enumeration([[0, 1], [1]]), "appeared in both")
raises(ValueError, lambda: dist.new_subgroups_by_enumeration([]), "cannot be empty")

# --- coalesced collectives (mixed dtypes for all_reduce) ------------------------------------
a = tl.tensor(np.arange(6.0).reshape(2, 3) + rank)
b = tl.tensor(np.array([1, 2, 3, 4]) * (rank + 1))
c = tl.tensor(np.array([0.5], dtype=np.float32) * (rank + 1))
dist.all_reduce_coalesced([a, b, c])
np.testing.assert_array_equal(a.numpy(), 2 * np.arange(6.0).reshape(2, 3) + 1)
np.testing.assert_array_equal(b.numpy(), np.array([1, 2, 3, 4]) * 3)
assert b.dtype == tl.int64 and c.dtype == tl.float32 and c.item() == 1.5
d = tl.tensor([float(rank), 2.0])
work = dist.all_reduce_coalesced([d], op=dist.ReduceOp.AVG, async_op=True)
work.wait()
assert d.numpy().tolist() == [0.5, 2.0]
outs = [[tl.zeros(2, 2), tl.zeros(3)] for _ in range(world)]
dist.all_gather_coalesced(outs, [tl.full((2, 2), float(rank)), tl.full((3,), 10.0 + rank)])
for r in range(world):
    assert (outs[r][0].numpy() == r).all() and (outs[r][1].numpy() == 10 + r).all()
raises(ValueError, lambda: dist.all_gather_coalesced(outs, [tl.ones(2, 2), tl.ones(3).long()]),
       "one dtype")

# --- _coalescing_manager: the block's collectives run at its end, all-reduces in one message
for async_ops in (False, True):
    e, f = tl.tensor([1.0, 2.0]) * (rank + 1), tl.tensor([3]) * (rank + 1)
    gathered = tl.zeros(2 * world)
    with dist._coalescing_manager(async_ops=async_ops) as cm:
        dist.all_reduce(e)
        dist.all_reduce(f)
        dist.all_gather_into_tensor(gathered, tl.full((2,), float(rank)))
        assert e.numpy().tolist() == [rank + 1.0, 2.0 * (rank + 1)]  # not yet
    if async_ops:
        assert len(cm.works) == 2  # the coalesced all-reduces, the gather
        cm.wait()
    assert e.numpy().tolist() == [3.0, 6.0] and f.numpy().tolist() == [9]
    assert gathered.numpy().tolist() == [0.0, 0.0, 1.0, 1.0]

# --- monitored_barrier ---------------------------------------------------------------------
dist.monitored_barrier()
for wait_all in (False, True):
    if rank == 1:
        time.sleep(1.0)  # too late for rank 0's 0.2 s
    message = raises(dist.DistBackendError,
                     lambda w=wait_all: dist.monitored_barrier(timeout=timedelta(seconds=0.2),
                                                               wait_all_ranks=w),
                     "failed to pass monitoredBarrier in 200 ms")
    assert ("Ranks 1 failed" if wait_all else "Rank 1 failed") in message
dist.monitored_barrier()  # a late token of a failed call is never taken for a later call's
dist.barrier()

# --- stores shared by the two processes: TCP (rank 0 serves) and a file ----------------------
port = [None]
master = dist.TCPStore("127.0.0.1", 0, world, True, wait_for_workers=False) if rank == 0 else None
if master is not None:
    port[0] = master.port
dist.broadcast_object_list(port, src=0)
store = master if master is not None else dist.TCPStore("127.0.0.1", port[0], world, False)
files = [os.path.join(os.environ.get("TMPDIR", "/tmp"), f"tl-filestore-{os.getppid()}")]
dist.broadcast_object_list(files, src=0)
for shared in (store, dist.FileStore(files[0], world),
               dist.PrefixStore("run", dist.FileStore(files[0], world))):
    shared.set(f"from{rank}", f"hello {rank}")
    assert shared.get(f"from{other}") == f"hello {other}".encode()  # waits for the other rank
    assert shared.add("counter", rank + 1) in ((rank + 1), 3)
    shared.wait(["counter"])
    dist.barrier()
    assert shared.get("counter") == b"3"
    dist.barrier()
if rank == 0:
    os.remove(files[0])

# --- backends and the launch environment ------------------------------------------------------
assert dist.Backend("GLOO") == "gloo" and dist.Backend.MPI == "mpi"
raises(ValueError, lambda: dist.Backend("carrier-pigeon"), "Invalid backend")
assert dist.is_gloo_available() and dist.is_mpi_available() and dist.is_backend_available("mpi")
assert not (dist.is_nccl_available() or dist.is_ucc_available() or dist.is_xccl_available())
assert not dist.is_torchelastic_launched()
assert dist.get_node_local_rank() == rank  # Open MPI's local rank: one machine here
assert issubclass(dist.DistBackendError, dist.DistError) and \
    issubclass(dist.DistError, RuntimeError)
assert os.environ["RANK"] == str(rank)
dist.destroy_process_group()
print(f"rank {rank}: ok", flush=True)
