"""``tl.distributed.tensor``: placements of tensors spread over a DeviceMesh (``Shard``,
``Replicate``, ``Partial``), as in ``torch.distributed.tensor``; the tensors themselves stay
ordinary local tensors here (there is no DTensor class). Tensor parallelism is in
``tl.distributed.tensor.parallel`` (loaded on first access); ``CommDebugMode`` (also in
``.debug``) counts its collectives."""

import importlib as _importlib
from typing import Any as _Any

from ..device_mesh import DeviceMesh, init_device_mesh
from .debug import CommDebugMode
from .placement_types import Partial, Placement, Replicate, Shard


def __getattr__(name: str) -> _Any:
    """``parallel``, loaded on first access (it is built on nn, which imports tl.distributed)."""
    if name == "parallel":
        return _importlib.import_module(".parallel", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DeviceMesh", "init_device_mesh", "Placement", "Shard", "Replicate", "Partial",
           "CommDebugMode"]
