"""PyTorch's ``torch.nn.utils.parametrize``: make a parameter or buffer of a module the output
of small modules applied to an underlying ``original`` tensor (``register_parametrization``),
recomputed on every access (or once per ``cached()`` block), and undo it
(``remove_parametrizations``). As in PyTorch, the module's class is swapped for a subclass
``Parametrized<Name>`` whose property computes the tensor; the originals live in
``module.parametrizations.<name>.original`` (or ``original0``, ``original1``, ...)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["register_parametrization", "remove_parametrizations", "is_parametrized",
           "cached", "type_before_parametrizations", "transfer_parametrizations_and_params",
           "ParametrizationList"]

# ``cached()`` state: how many blocks are open, and the values computed inside them (keyed by
# module id and tensor name). Only ever mutated in place.
_cache_depth = [0]
_cache: dict[tuple[int, str], Tensor] = {}


@contextlib.contextmanager
def cached() -> Iterator[None]:
    """Inside this block each parametrized tensor is computed once and reused."""
    _cache_depth[0] += 1
    try:
        yield
    finally:
        _cache_depth[0] -= 1
        if not _cache_depth[0]:
            _cache.clear()


def _register(module: Module, name: str, value: Tensor, like: Tensor) -> None:
    """Register ``value`` as a parameter when ``like`` is one, else as a buffer."""
    if not isinstance(value._data, np.ndarray):  # a NumPy scalar from a 0-d reduction
        value = Tensor._wrap(np.asarray(value._data))
    if isinstance(like, Parameter):
        module.register_parameter(name, value if isinstance(value, Parameter)
                                  else Parameter(value.detach(), like.requires_grad))
    else:
        module.register_buffer(name, value.detach() if isinstance(value, Tensor) else value)


def _set_data(target: Tensor, value: Any) -> None:
    """Replace the data of ``target`` in place, keeping the object (PyTorch's ``set_``)."""
    with no_grad():
        target._data = np.array(value._data, dtype=value._data.dtype)
        target._version_counter[0] += 1


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, applied in order to ``original`` (or to the tuple
    ``original0, original1, ...`` that the first one's ``right_inverse`` returned)."""

    def __init__(self, modules: Sequence[Module], original: Tensor, unsafe: bool = False
                 ) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        shape, dtype = tuple(original.shape), original.dtype
        with no_grad():
            new: Any = original
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:  # taken as the identity, as PyTorch
                        pass
        if isinstance(new, Tensor):
            self.is_tensor, self.ntensors = True, 1
            if not unsafe and (tuple(new.shape) != shape or new.dtype != dtype):
                raise ValueError("When `right_inverse` outputs one tensor, it may not change "
                                 f"the dtype or shape: got {new.dtype} {tuple(new.shape)}, "
                                 f"expected {dtype} {shape}")
            if new is not original:
                _set_data(original, new)
            _register(self, "original", original, original)
        else:
            if not isinstance(new, Sequence):
                raise ValueError("'right_inverse' must return a Tensor or a Sequence of "
                                 f"tensors (list, tuple...). Got {type(new).__name__}")
            self.is_tensor, self.ntensors = False, len(new)
            for i, part in enumerate(new):
                _register(self, f"original{i}", part, original)
        if not unsafe:
            out = self()
            if not isinstance(out, Tensor):
                raise ValueError("A parametrization must return a tensor. Got "
                                 f"{type(out).__name__}.")
            if tuple(out.shape) != shape or out.dtype != dtype:
                raise ValueError("Registering a parametrization may not change the shape or "
                                 f"dtype of the tensor: got {out.dtype} {tuple(out.shape)}, "
                                 f"expected {dtype} {shape}")

    def right_inverse(self, value: Tensor) -> None:
        """Assigning to the parametrized tensor: invert the chain and store the originals."""
        with no_grad():
            for module in reversed(list(self)):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                elif len(self) > 1 or not self.is_tensor:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not "
                                       "implement right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got "
                                     f"{type(value).__name__}")
                _set_data(self.original, value)
            else:
                for i, part in enumerate(value):
                    _set_data(getattr(self, f"original{i}"), part)

    def forward(self) -> Tensor:
        """The parametrized tensor."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in list(self)[1:]:
            x = module(x)
        return x


def _property(name: str) -> property:
    def getter(self: Module) -> Tensor:
        plist = self.parametrizations[name]
        if not _cache_depth[0]:
            return plist()
        key = (id(self), name)
        if key not in _cache:
            _cache[key] = plist()
        return _cache[key]

    def setter(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)

    return property(getter, setter, doc=f"The parametrized ``{name}``.")


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` (or its ``tensor_name``) has a parametrization."""
    plist = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(plist, ModuleDict):
        return False
    return len(plist) > 0 if tensor_name is None else tensor_name in plist


def type_before_parametrizations(module: Module) -> type:
    """The class of ``module`` before the parametrized subclass was swapped in."""
    return type(module).__bases__[0] if is_parametrized(module) else type(module)


def register_parametrization(module: Module, tensor_name: str, parametrization: Module, *,
                             unsafe: bool = False) -> Module:
    """Make ``module.<tensor_name>`` equal ``parametrization(original)`` (composed after any
    earlier parametrizations of it); returns ``module``."""
    if not isinstance(parametrization, Module):
        raise TypeError(f"parametrization must be an nn.Module, got "
                        f"{type(parametrization).__name__}")
    if is_parametrized(module, tensor_name):
        plist = module.parametrizations[tensor_name]
        if not unsafe:
            y = getattr(module, tensor_name)
            x = parametrization(y)
            if not isinstance(x, Tensor) or tuple(x.shape) != tuple(y.shape) \
                    or x.dtype != y.dtype:
                raise ValueError("Registering a parametrization may not change the shape or "
                                 "dtype of the tensor")
        plist.append(parametrization)
        plist.unsafe = plist.unsafe or unsafe
        return module
    if tensor_name not in module._parameters and tensor_name not in module._buffers:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    original = getattr(module, tensor_name)
    plist = ParametrizationList([parametrization], original, unsafe=unsafe)
    delattr(module, tensor_name)
    if not is_parametrized(module):
        cls = type(module)
        module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), {})
        module.parametrizations = ModuleDict()
    module.parametrizations[tensor_name] = plist
    setattr(type(module), tensor_name, _property(tensor_name))
    return module


