"""Map-style datasets: ``Dataset``, ``TensorDataset``, ``ConcatDataset``, ``Subset``, and
``random_split``, as in ``torch.utils.data.dataset``."""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn
from ._utils.generator import as_generator, resolve

__all__ = ["Dataset", "TensorDataset", "ConcatDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """A map-style dataset: subclasses define ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index: int) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    # no default __len__, as in PyTorch: len() of a dataset without one is a TypeError, which
    # list(DataLoader(iterable_dataset)) and other length hints rely on; the type checker is
    # told that map-style datasets have one
    if TYPE_CHECKING:
        def __len__(self) -> int: ...

    def __add__(self, other: Dataset[T_co]) -> ConcatDataset[T_co]:
        return ConcatDataset([self, other])


class TensorDataset(Dataset[tuple[Any, ...]]):
    """Samples are ``tuple(t[i] for t in tensors)``; all tensors share the first dimension."""

    tensors: tuple[TensorBase, ...]

    def __init__(self, *tensors: TensorBase) -> None:
        if any(t.ndim == 0 for t in tensors):
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        if any(t.shape[0] != tensors[0].shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors: "  # PyTorch's type and text
                                 + ", ".join(str(tuple(t.shape)) for t in tensors))
        self.tensors = tensors

    def __getitem__(self, index: int) -> tuple[Any, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return int(self.tensors[0].shape[0])


class ConcatDataset(Dataset[T_co]):
    """The samples of several datasets, one dataset after the other."""

    datasets: list[Dataset[T_co]]
    cumulative_sizes: list[int]

    def __init__(self, datasets: Iterable[Dataset[T_co]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        # IterableDataset (iterable.py, which imports this module) marks itself
        if any(getattr(d, "_iterable_style", False) for d in self.datasets):
            raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> T_co:
        if index < 0:
            if -index > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            index += len(self)
        i = bisect.bisect_right(self.cumulative_sizes, index)
        start = 0 if i == 0 else self.cumulative_sizes[i - 1]
        return self.datasets[i][index - start]

    @property
    def cummulative_sizes(self) -> list[int]:
        """The old, misspelt name of ``cumulative_sizes`` (deprecated, as in PyTorch)."""
        warn("`cummulative_sizes` attribute is renamed to `cumulative_sizes`", FutureWarning)
        return self.cumulative_sizes


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``."""

    dataset: Dataset[T_co]
    indices: Sequence[int]

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset, self.indices = dataset, indices
        # the DataLoader fetches batches through __getitems__, which would bypass an overridden
        # __getitem__: PyTorch refuses such a subclass, so do we
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. When "
                "subclassing Subset and overriding __getitem__, you must also override "
                "__getitems__ to ensure DataLoader works correctly with your custom logic. A "
                "simple implementation:\n\ndef __getitems__(self, indices):\n    return "
                "[self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, index: int | list[int]) -> Any:
        if isinstance(index, list):  # a batch of indices, passed on as a list, as in PyTorch
            dataset: Any = self.dataset
            return dataset[[self.indices[i] for i in index]]
        return self.dataset[self.indices[index]]

    def __getitems__(self, indices: list[int]) -> list[T_co]:
        """A batch of samples (the DataLoader's fetch), through the dataset's own
        ``__getitems__`` where it has one."""
        getitems = getattr(self.dataset, "__getitems__", None)
        if callable(getitems):
            return getitems([self.indices[i] for i in indices])
        return [self.dataset[self.indices[i]] for i in indices]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset: Dataset[T_co], lengths: Sequence[int | float],
                 generator: Any = None) -> list[Subset[T_co]]:
    """Split ``dataset`` into non-overlapping random subsets of the given lengths, or of the
    given fractions (summing to 1; the remainder is spread round-robin, as in PyTorch)."""
    n = len(dataset)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        counts = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            counts.append(int(math.floor(n * frac)))
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        for i, length in enumerate(counts):
            if length == 0:
                warn(f"Length of split at index {i} is 0. This might result in an "
                     "empty dataset.")
        sizes = counts
    else:
        if sum(lengths) != n:
            raise ValueError("Sum of input lengths does not equal the length of the input "
                             "dataset!")
        sizes = [int(length) for length in lengths]
        if sizes != list(lengths):
            raise ValueError("random_split: lengths must be integers or fractions summing to 1, "
                             f"got {list(lengths)}")
    perm = resolve(as_generator(generator)).permutation(n).tolist()
    return [Subset(dataset, perm[end - size:end])
            for end, size in zip(itertools.accumulate(sizes), sizes)]
