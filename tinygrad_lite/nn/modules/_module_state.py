"""The work behind ``Module``'s bulk operations on its tensors: ``state_dict`` (parameters and
persistent buffers by dotted name), ``load_state_dict`` (all problems reported at once) and the
in-place dtype conversions (``to``, ``float``, ``double``, ``half``)."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from typing import Any

import numpy as np

from ... import dtypes
from ..._core.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["IncompatibleKeys", "collect_state", "load_state", "cast_floating",
           "to_target_dtype"]

IncompatibleKeys = namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])


def collect_state(module: Any, destination: OrderedDict | None, prefix: str,
                  keep_vars: bool) -> OrderedDict:
    """Parameters and persistent buffers of ``module`` and its descendants by dotted name."""
    out: OrderedDict = OrderedDict() if destination is None else destination
    for mod_prefix, mod in module.named_modules(prefix=prefix.rstrip("."),
                                                remove_duplicate=False):
        p = mod_prefix + ("." if mod_prefix else "")
        for name, t in mod._parameters.items():
            if t is not None:
                out[p + name] = t if keep_vars else t.detach()
        for name, t in mod._buffers.items():
            if t is not None and name not in mod._non_persistent_buffers_set:
                out[p + name] = t if keep_vars else t.detach()
    return out


def _as_array(value: Any) -> np.ndarray:
    return value._data if isinstance(value, Tensor) else np.asarray(value)


def load_state(module: Any, state_dict: dict, strict: bool, assign: bool) -> IncompatibleKeys:
    """Copy the values of ``state_dict`` into ``module``'s parameters and buffers, after checking
    keys (with ``strict``) and shapes; on any problem raise one error and load nothing."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    own = collect_state(module, None, "", keep_vars=True)
    missing = [k for k in own if k not in state_dict]
    unexpected = [k for k in state_dict if k not in own]
    errors = []
    for key, target in own.items():
        if key in state_dict and _as_array(state_dict[key]).shape != target._data.shape:
            errors.append(
                f"\tsize mismatch for {key}: copying a param with shape "
                f"{_as_array(state_dict[key]).shape} from checkpoint, the shape in current model "
                f"is {target._data.shape}."
            )
    if strict and unexpected:
        errors.insert(0, "\tUnexpected key(s) in state_dict: "
                      + ", ".join(f'"{k}"' for k in unexpected) + ". ")
    if strict and missing:
        errors.insert(0, "\tMissing key(s) in state_dict: "
                      + ", ".join(f'"{k}"' for k in missing) + ". ")
    if errors:
        raise RuntimeError(
            f"Error(s) in loading state_dict for {type(module).__name__}:\n" + "\n".join(errors)
        )
    with no_grad():
        for key, target in own.items():
            if key not in state_dict:
                continue
            arr = _as_array(state_dict[key])
            if assign:
                target._data = np.array(arr, dtype=target._data.dtype)
            else:
                np.copyto(target._data, arr, casting="unsafe")
            target._version_counter[0] += 1
    return IncompatibleKeys(missing, unexpected)


def cast_floating(module: Any, dtype: dtypes.DType) -> None:
    """Convert the floating parameters (and their grads) and buffers of ``module`` and its
    descendants to ``dtype`` in place, keeping the tensor objects."""
    for m in module.modules():
        for store in (m._parameters, m._buffers):
            for t in store.values():
                if t is None or t._data.dtype.kind != "f":
                    continue
                t._data = t._data.astype(dtype.np)
                t._version_counter[0] += 1
                if t._grad is not None:
                    t._grad = Tensor._wrap(t._grad._data.astype(dtype.np))


def to_target_dtype(args: tuple, kwargs: dict) -> dtypes.DType | None:
    """The floating dtype that ``Module.to(*args, **kwargs)`` asks for (None: no change); devices
    other than the CPU and non-floating dtypes are refused."""
    kwargs = dict(kwargs)
    target = kwargs.pop("dtype", None)
    kwargs.pop("device", None)
    kwargs.pop("non_blocking", None)
    if kwargs:
        raise TypeError(f"to: unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, Tensor):
            target = arg.dtype
        elif not (isinstance(arg, str) and arg.startswith("cpu")):
            target = arg
    if target is None:
        return None
    dt = dtypes.to_dtype(target)
    if dt.np.kind != "f":
        raise TypeError(f"Module.to only accepts floating point dtypes, but got {dt}")
    return dt
