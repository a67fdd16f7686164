"""The work behind ``Module``'s bulk operations on its tensors: ``state_dict`` (parameters,
persistent buffers and extra state by dotted name, with PyTorch's hooks and ``_metadata``),
``load_state_dict`` (all problems reported at once, nothing copied then) and the in-place dtype
conversions (``to``, ``float``, ``double``, ``half``)."""

from __future__ import annotations

from collections import OrderedDict, namedtuple
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ... import dtypes
from ..._core.device import check_device, device, meta_array
from ..._core.grad_mode import no_grad
from ..._core.graph import RemovableHandle
from ..._core.size import Size
from ...dtypes import is_float_dtype
from ...tensor import Tensor
from ..parameter import Parameter
from ._hooks import add_hook

__all__ = ["IncompatibleKeys", "collect_state", "load_state", "cast_floating", "to_target",
           "replace_storage", "module_state_dict", "save_to_state_dict", "load_from_state_dict",
           "StateDictMixin"]

class _IncompatibleKeys(namedtuple("_IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the missing and the unexpected keys (PyTorch's class
    name, which its repr shows)."""

    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


IncompatibleKeys = _IncompatibleKeys

# The loads in progress (innermost last): the default ``_load_from_state_dict`` queues its
# copies here so that a load that fails anywhere changes nothing. Only mutated in place.
_pending_loads: list[list] = []


def _hooks(module: Any, name: str) -> dict:
    """A hook table of ``module`` (empty for modules built without ``Module.__init__``)."""
    return module.__dict__.get(name) or {}


def module_state_dict(module: Any, destination: Any, prefix: str, keep_vars: bool) -> Any:
    """PyTorch's ``Module.state_dict``: pre-hooks, this module's own entries
    (``_save_to_state_dict``), the children (through their ``state_dict``), then post-hooks;
    the destination's ``_metadata`` records each module's state-dict version."""
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    local_metadata = {"version": module._version}
    if hasattr(destination, "_metadata"):
        destination._metadata[prefix[:-1]] = local_metadata
    for hook in _hooks(module, "_state_dict_pre_hooks").values():
        hook(module, prefix, keep_vars)
    module._save_to_state_dict(destination, prefix, keep_vars)
    for name, child in module._modules.items():
        if child is not None:
            child.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
    for hook in _hooks(module, "_state_dict_hooks").values():
        result = hook(module, destination, prefix, local_metadata)
        if getattr(hook, "_from_public_api", False):
            if result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        elif result is not None:
            destination = result
    return destination


def save_to_state_dict(module: Any, destination: Any, prefix: str, keep_vars: bool) -> None:
    """This module's parameters, persistent buffers and extra state (not its children's)."""
    for name, t in module._parameters.items():
        if t is not None:
            destination[prefix + name] = t if keep_vars else t.detach()
    for name, t in module._buffers.items():
        if t is not None and name not in module._non_persistent_buffers_set:
            destination[prefix + name] = t if keep_vars else t.detach()
    if type(module).get_extra_state is not _base_method(module, "get_extra_state"):
        destination[prefix + "_extra_state"] = module.get_extra_state()


def _base_method(module: Any, name: str) -> Any:
    """``Module.<name>`` (the last class in the MRO that defines it)."""
    for cls in reversed(type(module).__mro__):
        if name in cls.__dict__:
            return cls.__dict__[name]
    return None


def collect_state(module: Any, destination: OrderedDict | None, prefix: str,
                  keep_vars: bool) -> OrderedDict:
    """Parameters and persistent buffers of ``module`` and its descendants by dotted name."""
    return module_state_dict(module, destination, prefix, keep_vars)


def load_from_state_dict(module: Any, state_dict: dict, prefix: str, local_metadata: dict,
                         strict: bool, missing_keys: list, unexpected_keys: list,
                         error_msgs: list) -> None:
    """PyTorch's default ``Module._load_from_state_dict``: run the load pre-hooks, check and
    queue the copies of this module's own entries, note missing and unexpected keys."""
    for hook in _hooks(module, "_load_state_dict_pre_hooks").values():
        hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
             error_msgs)
    persistent = {k: v for k, v in module._buffers.items()
                  if k not in module._non_persistent_buffers_set}
    local = {k: v for k, v in [*module._parameters.items(), *persistent.items()]
             if v is not None}
    assign = local_metadata.get("assign_to_params_buffers", False)
    queue = _pending_loads[-1] if _pending_loads else None
    for name, target in local.items():
        key = prefix + name
        if key not in state_dict:
            if strict:
                missing_keys.append(key)
            continue
        value = state_dict[key]
        if not isinstance(value, Tensor) and hasattr(value, "__array__"):
            value = Tensor._wrap(np.asarray(value))  # a NumPy array or a PyTorch tensor
        if not isinstance(value, Tensor):
            error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor '
                              "or Tensor-like object from checkpoint but received "
                              f"{type(value)}")
            continue
        if target._data.ndim == 0 and value.ndim == 1:  # PyTorch 0.3 checkpoints' scalars
            value = value[0]
        if value._data.shape != target._data.shape:
            error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                              f"{Size(value._data.shape)} from checkpoint, the shape in current "
                              f"model is {Size(target._data.shape)}.")
            continue
        entry = (module, name, target, value, assign)
        if queue is None:
            _load_entry(*entry)
        else:
            queue.append(entry)
    extra_key = prefix + "_extra_state"
    if type(module).set_extra_state is not _base_method(module, "set_extra_state"):
        if extra_key in state_dict:
            module.set_extra_state(state_dict[extra_key])
        elif strict:
            missing_keys.append(extra_key)
    elif strict and extra_key in state_dict:
        unexpected_keys.append(extra_key)
    if strict:
        for key in state_dict:
            if key.startswith(prefix) and key != extra_key:
                head = key[len(prefix):].split(".", 1)[0]
                if head not in module._modules and head not in local:
                    unexpected_keys.append(key)


