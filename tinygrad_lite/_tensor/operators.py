"""Python's operators on tensors beyond the arithmetic ones written in tensor.py: ``//``, ``%``,
``<<``, ``>>``, the reflected ``&``, ``|``, ``^``, the in-place operators (``x **= 2``,
``mask |= other``), ``in`` and ``reversed``, and NumPy's ``__array_wrap__``."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from .. import dtypes, functions
from .._core.tensor_base import TensorBase

__all__ = ["METHODS", "PROPERTIES"]


def _floordiv(self: TensorBase, other: Any) -> TensorBase:
    return functions.floor_divide(self, other)


def _rfloordiv(self: TensorBase, other: Any) -> TensorBase:
    return functions.floor_divide(other, self)


def _mod(self: TensorBase, other: Any) -> TensorBase:
    return functions.remainder(self, other)


def _rmod(self: TensorBase, other: Any) -> TensorBase:
    return functions.remainder(other, self)


def _shift(value: Any, amount: Any, left: bool) -> TensorBase:
    """``value << amount`` / ``>>``: ``tl.bitwise_left_shift`` / ``bitwise_right_shift``."""
    shift = functions.bitwise_left_shift if left else functions.bitwise_right_shift
    return shift(value, amount)


def _lshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(self, other, True)


def _rshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(self, other, False)


def _rlshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(other, self, True)


def _rrshift(self: TensorBase, other: Any) -> TensorBase:
    return _shift(other, self, False)


def _rand(self: TensorBase, other: Any) -> TensorBase:
    return functions.bitwise_and(self, other)  # & | ^ commute; a Python scalar keeps our dtype


def _ror(self: TensorBase, other: Any) -> TensorBase:
    return functions.bitwise_or(self, other)


def _rxor(self: TensorBase, other: Any) -> TensorBase:
    return functions.bitwise_xor(self, other)


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
        if not dtypes.can_cast(result._data.dtype, self._data.dtype):
            raise RuntimeError(f"{name}: result type {result.dtype.name} can't be cast to the "
                               f"desired output type {self.dtype.name}")
        return functions.copy_(self, result)

    operator.__name__ = name
    operator.__doc__ = f"In place: ``self {name[3:-2]}= other``."
    return operator


def __array_wrap__(self: TensorBase, array: np.ndarray, context: Any = None,  # noqa: N807
                   return_scalar: bool = False) -> TensorBase:
    """NumPy's output-wrapping hook: ``array`` as a tensor (sharing its memory), as PyTorch's."""
    return functions.from_numpy(np.asarray(array))


# The ufuncs behind Python's operators, with the tensor's method for each operand order: an
# ndarray or NumPy scalar on the left (``ndarray * tensor``, ``np.float64(2) + tensor``) reaches
# the tensor through NumPy's ufunc, and runs as the tensor's reflected operator.
_OPERATOR_UFUNCS = {
    np.add: ("__add__", "__radd__"), np.subtract: ("__sub__", "__rsub__"),
    np.multiply: ("__mul__", "__rmul__"), np.true_divide: ("__truediv__", "__rtruediv__"),
    np.floor_divide: ("__floordiv__", "__rfloordiv__"), np.remainder: ("__mod__", "__rmod__"),
    np.power: ("__pow__", "__rpow__"), np.matmul: ("__matmul__", "__rmatmul__"),
    np.bitwise_and: ("__and__", "__rand__"), np.bitwise_or: ("__or__", "__ror__"),
    np.bitwise_xor: ("__xor__", "__rxor__"), np.left_shift: ("__lshift__", "__rlshift__"),
    np.right_shift: ("__rshift__", "__rrshift__"), np.equal: ("__eq__", "__eq__"),
    np.not_equal: ("__ne__", "__ne__"), np.less: ("__lt__", "__gt__"),
    np.less_equal: ("__le__", "__ge__"), np.greater: ("__gt__", "__lt__"),
    np.greater_equal: ("__ge__", "__le__"),
}


def __array_ufunc__(self: TensorBase, ufunc: np.ufunc, method: str, *inputs: Any,  # noqa: N807
                    **kwargs: Any) -> Any:
    """NumPy ufuncs given tensors. An operator's ufunc with an array or NumPy scalar on the
    left runs as the tensor's reflected operator (promoting and recording as tensor arithmetic
    does). Any other (``np.exp(t)``, ``np.maximum(t, 0)``, ``np.add.reduce(t)``) runs on the
    arrays and gives tensors, as PyTorch's ``__array__``/``__array_wrap__`` do; like there, a
    tensor that requires grad is refused (its ``numpy()`` raises)."""
    if method == "__call__" and not kwargs and len(inputs) == 2 and ufunc in _OPERATOR_UFUNCS:
        forward, reflected = _OPERATOR_UFUNCS[ufunc]
        left, right = inputs
        if isinstance(left, TensorBase):
            return getattr(left, forward)(right)
        return getattr(right, reflected)(left)
    arrays = [x.numpy() if isinstance(x, TensorBase) else x for x in inputs]
    out = kwargs.get("out")
    if out is not None:  # written in place: a tensor's array is its memory
        kwargs["out"] = tuple(o.numpy() if isinstance(o, TensorBase) else o for o in out)
        for o in out:
            if isinstance(o, TensorBase):
                o._version_counter[0] += 1
    result = getattr(ufunc, method)(*arrays, **kwargs)
    if out is not None:
        return out[0] if len(out) == 1 else out
    if isinstance(result, tuple):
        return tuple(functions.from_numpy(np.asarray(r)) for r in result)
    return None if result is None else functions.from_numpy(np.asarray(result))


METHODS: dict[str, Any] = {
    "__floordiv__": _floordiv, "__rfloordiv__": _rfloordiv, "__mod__": _mod, "__rmod__": _rmod,
    "__lshift__": _lshift, "__rshift__": _rshift, "__rlshift__": _rlshift,
    "__rrshift__": _rrshift, "__rand__": _rand, "__ror__": _ror, "__rxor__": _rxor,
    "__contains__": _contains, "__reversed__": _reversed,
    "__ipow__": _in_place("__ipow__", "pow_", None),
    "__iand__": _in_place("__iand__", "bitwise_and_", None),
    "__ior__": _in_place("__ior__", "bitwise_or_", None),
    "__ixor__": _in_place("__ixor__", "bitwise_xor_", None),
    "__imod__": _in_place("__imod__", "remainder_", None),
    "__ifloordiv__": _in_place("__ifloordiv__", "floor_divide_", None),
    "__ilshift__": _in_place("__ilshift__", None, lambda a, b: a << b),
    "__irshift__": _in_place("__irshift__", None, lambda a, b: a >> b),
    "__array_wrap__": __array_wrap__, "__array_ufunc__": __array_ufunc__,
}
PROPERTIES: dict[str, property] = {}
