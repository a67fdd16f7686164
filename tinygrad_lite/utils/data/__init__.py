"""``tinygrad_lite.utils.data``: datasets, samplers, ``DataLoader`` and collation, with the
names and module layout of ``torch.utils.data``."""

from ._utils.collate import default_collate, default_convert
from .dataloader import DataLoader
from .dataset import ConcatDataset, Dataset, Subset, TensorDataset, random_split
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
    "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
]
