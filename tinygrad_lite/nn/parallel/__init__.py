"""``tl.nn.parallel``: ``DistributedDataParallel`` and ``SyncBatchNorm`` over
``tl.distributed``'s MPI groups, and ``DataParallel`` (a pass-through without GPUs)."""

from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel
from .sync_batchnorm import SyncBatchNorm

__all__ = ["DistributedDataParallel", "SyncBatchNorm", "DataParallel", "data_parallel"]
