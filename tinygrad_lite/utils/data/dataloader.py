"""``DataLoader``: batches of a map-style dataset, in one process, as in
``torch.utils.data.dataloader``.

The options combine as in PyTorch: ``shuffle`` picks a ``RandomSampler`` (else a
``SequentialSampler``) unless ``sampler`` is given; ``batch_size`` wraps the sampler in a
``BatchSampler`` unless ``batch_sampler`` is given (which excludes ``batch_size``, ``shuffle``,
``sampler`` and ``drop_last``); ``batch_size=None`` turns batching off (each sample goes through
``collate_fn``, by default ``default_convert``). Worker processes are not implemented.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Generic, TypeVar

import numpy as np

from ..._core.tensor_base import wrap
from ._utils.collate import default_collate, default_convert
from ._utils.generator import as_generator
from .dataset import Dataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

T_co = TypeVar("T_co", covariant=True)

# Attributes fixed once the loader is built (PyTorch refuses to set them afterwards).
_FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class DataLoader(Generic[T_co]):
    """Iterates over ``dataset`` in batches: indices from ``sampler`` (or ``shuffle``: a new
    random order every epoch, drawn from ``generator``, a NumPy Generator or a seed, default
    the global generator seeded by ``tinygrad_lite.manual_seed``), grouped by ``batch_size`` or
    ``batch_sampler``, samples merged by ``collate_fn`` (default: ``default_collate``)."""

    dataset: Dataset[T_co]
    batch_size: int | None
    drop_last: bool
    sampler: Sampler | Iterable
    batch_sampler: Sampler[list[int]] | Iterable[list[int]] | None
    num_workers: int
    collate_fn: Callable[[Any], Any]
    generator: np.random.Generator | None
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
        if num_workers != 0:
            raise NotImplementedError("DataLoader: only num_workers=0 is supported")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if persistent_workers:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if multiprocessing_context is not None:
            raise ValueError("multiprocessing_context can only be used with multi-process "
                             f"loading (num_workers > 0), but got num_workers={num_workers}")
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
        self._initialized = True

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

    def __iter__(self) -> _SingleProcessIter:
        return _SingleProcessIter(self)

    def __len__(self) -> int:
        return len(self._index_sampler)


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
        self._fast = _fast_gather(loader.dataset, loader.collate_fn) \
            if self._auto_collation else None

    def __iter__(self) -> _SingleProcessIter:
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __next__(self) -> Any:
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

