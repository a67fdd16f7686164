"""Run under mpiexec on 4 ranks: a 2x2 DeviceMesh's groups, coordinates and sub-meshes, and
an all_reduce along each dimension against NumPy. Prints "rank R: ok"."""

import numpy as np

import tinygrad_lite as tl
import tinygrad_lite.distributed as dist
from tinygrad_lite.distributed.device_mesh import DeviceMesh, init_device_mesh

mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
rank = dist.get_rank()
grid = np.arange(4).reshape(2, 2)
assert mesh.shape == (2, 2) and mesh.ndim == 2 and mesh.size() == 4 and mesh.size("tp") == 2
assert mesh.get_coordinate() == [rank // 2, rank % 2]
assert mesh.get_local_rank("dp") == rank // 2 and mesh.get_local_rank(1) == rank % 2
assert mesh.get_group("tp").ranks == grid[rank // 2].tolist()
assert mesh.get_group("dp").ranks == grid[:, rank % 2].tolist()
np.testing.assert_array_equal(mesh.mesh.numpy(), grid)

for name, axis in (("dp", 0), ("tp", 1)):
    t = tl.tensor([float(rank)])
    dist.all_reduce(t, group=mesh.get_group(name))
    along = grid[:, rank % 2] if axis == 0 else grid[rank // 2]
    assert t.item() == along.sum(), (name, t.item())
    sub = mesh[name]
    assert sub.ndim == 1 and sub.mesh.numpy().tolist() == along.tolist()
    assert sub.get_group() is mesh.get_group(name)

flat = mesh._flatten("dp_tp")
t = tl.tensor([1.0])
dist.all_reduce(t, group=flat.get_group())
assert t.item() == 4.0 and flat.get_local_rank() == rank

# a transposed view of the same mesh: groups follow the listed order of names
swapped = mesh["tp", "dp"]
assert swapped.shape == (2, 2) and swapped.mesh.numpy().tolist() == grid.T.tolist()

errors = 0
for bad in (lambda: init_device_mesh("cpu", (3, 2)), lambda: mesh.get_group(),
            lambda: mesh["pp"], lambda: DeviceMesh("cuda", [0, 1])):
    try:
        bad()
    except (RuntimeError, KeyError):
        errors += 1
assert errors == 4
print(f"rank {rank}: ok", flush=True)
