"""``tl.compiler`` (PyTorch's ``torch.compiler``): ``tl.compile`` traces a call once and replays
it as straight-line NumPy (see ``api.py``); ``is_compiling`` says whether a trace is running.

Eager code never imports this package; it sits above every other layer.
"""

from typing import Any

from .._core.tracing import is_compiling
from .api import CompiledFunction, GraphBreakError, OptimizedModule, compile
from .ir import Graph

__all__ = ["compile", "CompiledFunction", "OptimizedModule", "GraphBreakError", "Graph",
           "is_compiling", "reset", "disable"]


def reset() -> None:
    """PyTorch's cache reset: compiled functions here keep their caches on themselves, so there
    is nothing global to clear."""


def disable(fn: Any = None, recursive: bool = True) -> Any:
    """Run ``fn`` eagerly (a no-op decorator here: only the function given to ``tl.compile`` is
    traced)."""
    return (lambda f: f) if fn is None else fn
