"""``tl.multiprocessing``: the standard library's ``multiprocessing`` under PyTorch's name,
with tensors shared between processes instead of copied.

Everything of ``multiprocessing`` is here (``Process``, ``Pool``, ``Lock``, ``Event``,
``set_start_method``, ``cpu_count``, ...). On top of it:

- tensors in shared memory (``Tensor.share_memory_()``, ``Module.share_memory()``) are sent to
  other processes (``Process`` arguments under spawn, any queue or pipe) as handles to the same
  memory, so several processes can train one model in place (Hogwild);
- ``Queue``, ``SimpleQueue``, ``JoinableQueue`` and the queues of ``get_context(...)`` move every
  tensor put on them to shared memory first, as PyTorch's do;
- ``spawn(fn, args, nprocs)`` / ``start_processes`` run ``fn(i, *args)`` in child processes and
  raise ``ProcessRaisedException`` when one of them fails.

The memory is an anonymous file passed by descriptor (see ``_core/shared_storage.py``): nothing
is created in ``/dev/shm``, so nothing can leak there. Both of PyTorch's sharing strategy names
are accepted; each uses descriptors.
"""

from __future__ import annotations

from multiprocessing import (
    Array,
    AuthenticationError,
    Barrier,
    BoundedSemaphore,
    BufferTooShort,
    Condition,
    Event,
    Lock,
    Manager,
    Pipe,
    Pool,
    Process,
    ProcessError,
    RawArray,
    RawValue,
    RLock,
    Semaphore,
    TimeoutError,
    Value,
    active_children,
    allow_connection_pickling,
    cpu_count,
    current_process,
    freeze_support,
    get_all_start_methods,
    get_logger,
    get_start_method,
    log_to_stderr,
    parent_process,
    set_executable,
    set_forkserver_preload,
    set_start_method,
)

from .queues import Context, JoinableQueue, Queue, SimpleQueue, get_context
from .reductions import init_reductions
from .spawn import (
    ProcessContext,
    ProcessException,
    ProcessExitedException,
    ProcessRaisedException,
    SpawnContext,
    spawn,
    start_processes,
)

__all__ = [
    "Array", "AuthenticationError", "Barrier", "BoundedSemaphore", "BufferTooShort",
    "Condition", "Event", "Lock", "Manager", "Pipe", "Pool", "Process", "ProcessError",
    "RawArray", "RawValue", "RLock", "Semaphore", "TimeoutError", "Value", "active_children",
    "allow_connection_pickling", "cpu_count", "current_process", "freeze_support",
    "get_all_start_methods", "get_logger", "get_start_method", "log_to_stderr",
    "parent_process", "set_executable", "set_forkserver_preload", "set_start_method",
    "Context", "JoinableQueue", "Queue", "SimpleQueue", "get_context", "init_reductions",
    "ProcessContext", "ProcessException", "ProcessExitedException", "ProcessRaisedException",
    "SpawnContext", "spawn", "start_processes", "get_sharing_strategy",
    "set_sharing_strategy", "get_all_sharing_strategies",
]

_STRATEGIES = {"file_descriptor", "file_system"}
_strategy = ["file_descriptor"]


def get_all_sharing_strategies() -> set[str]:
    """The sharing strategy names accepted by ``set_sharing_strategy``."""
    return set(_STRATEGIES)


def get_sharing_strategy() -> str:
    """The current sharing strategy's name (both use file descriptors here)."""
    return _strategy[0]


def set_sharing_strategy(new_strategy: str) -> None:
    """Choose PyTorch's sharing strategy by name; a ValueError for an unknown one."""
    if new_strategy not in _STRATEGIES:
        raise ValueError(f"set_sharing_strategy: unknown strategy {new_strategy!r}; expected one "
                         f"of {sorted(_STRATEGIES)}")
    _strategy[0] = new_strategy


init_reductions()
