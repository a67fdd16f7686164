"""Sizes and shape changes as methods: ``nelement``, ``ndimension``, ``sum_to_size``, ``unfold``,
the deprecated out-of-place ``resize``/``resize_as``, the transposes ``.H``/``.mH`` and
``.name``."""

from __future__ import annotations

from typing import Any

from .. import functions, ops
from .._core.size import Size, sizes_or_keyword
from .._core.tensor_base import TensorBase
from .._core.warnings import warn, warn_once
from ..ops.movement import unfold_view

__all__ = ["METHODS", "PROPERTIES"]


def nelement(self: TensorBase) -> int:
    """The number of elements (``numel``)."""
    return int(self._data.size)


def ndimension(self: TensorBase) -> int:
    """The number of dimensions (``dim()``)."""
    return int(self._data.ndim)


def sum_to_size(self: TensorBase, *sizes: Any, size: Any = None) -> TensorBase:
    """Sum this tensor down to ``size``, which it must be expandable from (the reverse of
    ``expand``: leading dims summed away, size-1 dims summed with keepdim)."""
    size = sizes_or_keyword(sizes, size, "sum_to_size", "size")
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list, Size)) \
        else tuple(size)
    have = self._data.shape
    lead = len(have) - len(shape)
    if lead < 0 or any(s != 1 and s != h for s, h in zip(shape, have[lead:])):
        raise RuntimeError(f"size {list(shape)} is not expandable to size {list(have)}")
    out = self
    if lead:
        out = ops.reduce_sum(out, tuple(range(lead)), False)
    dims = tuple(i for i, (s, h) in enumerate(zip(shape, have[lead:])) if s == 1 and h != 1)
    return ops.reduce_sum(out, dims, True) if dims else out


def unfold(self: TensorBase, dimension: int, size: int, step: int) -> TensorBase:
    """Sliding windows of ``size`` elements every ``step`` along ``dimension``: that dim
    becomes the window count and a new last dim of ``size`` holds each window."""
    (d,) = ops.normalize_dims(dimension, max(self._data.ndim, 1), "unfold")
    n = self._data.shape[d] if self._data.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if self._data.ndim:
        return unfold_view(self, d, size, step)  # a view, as PyTorch's
    # a 0-d tensor is one window of its one element: shape (size,), as in PyTorch
    return self.reshape(1)[: size]


def resize(self: TensorBase, *sizes: Any) -> TensorBase:
    """Deprecated out-of-place ``resize``: ``reshape`` to ``sizes``, which must keep the number
    of elements (differentiable)."""
    warn("non-inplace resize is deprecated")
    shape = Size(sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)) else sizes)
    if shape.numel() != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, shape))} ({shape.numel()} "
                           f"elements in total), but the given tensor has a size of "
                           f"{'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, "
                           "while preserving the number of elements.")
    return functions.reshape(self, tuple(shape))


def resize_as(self: TensorBase, tensor: TensorBase) -> TensorBase:
    """Deprecated out-of-place ``resize_as``: ``reshape`` to ``tensor``'s shape."""
    warn("non-inplace resize_as is deprecated")
    return functions.reshape(self, tuple(tensor.shape))


def _conjugate_transpose(self: TensorBase) -> TensorBase:
    """``.H``: the conjugate transpose of a matrix (its transpose; a 0-d tensor as it is)."""
    if self.ndim not in (0, 2):
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.{hint}")
    if self.ndim == 0:
        warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().")
        return self
    return functions.transpose(self, 0, 1)


def _batch_conjugate_transpose(self: TensorBase) -> TensorBase:
    """``.mH``: the conjugate transpose of a batch of matrices (``.mT``: tensors are real)."""
    if self.ndim == 0:
        warn_once("Tensor.mH is deprecated on 0-D tensors. Consider using x.conj().")
        return self
    if self.ndim == 1:
        raise RuntimeError("tensor.mH is only supported on matrices or batches of matrices. Got "
                           "1-D tensor.")
    return self.mT


METHODS: dict[str, Any] = {f.__name__: f for f in (
    nelement, ndimension, sum_to_size, unfold, resize, resize_as)}
PROPERTIES = {
    "H": property(_conjugate_transpose),
    "mH": property(_batch_conjugate_transpose),
    "name": property(lambda self: None),  # PyTorch 2.13: a read-only attribute, None on tensors
}
