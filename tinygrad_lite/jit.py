"""``torch.jit`` as PyTorch runs it with its JIT disabled (``PYTORCH_JIT=0``): there is no
TorchScript here, so ``script`` and ``trace`` return the function or module itself, which runs
eagerly with the same results, and the decorators that steer the script compiler (``ignore``,
``unused``, ``export``, ``interface``, ``script_method``) leave what they decorate as it is.
Programs that script a model for speed or tidiness run unchanged; for a traced replay without
Python overhead, use ``tl.compile``.

``jit.save``/``jit.load`` keep a module whole (pickled, as ``torch.save(model)``), so a program
that saves its scripted model and loads it back runs; a TorchScript archive PyTorch wrote holds
compiled code this package cannot run, and loading one raises, naming the alternative (the
``state_dict``).
"""

from __future__ import annotations

import builtins
import io
import types
import typing
import zipfile
from collections.abc import Callable
from typing import Any

from . import serialization as _serialization
from .nn.modules.module import Module

__all__ = ["script", "trace", "trace_module", "is_scripting", "is_tracing", "ignore", "unused",
           "export", "interface", "script_method", "annotate", "Final", "Attribute", "fork",
           "wait", "Future", "freeze", "optimize_for_inference", "save", "load",
           "ScriptModule", "ScriptFunction", "RecursiveScriptModule", "TracerWarning",
           "TracingCheckError", "Error", "enable_onednn_fusion", "onednn_fusion_enabled",
           "set_fusion_strategy", "optimized_execution", "fuser", "isinstance"]

Final = typing.Final


class TracerWarning(Warning):
    """PyTorch's warning for a trace that may not generalise (never raised here: nothing is
    traced); programs filter it by name."""


class TracingCheckError(Exception):
    """PyTorch's error for a trace whose re-run disagreed (never raised here)."""


class Error(RuntimeError):
    """``torch.jit.Error``: raised by TorchScript code (here, by the archive functions)."""


class ScriptModule(Module):
    """The base class of scripted modules; subclasses work as plain modules here."""


RecursiveScriptModule = ScriptModule


class ScriptFunction:
    """The type of a scripted function (``script`` returns the function itself here, so
    nothing is an instance of it)."""


