"""Iterable-style datasets (``torch.utils.data.IterableDataset``): a stream of samples, read by
iterating; with worker processes, each worker iterates its own copy, so a dataset shards itself
with ``get_worker_info()``. Also ``ChainDataset`` and ``StackDataset``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from .dataset import Dataset

__all__ = ["IterableDataset", "ChainDataset", "StackDataset"]

T_co = TypeVar("T_co", covariant=True)


class IterableDataset(Dataset[T_co], Iterable[T_co]):
    """A dataset read by iterating: subclasses define ``__iter__`` (abstract, as in PyTorch:
    a class without one can't be instantiated)."""

    _iterable_style = True  # what ConcatDataset (in dataset.py, below this module) checks

    def __add__(self, other: Any) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class ChainDataset(IterableDataset):
    """Several iterable datasets, one after the other."""

    def __init__(self, datasets: Iterable[Dataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self) -> int:
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


class StackDataset(Dataset):
    """Samples of several equally long datasets side by side: as a tuple (positional) or a
    dict (keyword arguments)."""

    def __init__(self, *args: Dataset, **kwargs: Dataset) -> None:
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or ``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        parts = args or tuple(kwargs.values())
        if not parts:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = args if args else kwargs

    def __getitem__(self, index: int) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices: list[int]) -> list[Any]:
        """A batch of samples (the DataLoader's fetch): each dataset read through its own
        ``__getitems__`` where it has one."""
        parts = self.datasets if isinstance(self.datasets, dict) else \
            dict(enumerate(self.datasets))
        columns = {}
        for key, d in parts.items():
            getitems = getattr(d, "__getitems__", None)
            if callable(getitems):
                items = getitems(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. Expected "
                                     f"{len(indices)}, got {len(items)}")
                columns[key] = items
            else:
                columns[key] = [d[i] for i in indices]
        if isinstance(self.datasets, dict):
            return [{key: columns[key][j] for key in columns} for j in range(len(indices))]
        return [tuple(column[j] for column in columns.values()) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length