def _load_entry(module: Any, name: str, target: Tensor, value: Tensor, assign: bool) -> None:
    """Copy ``value`` into ``target`` (cast to its dtype), or with ``assign`` make ``value``
    itself the module's entry: a parameter is wrapped in ``Parameter`` (sharing its memory)
    and keeps the old one's ``requires_grad``, as in PyTorch."""
    if assign:
        if isinstance(target, Parameter):
            if isinstance(value, Parameter):
                value.requires_grad_(target.requires_grad)
            else:
                value = Parameter(value, requires_grad=target.requires_grad)
        setattr(module, name, value)
        return
    with no_grad():
        np.copyto(target._data, value._data, casting="unsafe")
        target._version_counter[0] += 1


def load_state(module: Any, state_dict: dict, strict: bool, assign: bool) -> IncompatibleKeys:
    """PyTorch's ``load_state_dict``: every module loads its own entries (hooks included), the
    post-hooks see the incompatible keys; all problems are reported in one RuntimeError, and
    then none of the default copies is made."""
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing: list = []
    unexpected: list = []
    errors: list = []
    metadata = getattr(state_dict, "_metadata", None)
    state = OrderedDict(state_dict)
    if metadata is not None:
        state._metadata = metadata  # type: ignore[attr-defined]

    def load(mod: Any, local_state: dict, prefix: str = "") -> None:
        local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
        if assign:
            local_metadata["assign_to_params_buffers"] = assign
        mod._load_from_state_dict(local_state, prefix, local_metadata, True, missing,
                                  unexpected, errors)
        for name, child in mod._modules.items():
            if child is not None:
                child_prefix = prefix + name + "."
                load(child, {k: v for k, v in local_state.items()
                             if k.startswith(child_prefix)}, child_prefix)
        keys = IncompatibleKeys(missing, unexpected)
        for hook in _hooks(mod, "_load_state_dict_post_hooks").values():
            if hook(mod, keys) is not None:
                raise RuntimeError("load_state_dict post-hook must return None")

    queue: list = []
    _pending_loads.append(queue)
    try:
        load(module, state)
    finally:
        _pending_loads.pop()
    if strict:
        if unexpected:
            errors.insert(0, "Unexpected key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in unexpected) + ". ")
        if missing:
            errors.insert(0, "Missing key(s) in state_dict: "
                          + ", ".join(f'"{k}"' for k in missing) + ". ")
    if errors:
        raise RuntimeError(f"Error(s) in loading state_dict for {type(module).__name__}:\n\t"
                           + "\n\t".join(errors))
    for entry in queue:
        _load_entry(*entry)
    return IncompatibleKeys(missing, unexpected)


class StateDictMixin:
    """``Module``'s state-dict hooks and per-module save/load steps (PyTorch's names)."""

    __dict__: dict[str, Any]

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` saves this module."""
        return add_hook(self.__dict__.setdefault("_state_dict_pre_hooks", OrderedDict()), hook)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict`` saved
        this module (it may edit ``state_dict`` in place and must return None)."""
        hook._from_public_api = True  # type: ignore[attr-defined]
        return self._register_state_dict_hook(hook)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The private form of the post-hook: a non-None result replaces the state dict."""
        return add_hook(self.__dict__.setdefault("_state_dict_hooks", OrderedDict()), hook)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module loads its entries (it may rename
        keys of ``state_dict`` in place)."""
        return add_hook(self.__dict__.setdefault("_load_state_dict_pre_hooks", OrderedDict()),
                        hook)

    def _register_load_state_dict_pre_hook(self, hook: Callable,
                                           with_module: bool = False) -> RemovableHandle:
        """The private form: ``hook(state_dict, prefix, ...)`` unless ``with_module``."""
        if with_module:
            return self.register_load_state_dict_pre_hook(hook)
        return self.register_load_state_dict_pre_hook(
            lambda module, *args: hook(*args))

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """Run ``hook(module, incompatible_keys)`` after this module and its children loaded;
        it may clear ``missing_keys``/``unexpected_keys`` in place before the strict check."""
        return add_hook(self.__dict__.setdefault("_load_state_dict_post_hooks", OrderedDict()),
                        hook)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Put this module's own parameters, persistent buffers and extra state (not the
        children's) into ``destination``; override to change how a layer is saved."""
        save_to_state_dict(self, destination, prefix, keep_vars)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict,
                              strict: bool, missing_keys: list, unexpected_keys: list,
                              error_msgs: list) -> None:
        """Load this module's own entries from ``state_dict`` (keys under ``prefix``);
        override to migrate old checkpoints (``local_metadata["version"]``)."""
        load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                             unexpected_keys, error_msgs)

    def get_extra_state(self) -> Any:
        """Override (with ``set_extra_state``) to save non-tensor state in ``state_dict``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def set_extra_state(self, state: Any) -> None:
        """Override (with ``get_extra_state``) to restore what ``get_extra_state`` saved."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never "
                           "be called. Please file an issue at https://github.com/pytorch/"
                           "pytorch/issues/new?template=bug-report.yml to report this bug.")

    def load_state_dict(self, state_dict: dict, strict: bool = True,
                        assign: bool = False) -> IncompatibleKeys:
        """Copy values from ``state_dict`` into parameters and buffers. All problems (missing and
        unexpected keys with ``strict``, shape mismatches always) are reported in one error, and
        nothing is loaded then."""
        return load_state(self, state_dict, strict, assign)


def cast_floating(module: Any, dtype: dtypes.DType) -> None:
    """Convert the floating parameters (and their grads) and buffers of ``module`` and its
    descendants to ``dtype`` in place, keeping the tensor objects."""
    dtype = dtypes.to_dtype(dtype)  # loads bfloat16's NumPy type on first use
    for m in module.modules():
        for store in (m._parameters, m._buffers):
            for t in store.values():
                if t is None or not is_float_dtype(t._data.dtype):
                    continue
                t._data = t._data.astype(dtype.np)
                t._version_counter[0] += 1
                if t._grad is not None:
                    t._grad = Tensor._wrap(t._grad._data.astype(dtype.np))


def to_target(args: tuple, kwargs: dict) -> tuple[dtypes.DType | None, Any]:
    """(the floating dtype, the device) that ``Module.to(*args, **kwargs)`` asks for (None: no
    change); devices other than the CPU and meta and non-floating dtypes are refused."""
    kwargs = dict(kwargs)
    target = kwargs.pop("dtype", None)
    where = kwargs.pop("device", None)
    check_device(where, "to", meta_ok=True)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to: unexpected keyword arguments {sorted(kwargs)}")
    for arg in args:
        if isinstance(arg, Tensor):
            target = arg.dtype
        elif isinstance(arg, (str, device)) or (isinstance(arg, int)
                                                 and not isinstance(arg, bool)):
            check_device(arg, "to", meta_ok=True)  # other devices raise as Tensor.to does
            where = arg
        elif not isinstance(arg, bool):  # to(dtype, non_blocking) positionally
            target = arg
    if target is None:
        return None, where
    dt = dtypes.to_dtype(target)
    if not is_float_dtype(dt.np):
        raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                        f"desired dtype={dt}")
    return dt, where


def replace_storage(module: Any, meta: bool, recurse: bool = True) -> None:
    """Give every parameter and buffer (and gradient) new, uninitialised values of its shape
    and dtype: meta placeholders (``to("meta")``) or CPU memory (``to_empty``), keeping the
    tensor objects."""
    modules = module.modules() if recurse else [module]
    for m in modules:
        for store in (m._parameters, m._buffers):
            for t in store.values():
                if t is None:
                    continue
                shape, dt = t._data.shape, t._data.dtype
                t._data = meta_array(shape, dt) if meta else np.empty(shape, dt)
                t._version_counter[0] += 1
                if t._grad is not None:
                    t._grad = Tensor._wrap(meta_array(shape, t._grad._data.dtype)) if meta \
                        else None
