"""``tinygrad_lite.utils.data``: Dataset, TensorDataset, Subset, random_split, DataLoader."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from ..functions import creation as _creation
from ..tensor import Tensor

__all__ = ["Dataset", "TensorDataset", "Subset", "random_split", "DataLoader", "default_collate"]


class Dataset:
    """A map-style dataset: ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __len__(self) -> int:
        raise NotImplementedError("Subclasses of Dataset should implement __len__.")

    def __add__(self, other: Dataset) -> Dataset:
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    """Samples are ``(t[i] for t in tensors)``; all tensors share the first dimension."""

    def __init__(self, *tensors: Tensor) -> None:
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise ValueError("Size mismatch between tensors: "
                             + ", ".join(str(tuple(t.shape)) for t in tensors))
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class ConcatDataset(Dataset):
    """Datasets one after the other."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1]) if self.cumulative_sizes else 0

    def __getitem__(self, index: int) -> Any:
        if index < 0:
            index += len(self)
        i = int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = 0 if i == 0 else int(self.cumulative_sizes[i - 1])
        return self.datasets[i][index - start]


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index: int) -> Any:
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def _generator(generator: Any) -> np.random.Generator:
    """A NumPy generator: the given one, one seeded by an int, or a child of the global one."""
    if generator is None:
        return _creation._rng
    if isinstance(generator, (int, np.integer)):
        return np.random.default_rng(int(generator))
    return generator


def random_split(dataset: Dataset, lengths: Sequence[float], generator: Any = None
                 ) -> list[Subset]:
    """Split into non-overlapping random subsets of the given lengths (or fractions summing
    to 1, the remainder spread round-robin, as in PyTorch)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = _generator(generator).permutation(n).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, perm[offset:offset + length]))
        offset += length
    return out


def default_collate(batch: list) -> Any:
    """Stack samples into a batch: tensors and arrays are stacked, numbers become a tensor,
    tuples/lists and dicts are collated per position/key; strings stay lists."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return Tensor._wrap(np.stack([b._data for b in batch]))
    if isinstance(elem, np.ndarray):
        return Tensor._wrap(np.stack(batch))
    if isinstance(elem, (bool, np.bool_)):
        return Tensor._wrap(np.asarray(batch, np.bool_))
    if isinstance(elem, (int, np.integer)):
        return Tensor._wrap(np.asarray(batch, np.int64))
    if isinstance(elem, (float, np.floating)):
        return Tensor._wrap(np.asarray(batch, np.float64 if isinstance(elem, float)
                                       else elem.dtype))
    if isinstance(elem, (str, bytes)):
        return list(batch)
    if isinstance(elem, Mapping):
        return {key: default_collate([b[key] for b in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # named tuple
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, (tuple, list)):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        collated = [default_collate(list(s)) for s in zip(*batch)]
        return tuple(collated) if isinstance(elem, tuple) else collated
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts "
                    f"or lists; found {type(elem)}")


class DataLoader:
    """Iterates over ``dataset`` in batches (``batch_size``; ``shuffle`` reshuffles every epoch
    from ``generator`` (a NumPy Generator or a seed; default: the global generator seeded by
    ``tinygrad_lite.manual_seed``); ``drop_last`` drops a short final batch). Single process."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool = False,
                 sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Any = None,
                 generator: Any = None, **kwargs: Any) -> None:
        if num_workers != 0:
            raise NotImplementedError("DataLoader: only num_workers=0 is supported")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_size is not None and batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.drop_last, self.num_workers = drop_last, num_workers
        self.collate_fn = collate_fn if collate_fn is not None else (
            default_collate if batch_size is not None or batch_sampler is not None
            else (lambda x: x))
        self.generator = _generator(generator) if generator is not None else None

    def _indices(self) -> list[int]:
        if self.sampler is not None:
            return list(self.sampler)
        n = len(self.dataset)
        if self.shuffle:
            rng = self.generator if self.generator is not None else _creation._rng
            return rng.permutation(n).tolist()
        return list(range(n))

    def _batches(self) -> Iterator[list[int]]:
        if self.batch_sampler is not None:
            yield from self.batch_sampler
            return
        idx = self._indices()
        bs = self.batch_size
        for start in range(0, len(idx), bs):
            chunk = idx[start:start + bs]
            if len(chunk) < bs and self.drop_last:
                return
            yield chunk

    def __iter__(self) -> Iterator[Any]:
        if self.batch_size is None and self.batch_sampler is None:
            for i in self._indices():
                yield self.collate_fn(self.dataset[i])
            return
        getitems = getattr(self.dataset, "__getitems__", None)
        ds = self.dataset
        if isinstance(ds, TensorDataset) and self.collate_fn is default_collate:
            # fast path: one fancy-indexing gather per tensor instead of per-sample stacking
            for chunk in self._batches():
                index = np.asarray(chunk, np.int64)
                yield tuple(Tensor._wrap(t._data[index]) for t in ds.tensors)
            return
        for chunk in self._batches():
            samples = getitems(chunk) if getitems is not None else [ds[i] for i in chunk]
            yield self.collate_fn(samples)

    def __len__(self) -> int:
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)
