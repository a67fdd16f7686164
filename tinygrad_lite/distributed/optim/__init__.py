"""``tl.distributed.optim``: optimizers for data-parallel training over ``tl.distributed``'s
process groups; ``ZeroRedundancyOptimizer`` shards the optimizer state across the ranks."""

from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
