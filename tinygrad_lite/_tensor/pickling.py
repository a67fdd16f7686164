"""Pickling and copying tensors: ``__reduce_ex__`` with its rebuild functions (pickles name
``rebuild_tensor`` here), ``__deepcopy__`` and PyTorch's legacy ``__setstate__``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.device import is_meta_array, meta_array
from .._core.tensor_base import TensorBase
from ..ops.movement import memory_root

__all__ = ["rebuild_tensor", "rebuild_meta_tensor", "METHODS", "PROPERTIES"]


def rebuild_tensor(cls: Any, data: np.ndarray, requires_grad: bool) -> TensorBase:
    """Unpickling: a leaf tensor (or Parameter) of ``cls`` holding ``data``."""
    t = cls.__new__(cls)
    t._data = data
    t._version_counter = [0]
    if requires_grad:
        t.requires_grad_(True)
    return t


def rebuild_meta_tensor(cls: Any, shape: tuple, dtype: np.dtype, requires_grad: bool
                        ) -> TensorBase:
    """Unpickling (``copy.deepcopy``) a meta tensor: a meta tensor of the same shape and dtype."""
    return rebuild_tensor(cls, meta_array(shape, dtype), requires_grad)


def _reduce_ex(self: TensorBase, protocol: Any) -> tuple:
    """Pickling (multiprocessing, ``copy``): the values and ``requires_grad``; the graph that
    made a non-leaf tensor is not part of it, as in PyTorch."""
    if is_meta_array(self._data):  # copying its placeholder would allocate the whole shape
        return (rebuild_meta_tensor, (self.__class__, self._data.shape, self._data.dtype,
                                      self._requires_grad))
    return (rebuild_tensor, (self.__class__, self._data, self._requires_grad))


def _deepcopy(self: TensorBase, memo: dict) -> TensorBase:
    if id(self) in memo:
        return memo[id(self)]
    if self.grad_fn is not None:
        raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) support "
                           "the deepcopy protocol at the moment. If you were attempting to "
                           "deepcopy a module, this may be because of a torch.nn.utils."
                           "weight_norm usage, see https://github.com/pytorch/pytorch/pull/"
                           "103001")
    data = self._data
    copied = rebuild_tensor(self.__class__, meta_array(data.shape, data.dtype)
                            if is_meta_array(data) else _copied_view(data, memo),
                            self._requires_grad)
    memo[id(self)] = copied
    if self._grad is not None:
        copied._grad = _deepcopy(self._grad, memo)
    for name, value in getattr(self, "__dict__", {}).items():  # e.g. Buffer's persistent flag
        if name not in ("_data", "_version_counter", "_grad", "grad_fn", "_requires_grad") \
                and not name.startswith("_backward") and not name.startswith("_post"):
            setattr(copied, name, value)
    return copied


def _copied_view(data: np.ndarray, memo: dict) -> np.ndarray:
    """``data``'s place in a copy of the memory it views, as PyTorch's deepcopy copies storages:
    the memory is copied once per ``deepcopy`` call (``memo``), so tensors viewing one storage
    (a tensor and its slice) still share it, each with its own offset and strides."""
    root = memory_root(data)
    if not root.flags.forc:  # (memory NumPy cannot rebuild as one buffer: a plain copy)
        return data.copy(order="K")
    key = ("storage", id(root))
    if key not in memo:
        memo[key] = (root, np.copy(root, order="K"))  # (the original kept: ids stay unique)
    storage = memo[key][1]
    if data is root:
        return storage
    offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    view = np.ndarray(data.shape, data.dtype, buffer=storage, offset=offset,
                      strides=data.strides)
    view.flags.writeable = data.flags.writeable  # (an expanded view stays read-only)
    return view


def __setstate__(self: TensorBase, state: tuple) -> None:  # noqa: N807
    """PyTorch's legacy unpickling hook: ``(requires_grad, _, backward_hooks)``, or a 5-tuple
    legacy Variable state ``(data, _, _, requires_grad, backward_hooks)``; leaves only
    (pickling itself goes through ``__reduce_ex__`` and never calls it, as in PyTorch)."""
    if not self.is_leaf:
        raise RuntimeError("__setstate__ can be only called on leaf Tensors")
    if len(state) == 4:
        raise NotImplementedError("__setstate__: the legacy (storage, offset, size, stride) "
                                  "state needs Tensor.set_, which tinygrad_lite does not have")
    if len(state) == 5:
        self.data = state[0]  # type: ignore[attr-defined]  # the Tensor property
        state = (state[3], state[4], state[2])
    self.requires_grad, _, self._backward_hooks = state


METHODS: dict[str, Any] = {"__reduce_ex__": _reduce_ex, "__deepcopy__": _deepcopy,
                           "__setstate__": __setstate__}
PROPERTIES: dict[str, property] = {}
