"""The rest of PyTorch's in-place methods (``x.sqrt_()``, ``x.index_add_(...)``,
``x.scatter_(...)`` ...): each is its out-of-place function stored back through
``ops.inplace.apply`` (version bump, leaf check, graph rebase), made by one helper."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase
from ..ops import inplace
from ..ops.indexing import index_put
from . import (
    basic,
    indexing,
    mathops,
    nan_reductions,
    numeric,
    pointwise,
    reduction,
    shape,
    shape_extra,
)

__all__: list[str] = []  # filled below: the generated names

_SOURCES = (basic, pointwise, mathops, reduction, shape, indexing, shape_extra, nan_reductions,
            numeric)
# out-of-place function -> in-place method, when that is all the in-place version does
_NAMES = ("abs", "sqrt", "rsqrt", "sigmoid", "tanh", "sin", "cos", "tan", "asin", "acos",
          "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "log", "log2", "log10", "log1p",
          "expm1", "exp2", "square", "reciprocal", "floor", "ceil", "round", "trunc", "frac",
          "sign", "sgn", "erf", "erfc", "erfinv", "lgamma", "digamma", "lerp", "fmod",
          "remainder", "floor_divide", "xlogy", "logit", "nan_to_num", "hypot", "atan2",
          "copysign", "index_add", "index_copy", "index_fill", "scatter", "scatter_add",
          "scatter_reduce", "masked_scatter", "tril", "triu", "deg2rad", "rad2deg", "logical_not",
          "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or",
          "bitwise_xor", "bitwise_not", "minimum", "maximum", "eq", "ne", "lt", "le", "gt", "ge",
          "cumsum", "cumprod", "renorm", "fix", "negative", "arcsin", "arccos", "arctan",
          "arcsinh", "arccosh", "arctanh", "arctan2", "absolute", "greater", "greater_equal",
          "less", "less_equal", "not_equal", "multiply", "subtract", "divide", "true_divide",
          "heaviside", "sinc", "clamp_min", "clamp_max", "addcmul", "addcdiv", "gcd", "lcm",
          "nextafter", "ldexp", "mvlgamma")


# in-place view changes: the tensor itself takes the new shape (no values change)
_RESHAPING = ("t", "squeeze", "unsqueeze", "transpose", "swapaxes", "swapdims")


def _find(name: str) -> Callable | None:
    for module in _SOURCES:
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    return None


def _make(name: str, fn: Callable) -> Callable:
    def method(input: Any, *args: Any, **kwargs: Any) -> Any:
        return inplace.apply(input, name + "_", lambda s: fn(s, *args, **kwargs))

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In place: ``{name}`` written into the tensor."
    return method


for _name in _NAMES:
    _fn = _find(_name)
    if _fn is not None:
        globals()[_name + "_"] = _make(_name, _fn)
        __all__.append(_name + "_")


def _make_reshaping(name: str, fn: Callable) -> Callable:
    def method(input: Any, *args: Any, **kwargs: Any) -> Any:
        if grad_state.enabled and input._requires_grad:
            raise RuntimeError(f"{name}_: changing the shape of a tensor that requires grad in "
                               f"place is not supported; use the out-of-place {name}")
        input._data = fn(input, *args, **kwargs)._data
        return input

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In place: this tensor takes the shape ``{name}`` gives it."
    return method


for _name in _RESHAPING:
    _fn = _find(_name)
    if _fn is not None:
        globals()[_name + "_"] = _make_reshaping(_name, _fn)
        __all__.append(_name + "_")


def fill_diagonal_(input: TensorBase, fill_value: Any, wrap: bool = False) -> TensorBase:
    """In place: ``fill_value`` on the main diagonal (all dims equal beyond 2-D); ``wrap``:
    a tall matrix's diagonal starts again below each square block, as PyTorch's does."""
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(n != shape[0] for n in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    # PyTorch's strided view: one step along every dim at once, from the first element
    step = sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
    count = min(shape[0], shape[1])
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        count = -(-int(np.prod(shape)) // step)
    index = np.unravel_index(np.arange(count) * step, shape)
    return inplace.apply(input, "fill_diagonal_", lambda s: index_put(s, index, fill_value))


__all__.append("fill_diagonal_")
