"""PyTorch's ``torch.nn.modules.container``: Sequential, ModuleList, ModuleDict, ParameterList,
ParameterDict."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator
from typing import Any

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


class ModuleDict(Module):
    """A dict of modules whose parameters are registered under their keys."""

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

    def __contains__(self, key: str) -> bool:
        return key in self._modules

    def keys(self) -> Iterable[str]:
        """The keys."""
        return self._modules.keys()

    def values(self) -> Iterable[Module]:
        """The modules."""
        return self._modules.values()

    def items(self) -> Iterable[tuple[str, Module]]:
        """``(key, module)`` pairs."""
        return self._modules.items()

    def update(self, modules: Any) -> None:
        """Add modules from a mapping or an iterable of pairs."""
        pairs = modules.items() if hasattr(modules, "items") else modules
        for key, module in pairs:
            self.add_module(key, module)

    def pop(self, key: str) -> Module:
        """Remove and return the module at ``key``."""
        return self._modules.pop(key)


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
    """A dict of parameters, registered under their keys."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        if parameters is not None:
            pairs = parameters.items() if hasattr(parameters, "items") else parameters
            for k, v in pairs:
                self[k] = v

    def __getitem__(self, key: str) -> Parameter:
        return self._parameters[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.register_parameter(key, value if isinstance(value, Parameter) else Parameter(value))

    def __len__(self) -> int:
        return len(self._parameters)

    def __iter__(self) -> Iterator[str]:
        return iter(self._parameters)

    def keys(self) -> Iterable[str]:
        """The keys."""
        return self._parameters.keys()

    def extra_repr(self) -> str:
        """One line per parameter: its tensor type and size."""
        return "\n".join(f"  ({k}): {_describe(p, p.type())}" for k, p in self.items())

    def values(self) -> Iterable[Parameter]:
        """The parameters."""
        return self._parameters.values()

    def items(self) -> Iterable[tuple[str, Parameter]]:
        """``(key, parameter)`` pairs."""
        return self._parameters.items()
