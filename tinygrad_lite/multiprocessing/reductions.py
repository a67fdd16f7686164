"""How tensors cross process boundaries: as shared-memory handles, not copies of the values.

``init_reductions`` registers a reducer for ``Tensor`` and its subclasses with the standard
library's ``ForkingPickler`` (which pickles ``Process`` arguments under spawn/forkserver and
everything sent through multiprocessing queues and pipes). A tensor already in shared memory
travels as its file descriptor (sent with ``multiprocessing.reduction.DupFd``) plus shape,
strides and offset; the receiver maps the same memory, so in-place changes on either side are
seen by both. Inside ``sharing()`` (what ``tl.multiprocessing`` queues use while they pickle)
every tensor is first moved to shared memory, as PyTorch does. Other tensors are pickled as
values, so code that only uses the standard library (a DataLoader's workers) is unchanged.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import threading
from collections.abc import Iterator
from multiprocessing import reduction, resource_sharer
from typing import Any

import numpy as np

from .._core.shared_storage import is_shared_array, map_fd, shared_location
from ..nn.parameter import Buffer, Parameter
from ..tensor import Tensor

__all__ = ["init_reductions", "sharing", "rebuild_shared_tensor", "reduce_tensor"]

_state = threading.local()

# Per-instance attributes that describe a tensor's place in this process's graph, not its value.
_LOCAL_ATTRS = frozenset({"_data", "_version_counter", "grad_fn", "_grad", "_requires_grad",
                          "_output_nr", "_backward_hooks", "_post_accumulate_hooks",
                          "_retains_grad", "_view_of", "_expanded"})


@contextlib.contextmanager
def sharing() -> Iterator[None]:
    """Within this block (on this thread), pickled tensors are moved to shared memory first."""
    previous = getattr(_state, "force", False)
    _state.force = True
    try:
        yield
    finally:
        _state.force = previous


def reduce_tensor(t: Tensor) -> Any:
    """The ``ForkingPickler`` reducer: a shared-memory handle, or the values when ``t`` is not
    shared and no ``sharing()`` block is active."""
    if not (getattr(_state, "force", False) or is_shared_array(t._data)):
        return t.__reduce_ex__(pickle.HIGHEST_PROTOCOL)
    if t._requires_grad and t.grad_fn is not None:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd "
            "does not support crossing process boundaries. If you just want to transfer the "
            f"data, call detach() on the tensor (shape {tuple(t.shape)}) before serializing "
            "(e.g. putting it on the queue).")
    t.share_memory_()
    data = t._data
    mapping, offset = shared_location(data)
    extra = {k: v for k, v in getattr(t, "__dict__", {}).items() if k not in _LOCAL_ATTRS}
    handle = (reduction.DupFd(mapping.fd), mapping.nbytes, data.dtype.str, data.shape,
              data.strides, offset)
    return (rebuild_shared_tensor, (type(t), handle, t._requires_grad, t._grad, extra))


def rebuild_shared_tensor(cls: type[Tensor], handle: tuple, requires_grad: bool, grad: Any,
                          extra: dict) -> Tensor:
    """The receiving side of ``reduce_tensor``: a leaf of ``cls`` over the same memory."""
    dup, nbytes, dtype, shape, strides, offset = handle
    fd = dup.detach()
    if not isinstance(dup, resource_sharer.DupFd):
        # Inherited at spawn: the number may be shared by several handles, so own a duplicate
        fd = os.dup(fd)
    mapping = map_fd(fd, nbytes)
    data = np.ndarray(shape, np.dtype(dtype), buffer=mapping, offset=offset, strides=strides)
    t = cls.__new__(cls)
    t._data = data
    t._version_counter = [0]
    t.__dict__.update(extra)
    if requires_grad:
        t.requires_grad_(True)
    if grad is not None:
        t._grad = grad
    return t


def _tensor_classes() -> list[type]:
    """Tensor and every subclass defined so far (ForkingPickler looks reducers up by exact
    type)."""
    found: list[type] = []
    todo: list[type] = [Tensor]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return found


def init_reductions() -> None:
    """Register ``reduce_tensor`` with the standard library's ForkingPickler."""
    for cls in {*_tensor_classes(), Parameter, Buffer}:
        reduction.ForkingPickler.register(cls, reduce_tensor)

