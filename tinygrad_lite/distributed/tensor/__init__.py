"""``tl.distributed.tensor``: placements of tensors spread over a DeviceMesh (``Shard``,
``Replicate``, ``Partial``), as in ``torch.distributed.tensor``; the tensors themselves stay
ordinary local tensors here (there is no DTensor class). Tensor parallelism is in
``tl.distributed.tensor.parallel``; ``CommDebugMode`` (also in ``.debug``) counts its
collectives."""

from ..device_mesh import DeviceMesh, init_device_mesh
from .debug import CommDebugMode
from .placement_types import Partial, Placement, Replicate, Shard

__all__ = ["DeviceMesh", "init_device_mesh", "Placement", "Shard", "Replicate", "Partial",
           "CommDebugMode"]
