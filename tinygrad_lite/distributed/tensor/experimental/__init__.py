"""``tl.distributed.tensor.experimental``: prototype parallel APIs, as in PyTorch: context
parallelism (``context_parallel`` shards sequence buffers over a mesh and runs
``scaled_dot_product_attention`` as ring attention; ``context_parallel_unshard`` gathers the
shards back in order)."""

from ._attention import context_parallel, context_parallel_unshard

__all__ = ["context_parallel", "context_parallel_unshard"]
