"""Samplers: the order in which a DataLoader visits a dataset, as in ``torch.utils.data.sampler``.

Random samplers take ``generator``: a ``tl.Generator``, a ``numpy.random.Generator``, an int
seed, or None for the global generator that ``tinygrad_lite.manual_seed`` reseeds (read at every
epoch).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

import numpy as np

from ... import dtypes
from ..._core.tensor_base import TensorBase
from ...functions import creation as _creation
from ...functions.torch_stream import TorchStream
from ._utils.generator import as_generator, draw_seed, resolve

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


# indices drawn with replacement come this many at a time (an epoch may be 1e10 draws long)
_DRAW_CHUNK = 4096

class Sampler(Generic[T_co]):
    """Base class: subclasses define ``__iter__`` (the indices, or batches of indices) and
    usually ``__len__``."""

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """``0, 1, ..., len(data_source) - 1``, always in that order."""

    data_source: Sized

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A new random permutation of the indices every epoch; with ``replacement``,
    ``num_samples`` independent draws (``num_samples`` defaults to ``len(data_source)``; past it
    without replacement, whole permutations are chained)."""

    data_source: Sized
    replacement: bool

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = as_generator(generator)
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not _is_int(self.num_samples) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        """How many indices one epoch yields (the dataset's length unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        # without a generator, a new one seeded from the global stream (as PyTorch's sampler)
        rng = resolve(self.generator) if self.generator is not None else \
            TorchStream(draw_seed(None))
        if self.replacement:  # drawn a chunk at a time: num_samples may be 1e10 (makemore)
            if n == 0:
                raise RuntimeError("random_ expects 'from' to be less than 'to', but got "
                                   "from=0 >= to=0")
            for start in range(0, self.num_samples, _DRAW_CHUNK):
                count = min(_DRAW_CHUNK, self.num_samples - start)
                yield from rng.integers(0, n, count, dtype=np.int64).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        # drawn even when nothing of it is used, as PyTorch does: the generator moves the same
        yield from rng.permutation(n)[:self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a new random order every epoch."""

    indices: Sequence[int]

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = as_generator(generator)

    def __iter__(self) -> Iterator[int]:
        for i in resolve(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """``num_samples`` indices drawn from ``0 .. len(weights) - 1`` with probabilities
    proportional to ``weights`` (with or without replacement)."""

    weights: TensorBase
    num_samples: int
    replacement: bool

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None) -> None:
        if not _is_int(num_samples) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        # a tensor's values, not the tensor: converting one to float64 is no copy-construction
        weights_tensor = _creation.as_tensor(getattr(weights, "_data", weights),
                                             dtype=dtypes.float64)
        if weights_tensor.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights, self.num_samples = weights_tensor, int(num_samples)
        self.replacement = replacement
        self.generator = as_generator(generator)

    def __iter__(self) -> Iterator[int]:
        w = self.weights._data
        # PyTorch's checks, in its order: a NaN fails the first one ("not >= 0")
        if not (w >= 0).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                               "< 0)")
        if not np.isfinite(w).all():
            raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                               "= infinity or NaN)")
        if w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not self.replacement and self.num_samples > len(w):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        # as PyTorch's torch.multinomial(weights, num_samples, replacement) on its stream
        rng = resolve(self.generator)
        if not isinstance(rng, TorchStream):  # a NumPy Generator the program handed in
            yield from _numpy_weighted(rng, w, self.num_samples, self.replacement)
            return
        if self.replacement and self.num_samples > 1:  # in chunks: num_samples may be huge
            for start in range(0, self.num_samples, _DRAW_CHUNK):
                count = min(_DRAW_CHUNK, self.num_samples - start)
                yield from rng.inverse_cdf_samples(w, count).tolist()
            return
        yield from rng.multinomial_rows(w[None], self.num_samples, self.replacement)[0].tolist()

    def __len__(self) -> int:
        return self.num_samples


def _numpy_weighted(rng: np.random.Generator, w: np.ndarray, num_samples: int,
                    replacement: bool) -> Iterator[int]:
    """Weighted draws from a NumPy Generator: ``choice`` with replacement, the smallest
    exponential keys scaled by ``1 / w`` without (zero weights last)."""
    if replacement:
        p = w / w.sum()
        for start in range(0, num_samples, _DRAW_CHUNK):
            yield from rng.choice(len(w), size=min(_DRAW_CHUNK, num_samples - start),
                                  p=p).tolist()
        return
    with np.errstate(divide="ignore"):
        keys = rng.exponential(size=len(w)) / w
    yield from np.argsort(keys, kind="stable")[:num_samples].tolist()


class BatchSampler(Sampler[list[int]]):
    """Groups the indices of ``sampler`` (any iterable of indices) into lists of
    ``batch_size``; ``drop_last`` drops a final shorter batch."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        if not _is_int(batch_size) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = int(batch_size)
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        it = iter(self.sampler)
        batch = list(itertools.islice(it, self.batch_size))
        while batch:
            if len(batch) < self.batch_size and self.drop_last:
                return
            yield batch
            batch = list(itertools.islice(it, self.batch_size))

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]  # only samplers with a length have one
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
