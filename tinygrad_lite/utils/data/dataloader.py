"""``DataLoader``: batches of a map-style dataset, in one process, as in
``torch.utils.data.dataloader``.

The options combine as in PyTorch: ``shuffle`` picks a ``RandomSampler`` (else a
``SequentialSampler``) unless ``sampler`` is given; ``batch_size`` wraps the sampler in a
``BatchSampler`` unless ``batch_sampler`` is given (which excludes ``batch_size``, ``shuffle``,
``sampler`` and ``drop_last``); ``batch_size=None`` turns batching off (each sample goes through
``collate_fn``, by default ``default_convert``).

With ``num_workers > 0`` batches are made by worker processes (the standard library's
multiprocessing; ``_utils/worker.py``): each gets its own copy of the dataset and lists of indices
through its own queue, ``prefetch_factor`` batches per worker are in flight, results come back
in order, a worker's exception is raised here with its traceback, a worker that dies is
reported, and the workers are shut down when the epoch ends, the loop breaks (the iterator is
collected) or at exit; ``persistent_workers`` keeps them for the next epoch. Tensors travel
pickled as whole arrays (one buffer each, not element by element).
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import weakref
from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import numpy as np

from ..._core.tensor_base import wrap
from ..._core.warnings import warn
from ._utils.collate import default_collate, default_convert
from ._utils.generator import AnyGenerator, as_generator, draw_seed
from ._utils.worker import ExceptionWrapper, worker_loop
from .dataset import Dataset, TensorDataset
from .iterable import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

T_co = TypeVar("T_co", covariant=True)

# Attributes fixed once the loader is built (PyTorch refuses to set them afterwards).
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader(Generic[T_co]):
    """Iterates over ``dataset`` in batches: indices from ``sampler`` (or ``shuffle``: a new
    random order every epoch, drawn from ``generator``, a tl.Generator, a NumPy Generator or a
    seed, default the global generator seeded by ``tinygrad_lite.manual_seed``), grouped by
    ``batch_size`` or ``batch_sampler``, samples merged by ``collate_fn`` (default:
    ``default_collate``)."""

    dataset: Dataset[T_co]
    batch_size: int | None
    drop_last: bool
    sampler: Sampler | Iterable
    batch_sampler: Sampler[list[int]] | Iterable[list[int]] | None
    num_workers: int
    collate_fn: Callable[[Any], Any]
    generator: AnyGenerator | None
    _initialized: bool = False

    def __init__(self, dataset: Dataset[T_co], batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler | Iterable | None = None,
                 batch_sampler: Sampler[list[int]] | Iterable[list[int]] | None = None,
                 num_workers: int = 0, collate_fn: Callable[[Any], Any] | None = None,
                 pin_memory: bool = False, drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable[[int], None] | None = None,
                 multiprocessing_context: Any = None, generator: Any = None, *,
                 prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if num_workers == 0 and persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if num_workers == 0 and multiprocessing_context is not None:
            raise ValueError("multiprocessing_context can only be used with multi-process "
                             f"loading (num_workers > 0), but got num_workers={num_workers}")
        if isinstance(multiprocessing_context, str):
            methods = multiprocessing.get_all_start_methods()
            if multiprocessing_context not in methods:
                raise ValueError("multiprocessing_context option should specify a valid start "
                                 f"method in {methods!r}, but got "
                                 f"multiprocessing_context={multiprocessing_context!r}")
        elif multiprocessing_context is not None and not isinstance(
                multiprocessing_context, multiprocessing.context.BaseContext):
            raise TypeError("multiprocessing_context option should be a valid context object or "
                            "a string specifying the start method, but got "
                            f"multiprocessing_context={multiprocessing_context}")
        if prefetch_factor is None and num_workers > 0:
            prefetch_factor = 2
        if isinstance(dataset, IterableDataset):
            if shuffle:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        rng = as_generator(generator)
        if isinstance(dataset, IterableDataset):
            sampler = _InfiniteConstantSampler()
        if sampler is None:
            sampler = RandomSampler(dataset, generator=rng) if shuffle else \
                SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.generator = sampler, batch_sampler, rng
        self.num_workers, self.timeout, self.worker_init_fn = num_workers, timeout, worker_init_fn
        self.pin_memory, self.pin_memory_device = pin_memory, pin_memory_device
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers
        self.multiprocessing_context, self.in_order = multiprocessing_context, in_order
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        # the dataset length len(loader) reported for an IterableDataset (None until asked):
        # fetching more batches than that warns, as in PyTorch
        self._iterable_len_called: int | None = None
        self._initialized = True
        _check_worker_number(num_workers)

    def __setattr__(self, attr: str, value: Any) -> None:
        if self._initialized and attr in _FROZEN:
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(attr, value)

    @property
    def _auto_collation(self) -> bool:
        """Whether batches are collated (a batch sampler is in use)."""
        return self.batch_sampler is not None

    @property
    def _index_sampler(self) -> Any:
        """What iteration draws from: the batch sampler, else the sampler."""
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> Any:
        _warn_pin_memory(self)
        if self.num_workers == 0:
            if self.timeout != 0:  # PyTorch's single-process iterator asserts this
                raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
            return _SingleProcessIter(self)
        _check_worker_number(self.num_workers)
        if self.persistent_workers:
            cached = getattr(self, "_persistent_iter", None)
            if cached is None or not cached._alive():
                cached = _MultiProcessIter(self)
                object.__setattr__(self, "_persistent_iter", cached)
            else:
                cached._next_epoch()
            return cached
        return _MultiProcessIter(self)

    def __len__(self) -> int:
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)
            self._iterable_len_called = length
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else \
                    -(-length // self.batch_size)
            return length
        return len(self._index_sampler)


def _check_worker_number(num_workers: int) -> None:
    """PyTorch's warning when more workers are asked for than this process has CPUs."""
    if not num_workers:
        return
    cpuset_checked = hasattr(os, "sched_getaffinity")
    cpus = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
    if cpus is not None and num_workers <= cpus:
        return
    suggestion = ("DataLoader is not able to compute a suggested max number of worker in "
                  "current system." if cpus is None else
                  f"Our suggested max number of worker in current system is {cpus}"
                  f"{'' if cpuset_checked else ' (`cpuset` is not taken into account)'}, which "
                  "is smaller than what this DataLoader is going to create.")
    warn(f"This DataLoader will create {num_workers} worker processes in total. {suggestion} "
         "Please be aware that excessive worker creation might get DataLoader running slow or "
         "even freeze, lower the worker number to avoid potential slowness/freeze if necessary.")


