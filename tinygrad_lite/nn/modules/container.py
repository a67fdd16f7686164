"""PyTorch's ``torch.nn.modules.container``: Sequential, ModuleList, ModuleDict, ParameterList,
ParameterDict."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx: int, n: int, what: str) -> int:
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range for {what} of length {n}")
    return idx % n


class Sequential(Module):
    """Calls its modules in order, each on the previous one's output. Built from modules
    (named ``0``, ``1``, ...) or from an ``OrderedDict`` of named modules."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[_index(idx, len(self), "Sequential")]

    def __setitem__(self, idx: int, module: Module) -> None:
        key = list(self._modules)[_index(idx, len(self), "Sequential")]
        self.add_module(key, module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        for key in (keys[idx] if isinstance(idx, slice) else [keys[_index(idx, len(keys), "x")]]):
            del self._modules[key]
        # keep the numbering contiguous, as PyTorch does
        items = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(items):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Sequential:
        """Add several modules at the end."""
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (``len(self)`` appends; negative counts from
        the end); the later modules move up one name."""
        if not isinstance(module, Module):
            raise AssertionError(f"Sequential.insert: module should be of type Module, got "
                                 f"{type(module).__name__}")
        n = len(self)
        if not -n <= index <= n:
            raise IndexError(f"Sequential.insert: index {index} is out of range for "
                             f"{n} modules")
        items = list(self._modules.values())
        items.insert(index + n if index < 0 else index, module)
        self._renumber(items)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module (or the Sequential of modules) at ``key``."""
        taken = self[key]
        del self[key]
        return taken

    def _renumber(self, items: list[Module]) -> None:
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def __add__(self, other: Sequential) -> Sequential:
        """A new Sequential of this one's modules then ``other``'s (the same module objects)."""
        if not isinstance(other, Sequential):
            raise ValueError("Sequential: the add operator supports only Sequential objects, "
                             f"but {type(other).__name__} is given")
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("Sequential: the add operator supports only Sequential objects, "
                             f"but {type(other).__name__} is given")
        return self.extend(list(other))

    def _repeated(self, times: Any) -> list[Module]:
        if not isinstance(times, int) or isinstance(times, bool):
            raise TypeError(f"Sequential: unsupported operand type(s) for *: 'Sequential' and "
                            f"'{type(times).__name__}'")
        if times <= 0:
            raise ValueError(f"Sequential: non-positive multiplication factor {times}")
        return list(self) * times

    def __mul__(self, times: int) -> Sequential:
        """A new Sequential repeating the modules ``times`` times (the same module objects, so
        the repeats share parameters, as in PyTorch)."""
        return Sequential(*self._repeated(times))

    __rmul__ = __mul__

    def __imul__(self, times: int) -> Sequential:
        self._renumber(self._repeated(times))
        return self

    def forward(self, input: Any) -> Any:
        """Run the modules in order."""
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules whose parameters are registered (named ``0``, ``1``, ...)."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(str(_index(idx, len(self), "ModuleList")), module)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add several modules at the end."""
        for m in modules:
            self.append(m)
        return self

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index``."""
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)


def _pairs(items: Any, owner: str, mapping_types: tuple) -> Iterable[tuple[Any, Any]]:
    """The ``(key, value)`` pairs ``ModuleDict.update``/``ParameterDict.update`` take: a
    mapping's items, or an iterable of 2-element iterables, checked with PyTorch's errors."""
    if not isinstance(items, Iterable):
        raise TypeError(f"{'ParametersDict' if owner == 'ParameterDict' else owner}.update "
                        "should be called with an iterable of key/value pairs, but got "
                        f"{type(items).__name__}")
    if isinstance(items, mapping_types):
        return list(items.items())
    pairs = []
    for j, pair in enumerate(items):
        if not isinstance(pair, Iterable):
            raise TypeError(f"{owner} update sequence element #{j} should be Iterable; "
                            f"is{type(pair).__name__}")
        pair = tuple(pair)
        if len(pair) != 2:
            raise ValueError(f"{owner} update sequence element #{j} has length {len(pair)}; "
                             "2 is required")
        pairs.append(pair)
    return pairs


class ModuleDict(Module):
    """An ordered dict of modules whose parameters are registered under their keys (insertion
    order; ``update`` keeps the order of a dict, ``OrderedDict``, ``ModuleDict`` or pairs)."""

    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove every module."""
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module at ``key`` (KeyError when absent)."""
        module = self[key]
        del self[key]
        return module

    # dict's own views, as PyTorch's (its _modules is a dict): dict_keys([...]), in order
    def keys(self) -> KeysView[str]:
        """The keys, a live ``dict_keys`` view."""
        return dict.keys(self._modules)

    def values(self) -> ValuesView[Module]:
        """The modules, a live ``dict_values`` view."""
        return dict.values(self._modules)

    def items(self) -> ItemsView[str, Module]:
        """``(key, module)`` pairs, a live ``dict_items`` view."""
        return dict.items(self._modules)

    def update(self, modules: Any) -> None:
        """Add (or replace) modules from a mapping, a ``ModuleDict`` or an iterable of
        ``(key, module)`` pairs, in their order."""
        for key, module in _pairs(modules, "ModuleDict", (Mapping, ModuleDict)):
            self[key] = module


def _describe(p: Any, kind: Any) -> str:
    """PyTorch's one-line description of a container's parameter: ``Parameter containing:
    [torch.float32 of size 2x3]``."""
    size = "x".join(str(n) for n in p.shape)
    return f"{type(p).__name__} containing: [{kind} of size {size}]"


class ParameterList(Module):
    """A list of parameters, registered as ``0``, ``1``, ..."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx: int) -> Parameter:
        return self._parameters[str(_index(idx, self._size, "ParameterList"))]

    def __setitem__(self, idx: int, param: Any) -> None:
        idx = _index(idx, self._size, "ParameterList")
        self.register_parameter(str(idx), param if isinstance(param, Parameter)
                                else Parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Parameter]:
        return (self[i] for i in range(self._size))

    def append(self, value: Any) -> ParameterList:
        """Add a parameter (a plain tensor is wrapped in ``Parameter``)."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add several parameters."""
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        """One line per parameter: its dtype and size."""
        return "\n".join(f"  ({i}): {_describe(p, p.dtype)}" for i, p in enumerate(self))


class ParameterDict(Module):
    """An ordered dict of parameters registered under their keys, as PyTorch's: a tensor is
    wrapped in ``Parameter``, any other value is kept as a plain attribute; a plain ``dict``
    given to the constructor or ``update`` is added in sorted key order."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    @staticmethod
    def _key_to_attr(key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError("Index given to ParameterDict cannot be used as a key as it is not a "
                            f"string (type is '{type(key).__name__}'). Open an issue on github "
                            "if you need non-string keys.")
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        attr = self._key_to_attr(key)
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        setattr(self, attr, value)
        self._keys[key] = None  # after the checks: a refused key is not left behind

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def copy(self) -> ParameterDict:
        """A new ParameterDict holding the same parameters (not copies of them)."""
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any = None) -> Any:
        """The value at ``key``, after setting it to ``default`` when absent."""
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self) -> None:
        """Remove every entry."""
        for key in self._keys.copy():
            del self[key]

    def pop(self, key: str) -> Any:
        """Remove and return the value at ``key``."""
        value = self[key]
        del self[key]
        return value

    def popitem(self) -> tuple[str, Any]:
        """Remove and return the last ``(key, value)`` pair."""
        key, _ = self._keys.popitem()
        self._keys[key] = None
        value = self[key]
        del self[key]
        return key, value

    def get(self, key: str, default: Any = None) -> Any:
        """The value at ``key``, or ``default`` when absent."""
        return self[key] if key in self else default

    def fromkeys(self, keys: Iterable[str], default: Any = None) -> ParameterDict:
        """A new ParameterDict with each of ``keys`` set to ``default``."""
        return ParameterDict((k, default) for k in keys)

    def keys(self) -> KeysView[str]:
        """The keys, a live ``dict_keys`` view."""
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """``(key, value)`` pairs, one at a time (a generator, as PyTorch's)."""
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The values, one at a time (a generator, as PyTorch's)."""
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        """Add (or replace) entries from an ``OrderedDict``/``ParameterDict`` (in order), another
        mapping (in sorted key order) or an iterable of ``(key, value)`` pairs."""
        if isinstance(parameters, Mapping) and not isinstance(parameters, OrderedDict):
            pairs: Iterable[tuple[Any, Any]] = sorted(parameters.items())
        else:
            pairs = _pairs(parameters, "ParameterDict", (OrderedDict, ParameterDict))
        for key, value in pairs:
            self[key] = value

    def extra_repr(self) -> str:
        """One line per entry: a tensor's type and size, or the type of any other object."""
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                lines.append(f"  ({k}): {_describe(p, p.type())}")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def __or__(self, other: ParameterDict) -> ParameterDict:
        merged = self.copy()
        merged.update(other)
        return merged

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        merged = other.copy()
        merged.update(self)
        return merged

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