def remove_parametrizations(module: Module, tensor_name: str,
                            leave_parametrized: bool = True) -> Module:
    """Remove every parametrization of ``tensor_name``: the tensor becomes a plain parameter
    (or buffer) again, holding the current parametrized value unless ``leave_parametrized`` is
    False (then the original)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            _set_data(original, t)
    else:
        if not leave_parametrized:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        with no_grad():
            t = getattr(module, tensor_name)
        like = plist.original0
        original = Parameter(t.detach(), like.requires_grad) if isinstance(like, Parameter) \
            else t.detach()
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    _register(module, tensor_name, original, original)
    if not is_parametrized(module):
        del module.parametrizations
        module.__class__ = type(module).__bases__[0]
    return module


def transfer_parametrizations_and_params(from_module: Module, to_module: Module,
                                         tensor_name: str | None = None) -> Module:
    """Copy the parametrizations (and their originals) of ``from_module`` onto ``to_module``."""
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        source = from_module.parametrizations[name]
        if not hasattr(to_module, name):
            like = source.original if source.is_tensor else source.original0
            setattr(to_module, name, Parameter(getattr(from_module, name).detach(),
                                               like.requires_grad))
        for param in source:
            register_parametrization(to_module, name, param, unsafe=True)
        target = to_module.parametrizations[name]
        for key in ("original",) if source.is_tensor else \
                tuple(f"original{i}" for i in range(source.ntensors)):
            _set_data(getattr(target, key), getattr(source, key))
    return to_module
