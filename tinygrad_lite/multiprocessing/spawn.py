"""``spawn``/``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, as PyTorch does.

Each child runs ``fn`` inside a wrapper that sends the traceback of an uncaught exception back
on a queue and exits with status 1. ``ProcessContext.join`` waits for the children; when one
fails it terminates the others and raises ``ProcessRaisedException`` (carrying the child's
traceback) or ``ProcessExitedException`` (killed by a signal, or a nonzero exit status).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import signal
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any

__all__ = ["spawn", "start_processes", "ProcessContext", "SpawnContext", "ProcessException",
           "ProcessRaisedException", "ProcessExitedException"]


class ProcessException(Exception):  # noqa: N818 - PyTorch's name
    """A child process of ``spawn`` failed."""

    def __init__(self, msg: str, error_index: int, pid: int | None) -> None:
        super().__init__(msg)
        self.msg, self.error_index, self.pid = msg, error_index, pid

    def __reduce__(self) -> tuple:
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A child process of ``spawn`` raised an exception (its traceback is in the message)."""


class ProcessExitedException(ProcessException):
    """A child process of ``spawn`` was killed by a signal or exited with a nonzero status."""

    def __init__(self, msg: str, error_index: int, error_pid: int | None, exit_code: int,
                 signal_name: str | None = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code, self.signal_name = exit_code, signal_name

    def __reduce__(self) -> tuple:
        return (type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                             self.signal_name))


def _wrap(fn: Callable, i: int, args: tuple, error_queue: Any) -> None:
    """What each child runs: ``fn(i, *args)``, reporting an uncaught exception's traceback."""
    try:
        fn(i, *args)
    except KeyboardInterrupt:
        pass  # the parent is shutting the children down
    except Exception:
        error_queue.put(traceback.format_exc())
        sys.exit(1)


class ProcessContext:
    """The processes started by ``start_processes``; ``join`` waits for them."""

    def __init__(self, processes: list, error_queues: list) -> None:
        self.processes, self.error_queues = processes, error_queues
        self.sentinels = {p.sentinel: i for i, p in enumerate(processes)}

    def pids(self) -> list[int]:
        """The children's process ids."""
        return [int(p.pid) for p in self.processes]

    def join(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds (None: no limit) for the children; True when all
        have exited successfully, False on timeout. Raises when one of them failed."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.sentinels:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready = multiprocessing.connection.wait(list(self.sentinels), timeout=left)
            if not ready:
                return False
            for sentinel in ready:
                index = self.sentinels.pop(sentinel)
                process = self.processes[index]
                process.join()
                if process.exitcode != 0:
                    self._fail(index)
        return True

    def _fail(self, index: int) -> None:
        """Stop the other children and raise the failure of child ``index``."""
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        self.sentinels.clear()
        process, queue = self.processes[index], self.error_queues[index]
        code = int(process.exitcode)
        if not queue.empty():
            message = (f"\n\n-- Process {index} terminated with the following error:\n"
                       + queue.get())
            raise ProcessRaisedException(message, index, process.pid)
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException(f"process {index} terminated with signal {name}",
                                         index, process.pid, code, name)
        raise ProcessExitedException(f"process {index} terminated with exit code {code}",
                                     index, process.pid, code)


SpawnContext = ProcessContext  # PyTorch's older name


def start_processes(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """Start ``nprocs`` processes running ``fn(i, *args)`` (``i`` = 0 .. nprocs-1) with
    ``start_method``; wait for them when ``join`` (returns None), else return their
    ``ProcessContext``."""
    if nprocs < 1:
        raise ValueError(f"start_processes: nprocs must be at least 1, got {nprocs}")
    ctx: Any = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for i in range(nprocs):
        error_queue = ctx.SimpleQueue()
        p = ctx.Process(target=_wrap, args=(fn, i, tuple(args), error_queue), daemon=daemon)
        p.start()
        processes.append(p)
        queues.append(error_queue)
    context = ProcessContext(processes, queues)
    if not join:
        return context
    while not context.join():
        pass
    return None


def spawn(fn: Callable, args: tuple = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn") -> ProcessContext | None:
    """``start_processes`` (PyTorch's ``torch.multiprocessing.spawn``); ``fn`` must be
    importable by the children, e.g. a module-level function."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
