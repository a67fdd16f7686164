"""Compiled loop kernels: which backend runs the hot ops, and loading a family of kernels.

Two backends compute the same results:

- ``"numpy"``: the reference. Every op's NumPy code, readable, always available.
- ``"numba"``: loops compiled by numba (the optional ``jit`` extra) for the ops where one fused
  pass over memory beats a chain of whole-array NumPy passes. Chosen by default when numba
  imports; ``TINYGRAD_LITE_KERNELS=numpy`` in the environment (or ``set_backend("numpy")``)
  forces the reference.

An op asks for its family with ``family("activation")``: the family's module, compiled and
cached on disk (see ``cache.py``), or ``None`` when the reference path must run. Kernel sources
live in ``tinygrad_lite/_kernels/source/``; they are plain numba code that is never imported from
the package itself, only loaded from a copy in the kernel cache.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from .._core.warnings import warn
from . import cache, threads

__all__ = ["BACKENDS", "backend", "set_backend", "use_backend", "family", "available",
           "SOURCE_DIR"]

BACKENDS = ("numba", "numpy")
SOURCE_DIR = Path(__file__).resolve().parent / "source"

_ENV = "TINYGRAD_LITE_KERNELS"
# "environment": the backend TINYGRAD_LITE_KERNELS asks for, read once (hot paths ask for the
# backend per call; os.environ costs a microsecond) and again after set_backend(None)
_state: dict = {"requested": None, "available": None, "families": {}, "environment": None}


def available() -> bool:
    """Whether numba can be imported (looked for once, without importing it)."""
    if _state["available"] is None:
        _state["available"] = importlib.util.find_spec("numba") is not None
    return bool(_state["available"])


def _requested() -> str:
    if _state["requested"] is not None:
        return str(_state["requested"])
    if _state["environment"] is None:
        value = os.environ.get(_ENV, "numba").strip().lower() or "numba"
        if value not in BACKENDS:
            raise ValueError(f"{_ENV}={value!r}: expected one of {', '.join(BACKENDS)}")
        _state["environment"] = value
    return str(_state["environment"])


def backend() -> str:
    """The backend the hot ops use now: ``"numba"`` or ``"numpy"``."""
    return "numba" if _requested() == "numba" and available() else "numpy"


def set_backend(name: str | None) -> None:
    """Use ``name`` (``"numba"`` or ``"numpy"``) from now on; ``None`` goes back to what the
    environment asks for (read again now). Asking for numba where it is not installed keeps
    the reference."""
    if name is not None and name not in BACKENDS:
        raise ValueError(f"set_backend: expected one of {', '.join(BACKENDS)} or None, "
                         f"got {name!r}")
    _state["requested"] = name
    if name is None:
        _state["environment"] = None  # read the environment again


@contextlib.contextmanager
def use_backend(name: str) -> Iterator[None]:
    """Run the block with backend ``name``, then restore the previous choice."""
    previous = _state["requested"]
    set_backend(name)
    try:
        yield
    finally:
        _state["requested"] = previous


def family(name: str) -> ModuleType | None:
    """The compiled kernel family ``name`` (``source/<name>.py``) when the numba backend is on,
    else ``None``. Loaded once per process; a family that fails to load is reported once and
    the reference path is used from then on."""
    if _state["requested"] == "numpy" or backend() != "numba":  # (the first test: hot paths)
        return None
    families = _state["families"]
    if name not in families:
        try:
            families[name] = cache.load_source(name, (SOURCE_DIR / f"{name}.py").read_text())
        except Exception as error:  # a broken install or cache must not stop the reference path
            warn(f"tinygrad_lite: the compiled kernels '{name}' could not be loaded "
                 f"({type(error).__name__}: {error}); using the NumPy reference for them",
                 RuntimeWarning)
            families[name] = None
        threads.sync_numba_threads()
    return families[name]
