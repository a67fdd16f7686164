"""``tinygrad_lite.utils.data``: datasets, samplers, ``DataLoader`` and collation, with the
names and module layout of ``torch.utils.data``."""

from . import dataloader, dataset, distributed, sampler
from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
from .distributed import DistributedSampler
from .iterable import ChainDataset, IterableDataset, StackDataset
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset", "TensorDataset", "ConcatDataset", "Subset", "random_split", "DataLoader",
    "default_collate", "default_convert", "Sampler", "SequentialSampler", "RandomSampler",
    "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "get_worker_info",
    "IterableDataset", "ChainDataset", "StackDataset", "dataloader", "dataset", "sampler",
    "distributed", "DistributedSampler",
]
