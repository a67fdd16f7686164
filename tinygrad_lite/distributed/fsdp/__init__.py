"""``tl.distributed.fsdp``: fully sharded data parallelism, PyTorch's FSDP2 API
(``fully_shard``, ``FSDPModule``): parameters, gradients and optimizer state sharded across the
data-parallel ranks, parameters gathered only while their module runs; HSDP on a 2-D mesh."""

from ._fsdp_api import CPUOffloadPolicy, MixedPrecisionPolicy, OffloadPolicy
from ._fully_shard import FSDPModule, UnshardHandle, fully_shard, register_fsdp_forward_method

__all__ = ["fully_shard", "FSDPModule", "UnshardHandle", "register_fsdp_forward_method",
           "MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy"]
