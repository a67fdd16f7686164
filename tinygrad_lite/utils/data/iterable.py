"""Iterable-style datasets (``torch.utils.data.IterableDataset``): a stream of samples, read by
iterating; with worker processes, each worker iterates its own copy, so a dataset shards itself
with ``get_worker_info()``. Also ``ChainDataset`` and ``StackDataset``."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar

from .dataset import Dataset

__all__ = ["IterableDataset", "ChainDataset", "StackDataset"]

T_co = TypeVar("T_co", covariant=True)


class IterableDataset(Dataset[T_co], Generic[T_co]):
    """A dataset read by iterating: subclasses define ``__iter__``."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

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
        return sum(len(d) for d in self.datasets)


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

    def __len__(self) -> int:
        return self._length