def _warn_pin_memory(loader: DataLoader) -> None:
    """PyTorch's warnings for ``pin_memory`` at every epoch on a machine without an accelerator,
    which is always the case here (the batches stay in CPU memory, as there)."""
    if not loader.pin_memory:
        return
    if loader.pin_memory_device:
        warn("pin_memory_device is deprecated, the current accelerator will be used as the "
             f"device,ignore pin_memory_device='{loader.pin_memory_device}'.")
    warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
         "memory won't be used.")


def _warn_iterable_overrun(loader: DataLoader, reported: int | None, yielded: int) -> None:
    """PyTorch's warning when an IterableDataset yields more batches than the length that
    ``len(loader)`` had read from it when the epoch began (``reported``; PyTorch compares the
    batches with the dataset's length)."""
    if reported is None or yielded <= reported:
        return
    message = (f"Length of IterableDataset {loader.dataset} was reported to be {reported}"
               f"(when accessing len(dataloader)), but {yielded} samples have been fetched. ")
    if loader.num_workers > 0:
        message += ("For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                    "for examples.")
    warn(message)


def _fast_gather(dataset: Dataset, collate_fn: Callable) -> TensorDataset | None:
    """The dataset, when a batch can be one fancy-indexing gather per tensor: a plain
    TensorDataset of tensors that don't require grad, collated by ``default_collate``."""
    if (collate_fn is default_collate and isinstance(dataset, TensorDataset)
            and type(dataset).__getitem__ is TensorDataset.__getitem__
            and not hasattr(dataset, "__getitems__")
            and not any(t._requires_grad for t in dataset.tensors)):
        return dataset
    return None


class _SingleProcessIter:
    """One epoch over a DataLoader: fetches and collates each batch (or sample) in turn."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._dataset = loader.dataset
        self._collate_fn = loader.collate_fn
        self._auto_collation = loader._auto_collation
        self._sampler_iter = iter(loader._index_sampler)
        # drawn as PyTorch's iterators draw it (workers would use it), so that the sampler's
        # own draws come from the same point of the stream as in PyTorch
        self._base_seed = draw_seed(loader.generator)
        self._fast = _fast_gather(loader.dataset, loader.collate_fn) \
            if self._auto_collation else None
        self._iterable = iter(loader.dataset) if isinstance(loader.dataset, IterableDataset) \
            else None
        self._reported_len, self._yielded = loader._iterable_len_called, 0

    def __iter__(self) -> _SingleProcessIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
        if self._iterable is not None:
            data = _fetch_iterable(self._iterable, self._loader.batch_size,
                                   self._loader.drop_last, self._collate_fn)
            self._yielded += 1
            _warn_iterable_overrun(self._loader, self._reported_len, self._yielded)
            return data
        index = next(self._sampler_iter)
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        if self._fast is not None:  # what default_collate makes of the samples, in one gather
            rows = np.asarray(index, dtype=np.int64)
            return [wrap(t._data[rows]) for t in self._fast.tensors]
        getitems = getattr(self._dataset, "__getitems__", None)
        if getitems:
            return self._collate_fn(getitems(index))
        return self._collate_fn([self._dataset[i] for i in index])



class _InfiniteConstantSampler(Sampler):
    """What an IterableDataset's loader iterates: the dataset decides when to stop."""

    def __iter__(self) -> Any:
        return itertools.repeat(None)


def _fetch_iterable(iterator: Any, batch_size: int | None, drop_last: bool,
                    collate_fn: Callable) -> Any:
    """The next batch (or sample) of an iterable dataset's iterator."""
    if batch_size is None:
        return collate_fn(next(iterator))
    samples = list(itertools.islice(iterator, batch_size))
    if not samples or (drop_last and len(samples) < batch_size):
        raise StopIteration
    return collate_fn(samples)


class _Fetcher:
    """What a worker runs per task (picklable, for the spawn start method)."""

    def __init__(self, collate_fn: Callable, auto_collation: bool, batch_size: int | None,
                 drop_last: bool) -> None:
        self.collate_fn, self.auto_collation = collate_fn, auto_collation
        self.batch_size, self.drop_last = batch_size, drop_last

    def __call__(self, source: Any, index: Any) -> Any:
        if isinstance(source, Iterable) and not hasattr(source, "__getitem__"):
            return _fetch_iterable(source, self.batch_size, self.drop_last, self.collate_fn)
        if not self.auto_collation:
            return self.collate_fn(source[index])
        getitems = getattr(source, "__getitems__", None)
        if getitems:
            return self.collate_fn(getitems(index))
        return self.collate_fn([source[i] for i in index])


def _shutdown(workers: list, queues: list) -> None:
    """Stop the workers: ask each to exit, wait briefly, then terminate what is left."""
    for q in queues:
        try:
            q.put(None)
        except (OSError, ValueError):
            pass
    for w in workers:
        w.join(timeout=5.0)
        if w.is_alive():
            w.terminate()
            w.join(timeout=1.0)


class _MultiProcessIter:
    """An epoch over a DataLoader with worker processes (see the module docstring)."""

    def __init__(self, loader: DataLoader) -> None:
        self._loader = loader
        self._iterable = isinstance(loader.dataset, IterableDataset)
        context = loader.multiprocessing_context
        if isinstance(context, str) or context is None:
            context = multiprocessing.get_context(context)
        self._result_queue = context.Queue()
        self._index_queues = []
        self._workers = []
        base_seed = draw_seed(loader.generator)
        fetch = _Fetcher(loader.collate_fn, loader._auto_collation, loader.batch_size,
                         loader.drop_last)
        for worker_id in range(loader.num_workers):
            index_queue = context.Queue()
            worker = context.Process(
                target=worker_loop,
                args=(loader.dataset, index_queue, self._result_queue, fetch, worker_id,
                      loader.num_workers, base_seed + worker_id, loader.worker_init_fn,
                      self._iterable),
                daemon=True)
            worker.start()
            self._index_queues.append(index_queue)
            self._workers.append(worker)
        self._finalizer = weakref.finalize(self, _shutdown, self._workers, self._index_queues)
        self._next_epoch()

    def _alive(self) -> bool:
        return all(w.is_alive() for w in self._workers)

    def _next_epoch(self) -> None:
        """Reset for a (new) epoch: fresh indices, nothing in flight."""
        self._sampler_iter = iter(self._loader._index_sampler)
        self._sent = self._received = 0
        self._reported_len, self._yielded = self._loader._iterable_len_called, 0
        self._buffer: dict[int, Any] = {}
        self._exhausted_workers: set[int] = set()
        self._task_worker: dict[int, int] = {}
        self._sampler_done = False
        for _ in range((self._loader.prefetch_factor or 2) * len(self._workers)):
            self._send()

    def _send(self) -> None:
        if self._sampler_done:
            return
        workers = [i for i in range(len(self._workers)) if i not in self._exhausted_workers]
        if not workers:
            return
        try:
            index = next(self._sampler_iter)
        except StopIteration:
            self._sampler_done = True
            return
        worker = workers[self._sent % len(workers)]
        self._index_queues[worker].put((self._sent, index))
        self._task_worker[self._sent] = worker
        self._sent += 1

    def __iter__(self) -> _MultiProcessIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _get(self) -> tuple:
        timeout = self._loader.timeout or None
        waited = 0.0
        while True:
            try:
                return self._result_queue.get(timeout=timeout or 5.0)
            except queue.Empty:
                waited += timeout or 5.0
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._finalizer()
                    raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly"
                                       f" (exit code {dead[0].exitcode})") from None
                if timeout:
                    self._finalizer()
                    raise RuntimeError(f"DataLoader timed out after {timeout} seconds") \
                        from None

    def __next__(self) -> Any:
        while True:
            if self._received in self._buffer:
                data = self._buffer.pop(self._received)
                self._received += 1
                if isinstance(data, StopIteration):  # an iterable worker ran dry
                    continue
                self._send()
                if isinstance(data, ExceptionWrapper):
                    self._finalizer()
                    data.reraise()
                if self._iterable:
                    self._yielded += 1
                    _warn_iterable_overrun(self._loader, self._reported_len, self._yielded)
                return data
            if self._received >= self._sent:
                if not self._loader.persistent_workers:
                    self._finalizer()
                raise StopIteration
            task_id, data = self._get()
            if isinstance(data, StopIteration):
                self._exhausted_workers.add(self._task_worker[task_id])
                if not self._iterable:
                    continue
            self._buffer[task_id] = data
            if isinstance(data, StopIteration):
                self._sampler_done = len(self._exhausted_workers) == len(self._workers) or \
                    self._sampler_done
