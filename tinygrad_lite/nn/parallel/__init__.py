"""``tl.nn.parallel``: ``DistributedDataParallel`` and ``SyncBatchNorm`` over
``tl.distributed``'s MPI groups."""

from .distributed import DistributedDataParallel
from .sync_batchnorm import SyncBatchNorm

__all__ = ["DistributedDataParallel", "SyncBatchNorm"]
