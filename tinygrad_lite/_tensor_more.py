"""Tensor attributes and methods about identity and layout that PyTorch programs touch:
``.H``/``.real`` of real tensors, ``output_nr``, ``dim_order()``, ``is_inference()``,
``is_distributed()``, ``new_empty_strided``, ``bfloat16()`` and the deprecated out-of-place
``resize``/``resize_as``, and the DLPack methods of ``_tensor_dlpack.py``. ``_tensor_extra.py``
merges them into what tensor.py binds."""

from __future__ import annotations

import warnings
from typing import Any

from . import dtypes, functions
from ._core.size import Size
from ._core.tensor_base import TensorBase
from ._tensor_dlpack import DLPACK_METHODS

__all__ = ["MORE_METHODS", "MORE_PROPERTIES"]


def _conjugate_transpose(self: TensorBase) -> TensorBase:
    """``.H``: the conjugate transpose of a matrix (its transpose; a 0-d tensor as it is)."""
    if self.ndim not in (0, 2):
        hint = " For batches of matrices, consider using tensor.mH" if self.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor.{hint}")
    if self.ndim == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().",
                      UserWarning, stacklevel=2)
        return self
    return functions.transpose(self, 0, 1)


def dim_order(self: TensorBase, *, ambiguity_check: Any = False) -> tuple:
    """The dims from the outermost in memory to the innermost (largest stride first; equal
    strides keep their order): ``(0, 1, ..., n-1)`` for a contiguous tensor."""
    steps = self._data.strides
    return tuple(sorted(range(self.ndim), key=lambda d: -steps[d]))


def is_inference(self: TensorBase) -> bool:
    """False: tensors made inside ``inference_mode`` are ordinary tensors here (PyTorch marks
    them as inference tensors, which refuse later use in autograd)."""
    return False


def is_distributed(self: TensorBase) -> bool:
    """False: a tensor is never split across processes."""
    return False


def new_empty_strided(self: TensorBase, size: Any, stride: Any, *, dtype: Any = None,
                      device: Any = None, requires_grad: bool = False,
                      **options: Any) -> TensorBase:
    """``tl.empty_strided`` with this tensor's dtype (unless ``dtype``)."""
    return functions.empty_strided(size, stride, dtype=self.dtype if dtype is None else dtype,
                                   device=device, requires_grad=requires_grad)


def bfloat16(self: TensorBase) -> TensorBase:
    """Convert to bfloat16 (refused with the package's explanation: NumPy has none)."""
    return self.to(dtypes.bfloat16)


def resize(self: TensorBase, *sizes: Any) -> TensorBase:
    """Deprecated out-of-place ``resize``: ``reshape`` to ``sizes``, which must keep the number
    of elements (differentiable)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
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
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return functions.reshape(self, tuple(tensor.shape))


MORE_METHODS: dict[str, Any] = {f.__name__: f for f in (
    dim_order, is_inference, is_distributed, new_empty_strided, bfloat16, resize, resize_as)}
MORE_METHODS.update(DLPACK_METHODS)  # __dlpack__, __dlpack_device__
MORE_PROPERTIES = {
    "H": _conjugate_transpose,
    "real": lambda self: self,  # a real tensor is its own real part
    "output_nr": lambda self: int(self._output_nr),
}
