"""PyTorch's ``torch.nn.modules.container``: Sequential, ModuleList, ModuleDict, ParameterList,
ParameterDict."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import ItemsView, Iterable, Iterator, KeysView, Mapping, ValuesView
from typing import Any

from ...tensor import Tensor
from ..parameter import Parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _index(idx: Any, n: int) -> int:
    """``idx`` (anything ``operator.index`` accepts) as a position in ``0..n-1``; PyTorch's
    IndexError otherwise."""
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


def _renumbered(modules: Iterable[Module | None]) -> OrderedDict[str, Module | None]:
    """The modules keyed ``0``, ``1``, ... (a list container after a deletion)."""
    return OrderedDict((str(i), m) for i, m in enumerate(modules))


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

    def _key(self, idx: Any) -> str:
        return list(self._modules)[_index(idx, len(self))]

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)[idx] if isinstance(idx, slice) else [self._key(idx)]
        for key in keys:
            delattr(self, key)
        # keep the numbering contiguous, as PyTorch does (even for an OrderedDict's names)
        self._modules = _renumbered(self._modules.values())

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, module: Module) -> Sequential:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, sequential: Iterable[Module]) -> Sequential:
        """Add several modules at the end."""
        for layer in sequential:
            self.append(layer)
        return self

    def insert(self, index: int, module: Module) -> Sequential:
        """Put ``module`` before position ``index`` (``len(self)`` appends; negative counts from
        the end); the later modules move up one name."""
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        for i in range(n, index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module (or the Sequential of modules) at ``key``."""
        taken = self[key]
        del self[key]
        return taken

    def __add__(self, other: Sequential) -> Sequential:
        """A new Sequential of this one's modules then ``other``'s (the same module objects)."""
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(list(other)):
            self.add_module(str(i + offset), module)
        return self

    def _check_factor(self, times: Any) -> None:
        if not isinstance(times, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and "
                            f"{type(times)}")
        if times <= 0:
            raise ValueError(f"Non-positive multiplication factor {times} for {type(self)}")

    def __mul__(self, times: int) -> Sequential:
        """A new Sequential repeating the modules ``times`` times (the same module objects, so
        the repeats share parameters, as in PyTorch)."""
        self._check_factor(times)
        return Sequential(*(list(self) * times))

    def __rmul__(self, times: int) -> Sequential:
        return self.__mul__(times)

    def __imul__(self, times: int) -> Sequential:
        self._check_factor(times)
        n = offset = len(self)
        for _ in range(times - 1):  # by numeric name, as PyTorch (named children: KeyError)
            for i in range(n):
                self.add_module(str(i + offset), self._modules[str(i)])
            offset += n
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
        return self._modules[str(_index(idx, len(self)))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_index(idx, len(self))), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_index(idx, len(self))))
        self._modules = _renumbered(self._modules.values())  # keep the numbering contiguous

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> ModuleList:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        """A new ModuleList of this one's modules then ``other``'s (the same objects)."""
        combined = ModuleList()
        for i, module in enumerate([*self, *other]):
            combined.add_module(str(i), module)
        return combined

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def append(self, module: Module) -> ModuleList:
        """Add ``module`` at the end."""
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> ModuleList:
        """Add several modules at the end."""
        if not isinstance(modules, Iterable):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            f"{type(modules).__name__}")
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module (or the ModuleList of modules) at ``key``."""
        taken = self[key]
        del self[key]
        return taken

    def __repr__(self) -> str:
        """PyTorch's compressed form: a run of children with the same repr is printed once,
        as ``(0-2): 3 x Linear(...)``."""
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs: list[list[Any]] = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2)
                 for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index`` (PyTorch's shifting of the later
        entries, so a negative ``index`` fails with its KeyError)."""
        for i in range(len(self._modules), index, -1):
            self._modules[str(i)] = self._modules[str(i - 1)]
        self._modules[str(index)] = module


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
    """A list of parameters, registered as ``0``, ``1``, ...: a tensor is wrapped in
    ``Parameter``, any other value (None included) is kept as a plain attribute, as in
    PyTorch."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            out = type(self)()
            for i in range(*idx.indices(len(self))):
                out.append(self[i])
            return out
        return getattr(self, str(_index(idx, self._size)))

    def __setitem__(self, idx: int, param: Any) -> None:
        if isinstance(param, Tensor) and not isinstance(param, Parameter):
            param = Parameter(param)
        setattr(self, str(_index(idx, self._size)), param)

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return (self[i] for i in range(self._size))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def __dir__(self) -> list:
        return [key for key in super().__dir__() if not key.isdigit()]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")

    def append(self, value: Any) -> ParameterList:
        """Add a value (a plain tensor is wrapped in ``Parameter``)."""
        self._size += 1
        self[self._size - 1] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        """Add several values."""
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            f"{type(values).__name__}")
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        """One line per entry: a tensor's kind, dtype and size, or any other object's type."""
        lines = []
        for i, p in enumerate(self):
            if isinstance(p, Tensor):
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                size = "x".join(str(n) for n in p.shape)
                lines.append(f"  ({i}): {kind} containing: [{p.dtype} of size {size}]")
            else:
                lines.append(f"  ({i}): Object of type: {type(p).__name__}")
        return "\n".join(lines)


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
