"""Whole Python objects in a checkpoint (``tl.save(model, path)``), as ``torch.save`` allows, with
``torch.load``'s safety rules since PyTorch 2.6. The pickle is stored as one uint8 tensor of the
safetensors file (the file stays readable by safetensors tools). Loading it with
``weights_only=True`` (the default) unpickles through an allowlist: tensors, arrays and plain
containers rebuild, and any other class or function must have been allowed by the caller
(``add_safe_globals`` / ``safe_globals``), since unpickling an arbitrary global can run
arbitrary code; ``weights_only=False`` unpickles everything, for files the caller trusts."""

from __future__ import annotations

import _compat_pickle
import importlib
import io
import pickle
import pickletools
from collections.abc import Callable
from types import ModuleType
from typing import Any

import numpy as np

from .._core.moved_modules import MOVED

__all__ = ["PICKLE_KEY", "pickled", "unpickled", "add_safe_globals", "clear_safe_globals",
           "get_safe_globals", "safe_globals", "unsafe_globals", "is_allowed", "find_allowed"]

PICKLE_KEY = "__pickle__"  # the tensor holding the pickle's bytes

# What a tensor, a Parameter, a NumPy array and the plain containers need to rebuild: enough for
# a state dict or a tensor pickled whole, nothing that can run code of the file's choosing.
_DEFAULT_SAFE = frozenset({
    "builtins.set", "builtins.frozenset", "builtins.complex", "builtins.slice",
    "builtins.bytearray", "_codecs.encode", "collections.OrderedDict",
    "numpy.dtype", "numpy.ndarray", "numpy._core.multiarray._reconstruct",
    "numpy.core.multiarray._reconstruct", "numpy._core.multiarray.scalar",
    "numpy.core.multiarray.scalar",
    "tinygrad_lite._tensor.pickling.rebuild_tensor", "tinygrad_lite.tensor.Tensor",
    "tinygrad_lite.Tensor",
    "tinygrad_lite.nn.parameter.Parameter", "tinygrad_lite.nn.parameter.Buffer",
    "tinygrad_lite._core.size.Size", "tinygrad_lite.Size",  # older files: the former path
})
_user_safe: dict[str, Any] = {}  # "module.qualname" -> the allowed object


def _key(entry: Any) -> tuple[str, Any]:
    """("module.qualname", object) of an allowlist entry: an object or (object, "module.name")."""
    if isinstance(entry, tuple):
        obj, name = entry
        return str(name), obj
    module = getattr(entry, "__module__", None)
    qualname = getattr(entry, "__qualname__", None)
    if not module or not qualname:
        raise TypeError(f"add_safe_globals: expected classes or functions (or (object, "
                        f"'module.name') pairs), got {entry!r}")
    return f"{module}.{qualname}", entry


def add_safe_globals(safe_globals: list) -> None:
    """Allow these classes and functions in ``weights_only`` loads from now on."""
    _user_safe.update(_key(entry) for entry in safe_globals)


def clear_safe_globals() -> None:
    """Forget every global ``add_safe_globals`` allowed."""
    _user_safe.clear()


def get_safe_globals() -> list:
    """The globals the caller has allowed (beyond the built-in tensor and container ones)."""
    return list(_user_safe.values())


class safe_globals:  # noqa: N801 - PyTorch's name
    """Allow ``safe_globals`` in ``weights_only`` loads inside a ``with`` block only."""

    def __init__(self, safe_globals: list) -> None:
        self.entries = dict(_key(entry) for entry in safe_globals)
        self.before: dict[str, Any] = {}

    def __enter__(self) -> safe_globals:
        self.before = dict(_user_safe)
        _user_safe.update(self.entries)
        return self

    def __exit__(self, *exc: Any) -> None:
        _user_safe.clear()
        _user_safe.update(self.before)


