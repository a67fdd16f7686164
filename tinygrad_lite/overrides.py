"""``torch.overrides``: the ``__torch_function__`` protocol's helpers, for code written to work
on tensor-like objects.

A class becomes tensor-like by defining ``__torch_function__(cls, func, types, args, kwargs)``.
A function that wants to let such objects take over asks ``has_torch_function(args)`` and, if
so, returns ``handle_torch_function(func, args, *args, **kwargs)``. The package's own ops do not
dispatch through the protocol (a tensor-like object reaching them is converted or refused); the
helpers exist so that user code and libraries written against PyTorch's protocol run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ._core.tensor_base import TensorBase

__all__ = ["is_tensor_like", "has_torch_function", "has_torch_function_unary",
           "has_torch_function_variadic", "handle_torch_function"]


def _overrides(value: Any) -> bool:
    """Whether ``value``'s type brings its own ``__torch_function__`` (our Tensor brings none,
    so plain tensors never dispatch)."""
    return getattr(type(value), "__torch_function__", None) is not None


def is_tensor_like(inp: Any) -> bool:
    """Whether ``inp`` is a tensor (or a subclass) or defines ``__torch_function__``."""
    return isinstance(inp, TensorBase) or _overrides(inp)


def has_torch_function(relevant_args: Iterable[Any]) -> bool:
    """Whether any of ``relevant_args`` defines ``__torch_function__``."""
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(inp: Any) -> bool:
    """``has_torch_function((inp,))``."""
    return _overrides(inp)


def has_torch_function_variadic(*args: Any) -> bool:
    """``has_torch_function(args)``."""
    return any(_overrides(a) for a in args)


def handle_torch_function(public_api: Callable, relevant_args: Iterable[Any], *args: Any,
                          **kwargs: Any) -> Any:
    """Call ``__torch_function__`` of the overriding arguments in PyTorch's order (each type
    once, a subclass before its base class, otherwise left to right) until one returns
    something other than ``NotImplemented``; a ``TypeError`` names the types if none does."""
    overloaded: list[Any] = []
    types: list[type] = []
    for arg in relevant_args:
        kind = type(arg)
        if not _overrides(arg) or kind in types:
            continue
        # a subclass goes before the first of its base classes already listed
        position = next((i for i, seen in enumerate(types) if issubclass(kind, seen)),
                        len(types))
        types.insert(position, kind)
        overloaded.insert(position, arg)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, tuple(types), args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__qualname__", repr(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement "
                    f"__torch_function__: {[t for t in types]}")
