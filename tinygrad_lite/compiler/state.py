"""What a compiled function can see, and the guards that say a replay is still valid.

A Python function reaches its state through its closure, the globals it names, ``self`` for a
method, and its arguments. ``StateWalk`` follows those into modules, optimizers, containers and
plain objects (their ``__dict__``), and records, as Python expressions over those roots:
- every tensor (parameters, buffers, optimizer state, data captured in a closure) and every
  array held in a container (an optimizer's scratch buffers): the trace swaps these for traced
  views, and the replay uses the same objects;
- every Python number, string and flag found on the way (``lr``, ``momentum``,
  ``module.training``), every container's length, every tensor's identity, ``requires_grad``
  and whether its ``.grad`` is set.
All of it together is the guard: one generated boolean expression checked before each replay,
PyTorch's guards on the frame's state. After the traced call, the same expressions tell whether
the function changed Python state, which a replay could not reproduce.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase
from ..functions.generator import Generator

__all__ = ["StateWalk", "MAX_ITEMS"]

MAX_ITEMS = 4096  # a bigger container is guarded by identity and length only
_MAX_DEPTH = 24
_SCALARS = (bool, int, float, str, bytes, type(None), np.dtype, np.generic)
_HOOK_DICTS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks",
               "_optimizer_step_pre_hooks", "_optimizer_step_post_hooks")
_SKIP_TYPES = (types.ModuleType, type, types.BuiltinFunctionType, types.MethodWrapperType,
               types.WrapperDescriptorType, types.GetSetDescriptorType, property, set, frozenset)
# Module bookkeeping that a forward/backward never reads (state-dict and load hooks, the
# non-persistent set, the hook flavours that only matter when the hook dicts above are non-empty)
_UNREAD = {"_state_dict_hooks", "_state_dict_pre_hooks", "_load_state_dict_pre_hooks",
           "_load_state_dict_post_hooks", "_non_persistent_buffers_set",
           "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
           "_forward_pre_hooks_with_kwargs", "_optimizer_state_dict_pre_hooks",
           "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
           "_optimizer_load_state_dict_post_hooks", "_is_full_backward_hook"}
# Containers a Module never rebinds: their identity need not be checked on every call.
_FIXED = {"_parameters", "_buffers", "_modules"}
_FIXED_SUFFIXES = tuple(f".{name}" for name in _FIXED)


class StateWalk:
    """Everything reachable from a compiled function's roots, as guard expressions."""

    def __init__(self) -> None:
        self.checks: list[str] = []
        self.env: dict[str, Any] = {}
        self.tensors: list[tuple[TensorBase, str]] = []
        self.arrays: list[tuple[Any, Any, str]] = []  # (container, key, name)
        self.generators: list[Generator] = []
        # float hyper-parameters a replay reads on every call instead of guarding their value
        # (an optimizer's learning rate, which schedulers set): (dict, key, expression)
        self.scalars: list[tuple[dict, Any, str]] = []
        self._dynamic: dict[int, tuple] = {}  # id(param group dict) -> its dynamic keys
        self.problem: str | None = None
        self.labels: dict[int, str] = {}  # readable names of tensors and arrays: model.0.weight
        self._seen: set[int] = set()
        self._names: dict[int, str] = {}

    def const(self, obj: Any) -> str:
        """The guard's name for ``obj`` (bound in the guard's namespace)."""
        name = self._names.get(id(obj))
        if name is None:
            name = self._names[id(obj)] = f"K{len(self._names)}"
            self.env[name] = obj
        return name

    def replace(self, old: Any, new: Any, guard_globals: dict | None = None) -> None:
        """Make the guard expect ``new`` wherever it expected the object ``old`` (an array moved
        into an arena by ``fuse``); ``guard_globals``: a compiled guard's namespace."""
        name = self._names.pop(id(old), None)
        if name is None:
            return
        self._names[id(new)] = name
        self.env[name] = new
        if guard_globals is not None and name in guard_globals:
            guard_globals[name] = new

    # -- roots ---------------------------------------------------------------------------
    def function(self, fn: Any, depth: int = 0) -> None:
        """The state ``fn`` reaches: closure cells, the globals its code names, ``self``."""
        if isinstance(fn, types.MethodType):
            self.walk(fn.__self__, f"{self.const(fn)}.__self__", depth + 1, "self")
            fn = fn.__func__
        if isinstance(fn, functools.partial):
            self.walk(fn, self.const(fn), depth)
            return
        if not isinstance(fn, types.FunctionType) and callable(fn) and hasattr(fn, "__dict__"):
            self.walk(fn, self.const(fn), depth, "self")  # a callable object: its state and
            self.function(type(fn).__dict__.get("__call__"), depth + 1)  # its __call__
            return
        if not isinstance(fn, types.FunctionType) or id(fn) in self._seen:
            return
        self._seen.add(id(fn))
        library = bool(fn.__module__) and fn.__module__.startswith(("tinygrad_lite", "numpy"))
        wrapped = getattr(fn, "__wrapped__", None)
        if wrapped is not None:
            self.function(wrapped, depth + 1)
        names = _global_names(fn.__code__)
        for var, cell in zip(fn.__code__.co_freevars, fn.__closure__ or ()):
            try:
                contents = cell.cell_contents
            except ValueError:  # an empty cell (a name assigned later)
                continue
            self._module_attributes(contents, names, depth, var)
            self.walk(contents, f"{self.const(cell)}.cell_contents", depth + 1, var)
        if not library:  # default arguments hold state too (``def step(x, model=model)``)
            defaults = fn.__defaults__ or ()
            code = fn.__code__
            arg_names = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
            for i, (var, value) in enumerate(zip(arg_names, defaults)):
                self.walk(value, f"{self.const(fn)}.__defaults__[{i}]", depth + 1, var)
            for var, value in (fn.__kwdefaults__ or {}).items():
                self.walk(value, f"{self.const(fn)}.__kwdefaults__[{var!r}]", depth + 1, var)
        if library:  # a decorator's wrapper: what it wraps matters, not the package's globals
            return
        globals_name = self.const(fn.__globals__)
        for name in names:
            if name in fn.__globals__:
                value = fn.__globals__[name]
                if isinstance(value, types.FunctionType):
                    self.function(value, depth + 1)
                self._module_attributes(value, names, depth, name)
                self.walk(value, f"{globals_name}[{name!r}]", depth + 1, name)

    def _module_attributes(self, module: Any, names: list[str], depth: int, label: str) -> None:
        """For a module of the user's program (``models.net(x)``), walk the attributes the
        code names."""
        if not _user_module(module):
            return
        module_name = self.const(module)
        for attr in names:
            if attr in vars(module):
                value = vars(module)[attr]
                if isinstance(value, types.FunctionType):
                    self.function(value, depth + 1)
                self.walk(value, f"{module_name}.{attr}", depth + 1, f"{label}.{attr}")

    # -- the walk ------------------------------------------------------------------------
    def walk(self, obj: Any, expr: str, depth: int, label: str = "") -> None:
        """Record guards for ``obj`` (reached as ``expr``, called ``label``) and what it
        holds."""
        if isinstance(obj, _SCALARS):
            if isinstance(obj, float) and obj != obj:
                return  # NaN: equal to nothing, not guardable
            self.checks.append(f"{expr} is {self.const(obj)}" if obj is None or isinstance(
                obj, bool) else f"{expr} == {self.const(obj)}")
            return
        if isinstance(obj, (types.FunctionType, types.MethodType)):
            self.function(obj, depth + 1)  # a decorated or nested function: what it reaches
            return
        if isinstance(obj, functools.partial):
            self.function(obj.func, depth + 1)
            self.walk(obj.args, f"{self.const(obj)}.args", depth + 1)
            self.walk(obj.keywords, f"{self.const(obj)}.keywords", depth + 1)
            return
        if isinstance(obj, _SKIP_TYPES) or depth > _MAX_DEPTH or getattr(
                type(obj), "_compiler_internal", False):
            return  # (a compiled function's own cache is not state: its entries grow per trace)
        if not expr.endswith(_FIXED_SUFFIXES):
            self.checks.append(f"{expr} is {self.const(obj)}")
        if id(obj) in self._seen:
            return
        self._seen.add(id(obj))
        self.labels.setdefault(id(obj), label)
        name = self.const(obj)
        if isinstance(obj, TensorBase):
            self._tensor(obj, name)
        elif isinstance(obj, np.ndarray):
            pass  # reached through a container: recorded there
        elif isinstance(obj, Generator):
            self.generators.append(obj)
        elif isinstance(obj, (np.random.Generator, np.random.RandomState)):
            self.problem = self.problem or (f"a NumPy random generator ({label or name}) is "
                                            "reachable: a replay would repeat its numbers")
        elif isinstance(obj, (dict, list, tuple)):
            self._container(obj, name, depth, label)
        elif hasattr(obj, "__dict__"):
            self._object(obj, name, depth, label)

    def _tensor(self, t: TensorBase, name: str) -> None:
        if t._backward_hooks or t._post_accumulate_hooks:
            self.problem = self.problem or "a tensor has hooks (Python callables)"
        self.tensors.append((t, name))
        # the array's identity covers its shape and dtype; a replay keeps it (in-place updates)
        self.checks.append(f"{name}._data is {self.const(t._data)}")
        self.checks.append(f"{name}._requires_grad is {t._requires_grad}")
        if t.grad_fn is not None:
            self.checks.append(f"{name}.grad_fn is {self.const(t.grad_fn)}")
        self.checks.append(f"{name}._grad is None" if t._grad is None
                           else f"{name}._grad is not None")

    def _container(self, obj: Any, name: str, depth: int, label: str) -> None:
        if not obj:
            self.checks.append(f"not {name}")
            return
        self.checks.append(f"len({name}) == {len(obj)}")
        if len(obj) > MAX_ITEMS:
            return
        dynamic = self._dynamic.get(id(obj), ())
        items = obj.items() if isinstance(obj, dict) else enumerate(obj)
        for key, value in items:
            if isinstance(key, (str, int, float, tuple)) and _literal(key):
                item = f"{name}[{key!r}]"
            else:
                item = f"{name}[{self.const(key)}]"
            if key in dynamic and type(value) is float:
                self.checks.append(f"type({item}) is float")  # its value is read per call
                self.scalars.append((obj, key, item))
                continue
            sub = f"{label}[{self.labels.get(id(key), type(key).__name__)}]" if not (
                isinstance(key, (str, int))) else f"{label}.{key}" if label else str(key)
            if isinstance(value, np.ndarray) and not isinstance(value, np.generic) and \
                    not isinstance(obj, tuple):  # a tuple's arrays cannot be swapped for traced
                self.arrays.append((obj, key, item))
                self.labels.setdefault(id(value), sub)
            self.walk(value, item, depth + 1, sub)

    def _object(self, obj: Any, name: str, depth: int, label: str) -> None:
        attrs = vars(obj)
        dynamic = getattr(type(obj), "_dynamic_hyperparameters", ())
        if dynamic and isinstance(attrs.get("param_groups"), list):
            for group in attrs["param_groups"]:
                if isinstance(group, dict):
                    self._dynamic[id(group)] = tuple(dynamic)
        for hooks in _HOOK_DICTS:
            if attrs.get(hooks):
                self.problem = self.problem or (f"{type(obj).__name__}.{hooks} holds hooks "
                                                "(Python callables)")
        cls_attrs = type(obj).__dict__
        for key, value in list(attrs.items()):
            if not isinstance(key, str) or key in _UNREAD:
                continue
            if key in _HOOK_DICTS:
                self.checks.append(f"not {name}.{key}")
                continue
            if key.isidentifier() and key not in cls_attrs and not key.startswith("__"):
                item = f"{name}.{key}"
            else:
                item = f"{name}.__dict__[{key!r}]"
            sub = label if key in _FIXED else f"{label}.{key}" if label else key
            if isinstance(value, np.ndarray) and not isinstance(value, np.generic):
                self.arrays.append((attrs, key, item))
                self.labels.setdefault(id(value), sub)
            self.walk(value, item, depth + 1, sub)

    def guard_source(self) -> str:
        """The guard as one Python expression of ``grads``: ``True`` while the state is as
        traced; with ``grads`` false the gradients' checks are skipped (the traced call itself
        replaces gradients, so they are not what tells a call that changes state)."""
        state = [c for c in self.checks if "._grad" not in c]
        grads = [c for c in self.checks if "._grad" in c]
        source = " and ".join(f"({c})" for c in state) or "True"
        if grads:
            source += " and (not grads or (" + " and ".join(f"({c})" for c in grads) + "))"
        return source


def _user_module(obj: Any) -> bool:
    """A module of the user's program (not the standard library, NumPy, this package or an
    installed package), whose attributes a compiled function may reach."""
    if not isinstance(obj, types.ModuleType):
        return False
    name = obj.__name__.split(".")[0]
    path = getattr(obj, "__file__", None) or ""
    return bool(path) and name not in sys.stdlib_module_names and name not in (
        "tinygrad_lite", "numpy") and "site-packages" not in path


def _global_names(code: types.CodeType) -> list[str]:
    """The global names a code object (and the functions defined inside it) may read."""
    names = list(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names += _global_names(const)
    return list(dict.fromkeys(names))


def _literal(key: Any) -> bool:
    """Whether ``repr(key)`` evaluates back to an equal key."""
    if isinstance(key, tuple):
        return all(_literal(k) for k in key)
    if isinstance(key, float):
        return key == key and key not in (float("inf"), float("-inf"))
    return isinstance(key, (str, int))