def script(obj: Any, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> Any:
    """``obj`` itself (a function, module or class): it runs eagerly, with the results a
    script of it gives."""
    return obj


def trace(func: Any, example_inputs: Any = None, optimize: Any = None,
          check_trace: bool = True, check_inputs: Any = None, check_tolerance: float = 1e-5,
          strict: bool = True, _force_outplace: bool = False, _module_class: Any = None,
          _compilation_unit: Any = None, example_kwarg_inputs: Any = None,
          _store_inputs: bool = True) -> Any:
    """``func`` itself (a function or module): it runs eagerly, so unlike a trace it also
    follows data-dependent control flow."""
    return func


def trace_module(mod: Module, inputs: dict, optimize: Any = None, check_trace: bool = True,
                 check_inputs: Any = None, check_tolerance: float = 1e-5, strict: bool = True,
                 _force_outplace: bool = False, _module_class: Any = None,
                 _compilation_unit: Any = None, example_inputs_is_kwarg: bool = False,
                 _store_inputs: bool = True) -> Module:
    """``mod`` itself (see ``trace``)."""
    return mod


def is_scripting() -> bool:
    """False: code never runs as TorchScript here."""
    return False


def is_tracing() -> bool:
    """False: ``trace`` records nothing here."""
    return False


def ignore(drop: Any = False, **kwargs: Any) -> Any:
    """Leave a function to Python (as every function is here); usable with or without
    arguments."""
    if callable(drop):
        return drop
    return lambda fn: fn


def unused(fn: Callable) -> Callable:
    """Mark a method the script compiler should skip: it stays callable here."""
    return fn


def export(fn: Callable) -> Callable:
    """Mark a method to compile besides ``forward``: nothing to do here."""
    return fn


def interface(obj: Any) -> Any:
    """Declare a TorchScript interface class: the class itself."""
    return obj


def script_method(fn: Callable) -> Callable:
    """A method of a ``ScriptModule`` subclass: the method itself."""
    return fn


def annotate(the_type: Any, the_value: Any) -> Any:
    """Give TorchScript a value's type: ``the_value`` unchanged."""
    return the_value


def Attribute(value: Any, type: Any = None) -> Any:  # noqa: N802, A002 - PyTorch's names
    """Declare a ``ScriptModule`` attribute's type: ``value`` unchanged."""
    return value


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001 - PyTorch's name
    """``torch.jit.isinstance`` for container types written with typing (``List[int]``,
    ``Dict[str, Tensor]``, ``Optional[...]``): checks the elements too."""
    origin = typing.get_origin(target_type)
    if target_type is Any:
        return True
    if origin is None:
        return builtins.isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union or origin is types.UnionType:
        return any(isinstance(obj, a) for a in args)
    if not builtins.isinstance(obj, origin):
        return False
    if origin in (list, set, frozenset) and args:
        return all(isinstance(v, args[0]) for v in obj)
    if origin is tuple and args:
        if len(args) == 2 and args[1] is Ellipsis:
            return all(isinstance(v, args[0]) for v in obj)
        return len(obj) == len(args) and all(isinstance(v, a) for v, a in zip(obj, args))
    if origin is dict and args:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    return True


class Future:
    """The result of ``fork``: the call already ran (there is no interpreter thread pool)."""

    def __init__(self, value: Any) -> None:
        self._value = value

    def wait(self) -> Any:
        """The call's result."""
        return self._value

    def done(self) -> bool:
        """True: the call ran at ``fork``."""
        return True


def fork(func: Callable, *args: Any, **kwargs: Any) -> Future:
    """Run ``func(*args, **kwargs)`` and return a ``Future`` holding its result."""
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    """The result of a ``fork``."""
    return future.wait()


def freeze(mod: Module, preserved_attrs: Any = None, optimize_numerics: bool = True) -> Module:
    """Inline a scripted module's parameters: the module itself here (in eval mode, as
    PyTorch requires for freezing)."""
    if mod.training:
        raise RuntimeError("Freezing is currently only implemented for modules in eval mode. "
                           "Please call .eval() on your module before freezing.")
    return mod


def optimize_for_inference(mod: Module, other_methods: Any = None) -> Module:
    """``freeze`` for inference: the module itself, put in eval mode."""
    return mod.eval()


_ARCHIVE_KEY = "__tinygrad_lite_jit__"  # marks what ``save`` wrote


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Save a scripted or traced module (here the module itself) with its ``_extra_files``
    (name -> str or bytes), for ``tl.jit.load``: the whole module pickled into a ``tl.save``
    file, as ``torch.save(model)`` does. Not a TorchScript archive: loading needs the module's
    classes importable, and PyTorch's ``torch.jit.load`` cannot read it."""
    if not isinstance(m, Module):
        raise Error(f"tl.jit.save: expected a scripted or traced module, got "
                    f"{type(m).__name__}")
    _serialization.save({_ARCHIVE_KEY: 1, "module": m,
                         "extra_files": dict(_extra_files or {})}, f)


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool =
         False) -> Any:
    """The module ``tl.jit.save`` wrote (``_extra_files``, a dict of names, gets their
    contents), or one ``torch.save``/``tl.save`` pickled whole. A TorchScript archive (PyTorch's
    compiled code) raises: it needs PyTorch's JIT to run."""
    if hasattr(f, "read"):
        raw = f.read()
    else:
        with open(f, "rb") as handle:
            raw = handle.read()
    if _is_torchscript(raw):
        raise Error("tl.jit.load: a TorchScript archive holds compiled PyTorch code, which "
                    "tinygrad_lite cannot run; save the weights in PyTorch with "
                    "torch.save(model.state_dict(), f), then tl.load them and call "
                    "model.load_state_dict")
    obj = _serialization.load(io.BytesIO(raw), map_location=map_location, weights_only=False)
    if isinstance(obj, dict) and obj.get(_ARCHIVE_KEY):
        if _extra_files is not None:
            for name in _extra_files:
                if name in obj["extra_files"]:
                    _extra_files[name] = obj["extra_files"][name]
        obj = obj["module"]
    if not isinstance(obj, Module):
        raise Error(f"tl.jit.load: the file holds a {type(obj).__name__}, not a module; load "
                    "it with tl.load")
    return obj


def _is_torchscript(raw: bytes) -> bool:
    """Whether ``raw`` is a TorchScript zip archive (it has compiled ``code/`` in it)."""
    if not raw.startswith(b"PK"):
        return False
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            return any("/code/" in name or name.startswith("code/")
                       or name.endswith("constants.pkl") for name in archive.namelist())
    except zipfile.BadZipFile:
        return False


_fusion: dict[str, Any] = {"onednn": False, "strategy": [("STATIC", 2), ("DYNAMIC", 10)]}


def enable_onednn_fusion(enabled: bool) -> None:
    """Remembered (there is no fuser)."""
    _fusion["onednn"] = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """What ``enable_onednn_fusion`` was given."""
    return bool(_fusion["onednn"])


def set_fusion_strategy(strategy: list) -> list:
    """Remembered; returns the previous strategy, as PyTorch does."""
    previous, _fusion["strategy"] = _fusion["strategy"], list(strategy)
    return previous


class optimized_execution:  # noqa: N801 - PyTorch's name
    """A context manager switching the JIT's optimisations (nothing to switch here)."""

    def __init__(self, should_optimize: bool) -> None:
        self.should_optimize = should_optimize

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


class fuser(optimized_execution):  # noqa: N801 - PyTorch's name
    """A context manager choosing the JIT's fuser (there is none here)."""

    def __init__(self, name: str) -> None:
        super().__init__(True)
        self.name = name
