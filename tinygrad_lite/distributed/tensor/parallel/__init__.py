"""``tl.distributed.tensor.parallel``: tensor parallelism (Megatron-LM's split of Linear and
Embedding layers over the ranks of a 1-D mesh) with ``torch.distributed.tensor.parallel``'s
names: ``parallelize_module`` and the parallel styles."""

from .api import parallelize_module
from .style import (
    ColwiseParallel,
    ParallelStyle,
    PrepareModuleInput,
    PrepareModuleInputOutput,
    PrepareModuleOutput,
    RowwiseParallel,
    SequenceParallel,
)

__all__ = ["parallelize_module", "ParallelStyle", "ColwiseParallel", "RowwiseParallel",
           "SequenceParallel", "PrepareModuleInput", "PrepareModuleOutput",
           "PrepareModuleInputOutput"]
