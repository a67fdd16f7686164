"""``tinygrad_lite.nn``: Module, Parameter, layers, losses, init and utils, PyTorch style."""

from . import attention, functional, grad, init, modules, parallel, utils
from .modules import *  # noqa: F403
from .parallel import DataParallel, SyncBatchNorm
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = [
    "parallel", "functional", "init", "utils", "modules", "attention", "grad", "Parameter",
    "Buffer", "DataParallel", "SyncBatchNorm", "UninitializedParameter", "UninitializedBuffer",
    *modules.__all__,
]
