"""``tl.distributed.tensor``: placements of tensors spread over a DeviceMesh (``Shard``,
``Replicate``, ``Partial``), as in ``torch.distributed.tensor``; the tensors themselves stay
ordinary local tensors here (there is no DTensor class). Tensor parallelism is in
``tl.distributed.tensor.parallel`` and context parallelism (``context_parallel``: ring attention
over a sharded sequence) in ``tl.distributed.tensor.experimental``, both loaded on first
access; ``CommDebugMode`` (also in ``.debug``) counts collectives."""

import importlib as _importlib
from typing import Any as _Any

from ..device_mesh import DeviceMesh, init_device_mesh
from .debug import CommDebugMode
from .placement_types import Partial, Placement, Replicate, Shard


def __getattr__(name: str) -> _Any:
    """``parallel`` and ``experimental``, loaded on first access (they are built on nn, which
    imports tl.distributed)."""
    if name in ("parallel", "experimental"):
        return _importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DeviceMesh", "init_device_mesh", "Placement", "Shard", "Replicate", "Partial",
           "CommDebugMode"]