def _normalised(module: str, name: str) -> tuple[str, str]:
    """Protocol-2 pickles name Python 2 modules (``__builtin__``): the Python 3 ones."""
    module, name = _compat_pickle.NAME_MAPPING.get((module, name), (module, name))
    return _compat_pickle.IMPORT_MAPPING.get(module, module), name


class _WeightsUnpickler(pickle.Unpickler):
    """An unpickler that resolves only allowed globals."""

    def find_class(self, module: str, name: str) -> Any:
        """The allowed global ``module.name``; ``pickle.UnpicklingError`` for any other."""
        return find_allowed(*_normalised(module, name))


def _current_path(module: str, name: str) -> tuple[str, str]:
    """Where a global that a file names by a module path gone since it was saved lives now
    (``_core/moved_modules.py``), so the allowlists are checked against today's paths."""
    if module not in MOVED:
        return module, name
    found = getattr(importlib.import_module(MOVED[module]), name, None)
    if found is None or not hasattr(found, "__qualname__"):
        return module, name
    return found.__module__, found.__qualname__


def find_allowed(module: str, name: str) -> Any:
    """The global ``module.name`` if the allowlist has it; ``pickle.UnpicklingError`` naming it
    and the ways to allow it otherwise."""
    module, name = _current_path(module, name)
    key = f"{module}.{name}"
    if key in _user_safe:
        return _user_safe[key]
    if key in _DEFAULT_SAFE:
        target: Any = importlib.import_module(module)
        for part in name.split("."):
            target = getattr(target, part)
        return target
    raise pickle.UnpicklingError(
        f"Weights only load failed: the file needs the global {key}, which is not allowed "
        f"by default (unpickling a class or function can run arbitrary code). If you trust "
        f"this class or function, allow it with tl.serialization.add_safe_globals([{name}]) "
        f"or inside `with tl.serialization.safe_globals([{name}]):`; if you trust the whole "
        "file, load it with weights_only=False.")


def pickled(obj: Any, pickle_module: ModuleType | None, protocol: int) -> np.ndarray:
    """The bytes of ``obj`` pickled (by ``pickle_module``, the standard one by default) as a
    uint8 array; pickling errors (a lambda, a local class) propagate as PyTorch's do."""
    module = pickle if pickle_module is None else pickle_module
    return np.frombuffer(module.dumps(obj, protocol=protocol), dtype=np.uint8)


def unpickled(payload: np.ndarray, name: str, weights_only: bool | None,
              pickle_module: ModuleType | None, load_args: dict) -> Any:
    """The object ``pickled`` stored: through the allowlist unless ``weights_only=False``."""
    data = payload.tobytes()
    if weights_only is False:
        module = pickle if pickle_module is None else pickle_module
        return module.loads(data, **load_args)
    try:
        return _WeightsUnpickler(io.BytesIO(data), **load_args).load()
    except pickle.UnpicklingError as err:
        raise pickle.UnpicklingError(f"load: '{name}': {err}") from None


def pickled_globals(payload: np.ndarray) -> list[str]:
    """Every "module.name" global the pickle refers to, in order of first use."""
    found: list[str] = []
    strings: list[str] = []
    for op, arg, _ in pickletools.genops(payload.tobytes()):
        if op.name == "GLOBAL":
            module, _, name = str(arg).partition(" ")
            found.append(".".join(_normalised(module, name)))
        elif op.name == "STACK_GLOBAL" and len(strings) >= 2:
            found.append(".".join(_normalised(strings[-2], strings[-1])))
        if isinstance(arg, str):
            strings.append(arg)
    return list(dict.fromkeys(found))


def unsafe_globals(payload: np.ndarray, allowed: Callable[[str], bool]) -> list[str]:
    """The globals of the pickle a ``weights_only`` load would refuse."""
    return [key for key in pickled_globals(payload) if not allowed(key)]


def is_allowed(key: str) -> bool:
    """Whether a ``weights_only`` load resolves the global ``key`` now."""
    return key in _DEFAULT_SAFE or key in _user_safe
