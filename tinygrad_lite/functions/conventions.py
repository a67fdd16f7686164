"""PyTorch's argument conventions that apply to many functions at once, as two wrappers:

- NumPy's spellings that PyTorch's argument parser accepts for every
  function: ``axis`` for ``dim``, ``keepdims`` for ``keepdim``, ``x``/``a``/``x1`` for
  ``input`` and ``x2`` for ``other`` (``x.sum(axis=1, keepdims=True)``).
- the ``out=`` keyword: the result is computed as usual and written into ``out``
  (resized if its shape differs, with PyTorch's warning when it held elements), whose dtype
  must be able to hold the result; ``out`` itself is returned. Gradients are refused as
  PyTorch refuses them.

``conventions`` wraps a function with both (one wrapper); ``functions/__init__.py`` applies it
to the ``tl.*`` functions by signature and by what each declares (``out=``: see registry.py), so
no function carries this code itself.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase
from .._core.warnings import warn
from ..ops import return_types
from ..ops.inplace import check_writable

__all__: list[str] = []  # helpers for other modules; nothing for tl.*

# PyTorch's argument parser: each canonical name and the NumPy names it also accepts
_ALIASES = {"dim": ("axis",), "keepdim": ("keepdims",), "input": ("x", "a", "x1"),
            "other": ("x2",)}


# PyTorch's scalar-type names, which its casting errors use
_TORCH_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long",
                "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "bool": "Bool"}


def _parameters(fn: Callable) -> Mapping[str, inspect.Parameter]:
    """``fn``'s parameters (none for a callable without a signature). Read once per function:
    ``inspect.signature`` of the 700 exported functions is a tenth of the package's import."""
    try:
        return inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return {}


def _renames(params: Mapping[str, inspect.Parameter]) -> dict[str, str]:
    """NumPy name -> PyTorch name for the parameters that have aliases (none when there is no
    ``dim``/``keepdim``: the input/x aliases alone are not worth a wrapper)."""
    renames = {alias: name for name, aliases in _ALIASES.items() if name in params
               for alias in aliases if alias not in params}
    if not any(n in ("dim", "keepdim") for n in renames.values()):
        renames = {}
    # PyTorch's keywords for ours named otherwise: exp(input=t), pow(t, exponent=2), where(c,
    # input=a, other=b) reach the positional parameters named x / a, b / y
    positional = [n for n, p in params.items()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    shift = 1 if positional[:1] == ["condition"] else 0  # where(condition, x, y)
    for position, ours in enumerate(positional[shift:shift + 2]):
        for torch_name in _TORCH_KEYWORDS[position].get(ours, ()):
            if torch_name not in params:
                renames[torch_name] = ours
    return renames


# PyTorch's keyword names for our first and second operands when ours are named otherwise
_TORCH_KEYWORDS: list[dict[str, tuple[str, ...]]] = [
    {"x": ("input",), "a": ("input",)}, {"b": ("other", "exponent"), "y": ("other",)}]


def _positional_only(params: Mapping[str, inspect.Parameter]) -> list[str]:
    """The names of the positional-only parameters, in order."""
    return [p.name for p in params.values() if p.kind == p.POSITIONAL_ONLY]


def conventions(fn: Callable, out: bool = False, creation: bool = False) -> Callable:
    """``fn`` accepting NumPy's argument names (when its signature has PyTorch's) and, with
    ``out``, the ``out=`` keyword (``creation``: out's dtype is the default dtype). One wrapper
    at most, which passes calls without keywords straight through."""
    params = _parameters(fn)
    renames = _renames(params)
    if not renames and not out:
        return fn
    name = fn.__name__
    positional_only = _positional_only(params)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not kwargs:
            return fn(*args)
        for alias in [k for k in kwargs if k in renames]:
            if renames[alias] in kwargs:
                raise TypeError(f"{name}() got both '{renames[alias]}' and its alias '{alias}'")
            kwargs[renames[alias]] = kwargs.pop(alias)
        # a keyword for a positional-only parameter goes in its place (mul(a, other=b))
        for index, param in enumerate(positional_only):
            if param in kwargs and len(args) == index:
                args = (*args, kwargs.pop(param))
        target = kwargs.pop("out", None) if out else None
        if target is None:
            return fn(*args, **kwargs)
        return call_with_out(fn, name, args, kwargs, target, creation)

    return wrapper


def _tensors_in(args: Any) -> list:
    """The tensors among positional/keyword arguments (one level of lists/tuples)."""
    found = []
    for a in args:
        if isinstance(a, TensorBase):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found.extend(t for t in a if isinstance(t, TensorBase))
    return found


def write_out(result: TensorBase, out: TensorBase, op: str) -> TensorBase:
    """Store ``result`` in ``out`` as PyTorch's ``out=`` does and return ``out``."""
    if not isinstance(out, TensorBase):
        raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(out).__name__}")
    source, target = result._data, out._data
    if source.dtype != target.dtype and not np.can_cast(source.dtype, target.dtype,
                                                         casting="same_kind"):
        raise RuntimeError(f"{op}(): result type {_TORCH_NAMES.get(source.dtype.name)} can't "
                           f"be cast to the desired output type "
                           f"{_TORCH_NAMES.get(target.dtype.name)}")
    check_writable(out, f"{op}(out=...)")
    if source.shape != target.shape:
        if target.size:
            warn(f"{op}(): an output with one or more elements was resized since it had shape "
                 f"{list(target.shape)}, which does not match the required output shape "
                 f"{list(source.shape)}. This behavior is deprecated, and in a future PyTorch "
                 "release outputs will not be resized unless they have zero elements. You can "
                 "explicitly reuse an out tensor t by resizing it, inplace, to zero elements "
                 "with t.resize_(0).")
        out._data = np.empty(source.shape, target.dtype)  # a new storage, as resize_ makes
    np.copyto(out._data, source, casting="unsafe")
    out._version_counter[0] += 1
    return out


def call_with_out(fn: Callable, name: str, args: tuple, kwargs: dict, out: Any,
                   creation: bool) -> Any:
    """``fn(*args, **kwargs)`` stored in ``out`` (a tensor, or a tuple of tensors for functions
    returning several), which is returned."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if grad_state.enabled and any(t._requires_grad for t in
                                  (*_tensors_in(args), *_tensors_in(kwargs.values()),
                                   *_tensors_in(outs))):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if creation and kwargs.get("dtype") is None and isinstance(outs[0], TensorBase):
        kwargs["dtype"] = outs[0].dtype
    result = fn(*args, **kwargs)
    if isinstance(result, TensorBase):
        if len(outs) != 1:
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not "
                            f"{type(out).__name__}")
        return write_out(result, outs[0], name)
    if len(outs) != len(result):
        raise TypeError(f"{name}(): argument 'out' must be a tuple of {len(result)} tensors, "
                        f"got {len(outs)}")
    for r, o in zip(result, outs, strict=True):
        write_out(r, o, name)
    if not hasattr(result, "_fields"):
        return tuple(outs)
    # PyTorch returns out= results as the "_out" variant of the named tuple (max -> max_out)
    return getattr(return_types, type(result).__name__ + "_out", type(result))(*outs)
