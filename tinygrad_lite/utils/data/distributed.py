"""``DistributedSampler``: each of ``num_replicas`` ranks reads its own share of a dataset, as
``torch.utils.data.distributed``: the (shuffled) indices are padded by repeating from the start
(or trimmed with ``drop_last``) to a multiple of the ranks, and rank r takes every
``num_replicas``-th index from r. ``set_epoch`` changes the shuffle, the same on every rank.
``num_replicas`` and ``rank`` default to the process group's (1 and 0 without one)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from ...distributed.process_group import get_rank, get_world_size, is_initialized
from ...functions.torch_stream import TorchStream
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[int]):
    """The indices of this rank's share of ``dataset`` (see the module docstring)."""

    def __init__(self, dataset: Any, num_replicas: int | None = None, rank: int | None = None,
                 shuffle: bool = True, seed: int = 0, drop_last: bool = False) -> None:
        # defaults: the process group's world size and rank, or one replica (rank 0) when no
        # group is initialised (PyTorch raises there; a single process simply reads it all)
        if num_replicas is None:
            num_replicas = get_world_size() if is_initialized() else 1
        if rank is None:
            rank = get_rank() if is_initialized() else 0
        if not 0 <= rank < num_replicas:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        n = len(dataset)
        if drop_last and n % num_replicas:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            indices = TorchStream(self.seed + self.epoch).permutation(n).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use a different shuffle for ``epoch`` (call it at the start of every epoch)."""
        self.epoch = epoch
