"""``tl.distributed.device_mesh``: the ranks laid out as an n-dimensional grid
(``init_device_mesh("cpu", (dp, tp), mesh_dim_names=("dp", "tp"))``), with one process group
per mesh dimension, so that data, tensor, pipeline and context parallelism each run their
collectives among the ranks that share every other coordinate.

Every rank creates the mesh together (the groups are MPI communicators split from the default
group). Slicing by dimension name (``mesh["tp"]``, ``mesh["dp", "cp"]``) gives the sub-mesh this
rank belongs to.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..tensor import Tensor
from .process_group import ProcessGroup, default_group, init_process_group, is_initialized

__all__ = ["DeviceMesh", "init_device_mesh"]


class DeviceMesh:
    """The global ranks in an n-dimensional array ``mesh``; this rank's coordinate in it and a
    process group along each dimension. ``device_type`` is "cpu" here."""

    def __init__(self, device_type: str, mesh: Any, *, mesh_dim_names: Sequence[str] | None = None,
                 _init_backend: bool = True) -> None:
        if str(device_type) != "cpu":
            raise RuntimeError(f"DeviceMesh: device_type {device_type!r} is not available; "
                               "tensors live on the CPU here (use 'cpu')")
        ranks = np.asarray(mesh.numpy() if hasattr(mesh, "numpy") else mesh, dtype=np.int64)
        if ranks.ndim == 0:
            raise ValueError("DeviceMesh: the mesh needs at least one dimension")
        names = None if mesh_dim_names is None else tuple(str(n) for n in mesh_dim_names)
        if names is not None and (len(names) != ranks.ndim or len(set(names)) != len(names)):
            raise RuntimeError(f"DeviceMesh: mesh_dim_names {names} must name each of the mesh's "
                               f"{ranks.ndim} dimensions once")
        if _init_backend and not is_initialized():
            init_process_group("mpi")
        world = default_group()
        if sorted(ranks.ravel().tolist()) != sorted(set(ranks.ravel().tolist())):
            raise RuntimeError(f"DeviceMesh: the mesh {ranks.tolist()} lists a rank twice")
        if ranks.min() < 0 or ranks.max() >= world.size():
            raise RuntimeError(f"DeviceMesh: the mesh {ranks.tolist()} names ranks outside the "
                               f"world of {world.size()}")
        self.device_type = "cpu"
        self._mesh = ranks
        self.mesh_dim_names = names
        found = np.argwhere(ranks == world.rank())
        self._coordinate = None if len(found) == 0 else [int(i) for i in found[0]]
        self._groups = [self._split(world, [dim]) for dim in range(ranks.ndim)]

    def _split(self, world: ProcessGroup, dims: list[int]) -> ProcessGroup | None:
        """The group of the ranks that share this rank's coordinates outside ``dims`` (one
        collective split over the default group; ranks outside the mesh take no part)."""
        undefined = int(world.comm.UNDEFINED) if hasattr(world.comm, "UNDEFINED") else -32766
        if self._coordinate is None:
            world.comm.Split(undefined, world.rank())
            return None
        others = [d for d in range(self._mesh.ndim) if d not in dims]
        moved = np.moveaxis(self._mesh, others + dims, list(range(self._mesh.ndim)))
        flat = moved.reshape(int(np.prod([self._mesh.shape[d] for d in others], dtype=np.int64)),
                             -1)
        color = next(i for i, row in enumerate(flat) if world.rank() in row)
        members = [int(r) for r in flat[color]]
        comm = world.comm.Split(color, members.index(world.rank()))
        return ProcessGroup(comm, members)

    # -- shape ----------------------------------------------------------------------------
    @property
    def mesh(self) -> Any:
        """The ranks as an integer tensor of the mesh's shape."""
        return Tensor(self._mesh.copy())

    @property
    def ndim(self) -> int:
        return int(self._mesh.ndim)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(int(s) for s in self._mesh.shape)

    def _dim(self, mesh_dim: int | str | None) -> int:
        if mesh_dim is None:
            if self.ndim != 1:
                raise RuntimeError(f"DeviceMesh: this mesh has {self.ndim} dimensions "
                                   f"{self.mesh_dim_names or ''}; name the one you mean")
            return 0
        if isinstance(mesh_dim, str):
            if not self.mesh_dim_names or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"DeviceMesh: no dimension named {mesh_dim!r} (the mesh's "
                               f"dimensions are {self.mesh_dim_names})")
            return self.mesh_dim_names.index(mesh_dim)
        if not -self.ndim <= int(mesh_dim) < self.ndim:
            raise IndexError(f"DeviceMesh: dimension {mesh_dim} is out of range for a mesh of "
                             f"{self.ndim} dimensions")
        return int(mesh_dim) % self.ndim

    def size(self, mesh_dim: int | str | None = None) -> int:
        """The number of ranks in the mesh, or along one dimension."""
        return int(self._mesh.size) if mesh_dim is None else self.shape[self._dim(mesh_dim)]

    # -- this rank ------------------------------------------------------------------------
    def get_rank(self) -> int:
        """This process's global rank."""
        return default_group().rank()

    def get_coordinate(self) -> list[int] | None:
        """This rank's index along each dimension (None when it is not in the mesh)."""
        return None if self._coordinate is None else list(self._coordinate)

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This rank's index along ``mesh_dim``."""
        if self._coordinate is None:
            raise RuntimeError("DeviceMesh: this rank is not part of the mesh")
        return self._coordinate[self._dim(mesh_dim)]

    def get_group(self, mesh_dim: int | str | None = None) -> ProcessGroup:
        """The process group along ``mesh_dim`` that this rank belongs to."""
        group = self._groups[self._dim(mesh_dim)]
        if group is None:
            raise RuntimeError("DeviceMesh: this rank is not part of the mesh")
        return group

    def get_all_groups(self) -> list[ProcessGroup]:
        """One group per dimension, in order."""
        return [self.get_group(d) for d in range(self.ndim)]

    # -- sub-meshes -----------------------------------------------------------------------
    def __getitem__(self, names: str | Sequence[str]) -> DeviceMesh:
        """The sub-mesh over the named dimensions that holds this rank (every rank calls it)."""
        wanted = (names,) if isinstance(names, str) else tuple(names)
        dims = [self._dim(n) for n in wanted]
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"DeviceMesh: {wanted} names a dimension twice")
        if self._coordinate is None:
            raise RuntimeError("DeviceMesh: this rank is not part of the mesh")
        index = tuple(slice(None) if d in dims else self._coordinate[d] for d in range(self.ndim))
        ranks = np.transpose(self._mesh[index],
                             np.argsort(np.argsort(dims))) if len(dims) > 1 else self._mesh[index]
        sub = DeviceMesh.__new__(DeviceMesh)
        sub.device_type = "cpu"
        sub._mesh = np.ascontiguousarray(ranks)
        sub.mesh_dim_names = tuple(self.mesh_dim_names[d] for d in dims) \
            if self.mesh_dim_names else None
        sub._coordinate = [self._coordinate[d] for d in dims]
        sub._groups = [self._groups[d] for d in dims]
        return sub

    def _flatten(self, mesh_dim_name: str | None = None) -> DeviceMesh:
        """This mesh as one dimension (a new group over all its ranks)."""
        world = default_group()
        flat = DeviceMesh.__new__(DeviceMesh)
        flat.device_type = "cpu"
        flat._mesh = self._mesh.reshape(-1)
        flat.mesh_dim_names = (mesh_dim_name or "_".join(self.mesh_dim_names or ("flat",)),)
        found = np.argwhere(flat._mesh == world.rank())
        flat._coordinate = None if len(found) == 0 else [int(found[0][0])]
        flat._groups = [flat._split(world, [0])]
        return flat

    def __repr__(self) -> str:
        names = f", mesh_dim_names={self.mesh_dim_names}" if self.mesh_dim_names else ""
        return f"DeviceMesh('cpu', {self._mesh.tolist()}{names})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, DeviceMesh) and np.array_equal(self._mesh, other._mesh)
                and self.mesh_dim_names == other.mesh_dim_names)

    def __hash__(self) -> int:
        return hash((self._mesh.tobytes(), self._mesh.shape, self.mesh_dim_names))


def init_device_mesh(device_type: str, mesh_shape: Sequence[int], *,
                     mesh_dim_names: Sequence[str] | None = None) -> DeviceMesh:
    """A mesh of ``mesh_shape`` over all ranks in order (``prod(mesh_shape)`` must be the world
    size); starts the default group when it is not yet started."""
    if not is_initialized():
        init_process_group("mpi")
    shape = tuple(int(s) for s in mesh_shape)
    world = default_group().size()
    if int(np.prod(shape, dtype=np.int64)) != world:
        raise RuntimeError(f"init_device_mesh: mesh_shape {shape} holds "
                           f"{int(np.prod(shape, dtype=np.int64))} ranks, but the world has "
                           f"{world}")
    return DeviceMesh(device_type, np.arange(world).reshape(shape), mesh_dim_names=mesh_dim_names)
