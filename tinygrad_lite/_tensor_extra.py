"""More of ``torch.Tensor``'s surface that programs touch: membership (``3 in t``), the in-place
operators (``x **= 2``, ``mask |= other``), ``detach_``, strides, byte sizes and storages, the
legacy ``new``, ``apply_``/``map_`` with Python callables, ``mH``. tensor.py binds them."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from . import functions
from ._core.grad_mode import no_grad
from ._core.tensor_base import TensorBase, wrap
from ._tensor_more import MORE_METHODS, MORE_PROPERTIES
from ._tensor_storage import STORAGE_METHODS

__all__ = ["EXTRA_METHODS", "EXTRA_PROPERTIES"]


def _contains(self: TensorBase, element: Any) -> bool:
    """``element in t``: whether any entry equals it (PyTorch's rule, not iteration over rows)."""
    if not isinstance(element, (TensorBase, numbers.Number, np.generic)):
        raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed "
                           f"in a {type(element)}.")
    return bool((self == element).any())


def _reversed(self: TensorBase) -> TensorBase:
    """``reversed(t)``: ``t`` flipped along dim 0 (a 0-d tensor as it is)."""
    return self if self.ndim == 0 else functions.flip(self, [0])


def _in_place(name: str, method: str | None, result_of: Any) -> Any:
    """An in-place operator: the tensor's in-place method (``pow_``, ``bitwise_or_``, ...) when
    it has one, which records the op for autograd as PyTorch's does; otherwise (integer shifts)
    the result written into ``self`` through ``copy_``. ``self`` is returned."""

    def operator(self: TensorBase, other: Any) -> TensorBase:
        if method is not None:
            return getattr(self, method)(other)
        result = result_of(self, other)
        if not np.can_cast(result._data.dtype, self._data.dtype, casting="same_kind"):
            raise RuntimeError(f"{name}: result type {result.dtype} can't be cast to the "
                               f"desired output type {self.dtype}")
        return functions.copy_(self, result)

    operator.__name__ = name
    operator.__doc__ = f"In place: ``self {name[3:-2]}= other``."
    return operator


def detach_(self: TensorBase) -> TensorBase:
    """Make ``self`` a leaf that requires no gradient, in place (it leaves the graph)."""
    if self.grad_fn is not None and getattr(self, "_base", None) is not None:
        raise RuntimeError("Can't detach views in-place. Use detach() instead.")
    self.grad_fn = None
    self._requires_grad = False
    return self


def stride(self: TensorBase, dim: int | None = None) -> Any:
    """The step in elements between neighbours along each dim (or along ``dim``)."""
    data = self._data
    steps = tuple(s // data.itemsize for s in data.strides) if data.itemsize else \
        (0,) * data.ndim
    if dim is None:
        return steps
    return steps[dim if dim >= 0 else dim + data.ndim]


def storage_offset(self: TensorBase) -> int:
    """Where the first element lies in the memory it shares, in elements."""
    data = self._data
    base = data
    while isinstance(base.base, np.ndarray):
        base = base.base
    if base is data or not data.itemsize:
        return 0
    return (data.__array_interface__["data"][0] - base.__array_interface__["data"][0]) \
        // data.itemsize


def data_ptr(self: TensorBase) -> int:
    """The address of the first element."""
    return int(self._data.__array_interface__["data"][0])


def new(self: TensorBase, *args: Any) -> TensorBase:
    """Legacy ``t.new(2, 3)`` (a new tensor of these sizes, zero-filled here) or ``t.new(data)``
    (a tensor of ``data``), with ``t``'s dtype."""
    if len(args) == 1 and not isinstance(args[0], int):
        return functions.tensor(args[0], dtype=self.dtype)
    return functions.zeros(*args, dtype=self.dtype)


def apply_(self: TensorBase, callable_: Any) -> TensorBase:
    """In place: ``callable_`` applied to each element (CPU only in PyTorch too; slow)."""
    if self.requires_grad:
        raise RuntimeError("apply_ is only implemented on CPU tensors that don't require grad")
    with no_grad():
        values = np.vectorize(callable_, otypes=[self._data.dtype])(self._data)
        return functions.copy_(self, wrap(values))


def map_(self: TensorBase, other: TensorBase, callable_: Any) -> TensorBase:
    """In place: ``callable_(a, b)`` over ``self`` and ``other`` (broadcast to ``self``)."""
    if self.requires_grad:
        raise RuntimeError("map_ is only implemented on CPU tensors that don't require grad")
    b = np.broadcast_to(other._data if isinstance(other, TensorBase) else other, self.shape)
    with no_grad():
        values = np.vectorize(callable_, otypes=[self._data.dtype])(self._data, b)
        return functions.copy_(self, wrap(values))


def pin_memory(self: TensorBase, device: Any = None) -> TensorBase:
    """The tensor itself: there is no device to pin memory for (DataLoader's pin_memory=True
    is accepted the same way)."""
    return self


def is_pinned(self: TensorBase, device: Any = None) -> bool:
    """False: memory is never pinned here."""
    return False


EXTRA_METHODS = {
    "__contains__": _contains, "__reversed__": _reversed,
    "__ipow__": _in_place("__ipow__", "pow_", None),
    "__iand__": _in_place("__iand__", "bitwise_and_", None),
    "__ior__": _in_place("__ior__", "bitwise_or_", None),
    "__ixor__": _in_place("__ixor__", "bitwise_xor_", None),
    "__imod__": _in_place("__imod__", "remainder_", None),
    "__ifloordiv__": _in_place("__ifloordiv__", "floor_divide_", None),
    "__ilshift__": _in_place("__ilshift__", None, lambda a, b: a << b),
    "__irshift__": _in_place("__irshift__", None, lambda a, b: a >> b),
    **{f.__name__: f for f in (detach_, stride, storage_offset, data_ptr, new, apply_, map_,
                                pin_memory, is_pinned)},
    **STORAGE_METHODS,  # untyped_storage, storage (_tensor_storage)
    **MORE_METHODS,  # dim_order, is_inference, new_empty_strided, resize, ... (_tensor_more)
}
# computed attributes, as PyTorch's: bytes in all and per element, the conjugate transpose
EXTRA_PROPERTIES: dict[str, Any] = {
    "nbytes": lambda self: int(self._data.nbytes),
    "itemsize": lambda self: int(self._data.itemsize),
    "mH": lambda self: self.mT,
    **MORE_PROPERTIES,  # H, real, output_nr (_tensor_more)
}
