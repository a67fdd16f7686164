"""DataLoader worker processes: each holds its own copy of the dataset, takes lists of indices
from its queue, and sends back collated batches (or the exception it hit, with its traceback).

Seeding, as PyTorch does: the loader draws a base seed from the library generator per epoch;
worker ``i`` seeds tinygrad_lite's default generator and Python's ``random`` with ``base_seed +
i`` (NumPy's global state is left alone, as in PyTorch), so runs are reproducible and workers
draw different numbers. ``get_worker_info()`` tells dataset code which worker it runs in.
BLAS is limited to one thread per worker, so workers don't fight over the cores.
"""

from __future__ import annotations

import os
import queue
import random
import traceback
from dataclasses import dataclass
from typing import Any

from ....functions.generator import manual_seed

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper", "worker_loop"]


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a worker."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: list[WorkerInfo | None] = [None]


def get_worker_info() -> WorkerInfo | None:
    """In a DataLoader worker: its id, the number of workers, its seed and its dataset copy;
    None in the main process."""
    return _worker_info[0]


class ExceptionWrapper:
    """An exception raised in a worker, carried to the main process with its traceback."""

    def __init__(self, exc: BaseException, where: str) -> None:
        self.exc_type = type(exc)
        self.message = (f"Caught {type(exc).__name__} {where}.\nOriginal "
                        + "".join(traceback.format_exception(type(exc), exc,
                                                             exc.__traceback__)))

    def reraise(self) -> None:
        """Raise it again in this process, as the original type when that is possible."""
        try:
            error = self.exc_type(self.message)
        except Exception:  # an exception type whose constructor needs other arguments
            error = RuntimeError(self.message)
        raise error


def _limit_blas_threads() -> None:
    os.environ["OMP_NUM_THREADS"] = os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(1)


def worker_loop(dataset: Any, index_queue: Any, result_queue: Any, fetch: Any, worker_id: int,
                num_workers: int, seed: int, worker_init_fn: Any, iterable: bool) -> None:
    """A worker's life: set up, then fetch what the index queue asks for until it says None."""
    _limit_blas_threads()
    manual_seed(seed)
    random.seed(seed)
    _worker_info[0] = WorkerInfo(worker_id, num_workers, seed, dataset)
    init_error = None
    try:
        if worker_init_fn is not None:
            worker_init_fn(worker_id)
    except Exception as exc:
        init_error = ExceptionWrapper(exc, f"in DataLoader worker process {worker_id} "
                                      "(worker_init_fn)")
    iterator = iter(dataset) if iterable and init_error is None else None
    while True:
        try:
            task = index_queue.get(timeout=5.0)
        except queue.Empty:
            if os.getppid() == 1:  # the main process is gone: don't linger
                return
            continue
        if task is None:
            return
        task_id, indices = task
        if init_error is not None:
            result_queue.put((task_id, init_error))
            continue
        try:
            data = fetch(iterator if iterable else dataset, indices)
        except StopIteration:
            data = StopIteration()
        except Exception as exc:
            data = ExceptionWrapper(exc, f"in DataLoader worker process {worker_id}")
        result_queue.put((task_id, data))
