"""``Parameter``: a tensor that a ``Module`` registers as one of its learnable weights; the
uninitialized parameter and buffer of the lazy modules."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import dtypes
from ..tensor import Tensor

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer",
           "UninitializedTensorMixin", "is_lazy"]


class Parameter(Tensor):
    """A leaf tensor that requires grad by default and is registered by ``Module.__setattr__``.

    It shares memory with the data it is built from, as ``torch.nn.Parameter`` does.
    """

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        if data is None:
            arr = np.empty((0,), dtypes.default_float_np())
        elif isinstance(data, Tensor):
            arr = data._data
        else:
            arr = np.asarray(data)
            if arr.dtype == np.float64 and not isinstance(data, (np.ndarray, np.generic)):
                arr = arr.astype(dtypes.default_float_np())  # Python floats: the default dtype
        self._data = arr
        self._version_counter = data._version_counter if isinstance(data, Tensor) else [0]
        if requires_grad:
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict) -> Any:
        # as torch.nn.Parameter's: the values and requires_grad, without .grad (a plain
        # tensor's copy keeps it), so copy.deepcopy(model) has no gradients
        copied = super().__deepcopy__(memo)  # type: ignore[misc]  # set on Tensor at import
        copied._grad = None
        return copied


class Buffer(Tensor):
    """Marks a tensor to be registered as a buffer when assigned to a ``Module`` attribute."""

    def __init__(self, data: Any, persistent: bool = True) -> None:
        self._data = data._data if isinstance(data, Tensor) else np.asarray(data)
        self._version_counter = data._version_counter if isinstance(data, Tensor) else [0]
        self.persistent = persistent


_LAZY_ALLOWED = frozenset({"materialize", "size", "copy_", "is_complex", "is_floating_point",
                           "half", "float", "double", "to", "cpu", "get_device",
                           "requires_grad_", "share_memory_"})


class UninitializedTensorMixin:
    """What the uninitialized parameter and buffer share: no shape until ``materialize``, and a
    ValueError from the tensor methods (PyTorch's ``torch.nn.parameter`` behaviour)."""

    cls_to_become: type = Tensor
    _data: np.ndarray

    def materialize(self, shape: Any, device: Any = None, dtype: Any = None) -> None:
        """Allocate (uninitialised) data of ``shape`` and become ``cls_to_become``."""
        dt = self._data.dtype if dtype is None else dtypes.to_dtype(dtype).np
        dims = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
        self._data = np.empty(tuple(int(s) for s in dims), dt)
        self.__class__ = self.cls_to_become

    @property
    def shape(self) -> Any:
        """Refused: an uninitialized tensor has no shape yet."""
        raise RuntimeError(
            "Can't access the shape of an uninitialized parameter or buffer. This error usually "
            "happens in `load_state_dict` when trying to load an uninitialized parameter into "
            "an initialized one. Call `forward` to initialize the parameters before accessing "
            "their attributes.")

    def share_memory_(self) -> Any:
        """Refused until the tensor is materialized."""
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __getattribute__(self, name: str) -> Any:
        if not name.startswith("_") and name not in _LAZY_ALLOWED:
            attr = getattr(type(self), name, None)
            if callable(attr) and not isinstance(attr, (property, type)):
                raise ValueError(
                    f"Attempted to use an uninitialized parameter in {name}. This error happens "
                    "when you are using a `LazyModule` or explicitly manipulating "
                    f"`torch.nn.parameter.{type(self).__name__}` objects. When using "
                    "LazyModules Call `forward` with a dummy batch to initialize the "
                    "parameters before calling torch functions")
        return object.__getattribute__(self, name)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    """A parameter without a shape yet (a lazy module's weight until its first forward);
    ``materialize`` turns it into a ``Parameter``."""

    cls_to_become = Parameter

    def __init__(self, requires_grad: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        dt = dtypes.default_float_np(dtype)
        super().__init__(np.empty((0,), dt), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    """A buffer without a shape yet (a lazy norm's running statistics until its first forward);
    ``materialize`` turns it into a plain ``Tensor``."""

    cls_to_become = Tensor

    def __init__(self, requires_grad: bool = False, device: Any = None, dtype: Any = None,
                 persistent: bool = True) -> None:
        dt = dtypes.default_float_np(dtype)
        self._data = np.empty((0,), dt)
        self._version_counter = [0]
        self.persistent = persistent
        if requires_grad:
            self.requires_grad_(True)


def is_lazy(param: Any) -> bool:
    """Whether ``param`` is an uninitialized parameter or buffer."""
    return isinstance(param, UninitializedTensorMixin)
