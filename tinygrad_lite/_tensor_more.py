"""Tensor attributes and methods about identity and layout that PyTorch programs touch:
``.H``/``.real`` of real tensors, ``output_nr``, ``dim_order()``, ``is_inference()``,
``is_distributed()``, ``new_empty_strided``, ``bfloat16()`` and the deprecated out-of-place
``resize``/``resize_as``, ``map2_``, ``__setstate__``, ``__array_wrap__``, ``.name``, and the
DLPack methods of ``_tensor_dlpack.py``. ``_tensor_extra.py``
merges them into what tensor.py binds."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import dtypes, functions
from ._core.grad_mode import no_grad
from ._core.size import Size
from ._core.tensor_base import TensorBase
from ._core.warnings import warn
from ._tensor_dlpack import DLPACK_METHODS

__all__ = ["MORE_METHODS", "MORE_PROPERTIES"]


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


def map2_(self: TensorBase, x: TensorBase, y: TensorBase, callable: Any) -> TensorBase:  # noqa: A002
    """In place: ``callable(a, b, c)`` over ``self``, ``x`` and ``y`` (broadcast to ``self``,
    of ``self``'s dtype), element by element, as PyTorch's CPU ``map2_``."""
    if self.requires_grad:
        raise RuntimeError("Can't call map2_() on Variable that requires grad. Use "
                           "var.detach().map2_() instead.")
    args = []
    for name, other in (("x", x), ("y", y)):
        if isinstance(other, TensorBase) and other.dtype != self.dtype:
            raise TypeError(f"map2_: expected {self.type()} for argument '{name}' (got "
                            f"{other.type()})")
        data = other._data if isinstance(other, TensorBase) else np.asarray(other)
        try:
            args.append(np.broadcast_to(data, self.shape))
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor must match the existing size:"
                               f" target sizes {list(self.shape)}, tensor sizes "
                               f"{list(np.shape(data))}") from None
    with no_grad():
        values = np.vectorize(callable, otypes=[self._data.dtype])(self._data, *args)
        return functions.copy_(self, functions.tensor(values, dtype=self.dtype))


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


def __array_wrap__(self: TensorBase, array: np.ndarray, context: Any = None,  # noqa: N807
                   return_scalar: bool = False) -> TensorBase:
    """NumPy's output-wrapping hook: ``array`` as a tensor (sharing its memory), as PyTorch's.
    NumPy ufuncs on tensors are refused here (``__array_ufunc__ = None``) rather than wrapped."""
    return functions.from_numpy(np.asarray(array))


def lu(self: TensorBase, pivot: bool = True, get_infos: bool = False) -> tuple:
    """``tl.lu`` of this tensor as a plain tuple (PyTorch's method unpacks the named tuple its
    function returns)."""
    return tuple(functions.lu(self, pivot=pivot, get_infos=get_infos))


def _get_grad_dtype(self: TensorBase) -> Any:
    """The dtype the engine keeps ``.grad`` in (None: the incoming gradient's own); leaves only."""
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be accessed on leaf tensors.")
    return self.dtype if self._grad_dtype is False else self._grad_dtype


def _set_grad_dtype(self: TensorBase, value: Any) -> None:
    if self.grad_fn is not None:
        raise RuntimeError("grad_dtype can only be set on leaf tensors.")
    self._grad_dtype = None if value is None else dtypes.to_dtype(value)


grad_dtype = property(_get_grad_dtype, _set_grad_dtype, doc=(
    "The dtype of ``.grad`` for this leaf: by default the tensor's own; set it to have incoming "
    "gradients cast to another dtype, or to None to keep whatever dtype they arrive in."))


MORE_METHODS: dict[str, Any] = {f.__name__: f for f in (
    dim_order, is_inference, is_distributed, new_empty_strided, bfloat16, resize, resize_as,
    map2_, __setstate__, __array_wrap__, lu)}
MORE_METHODS.update(DLPACK_METHODS)  # __dlpack__, __dlpack_device__
MORE_PROPERTIES: dict[str, Any] = {
    "H": _conjugate_transpose,
    "real": lambda self: self,  # a real tensor is its own real part
    "output_nr": lambda self: int(self._output_nr),
    "name": lambda self: None,  # PyTorch 2.13: a read-only attribute, None on tensors
    "grad_dtype": grad_dtype,  # settable
}
