"""``tl.compiler`` (PyTorch's ``torch.compiler``): ``tl.compile`` traces a call once and replays
it as straight-line NumPy, runs of elementwise ops fused into generated numba loop kernels (see
``api.py``, ``loop_fusion.py``); ``is_compiling`` says whether a trace is running.

Eager code never imports this package; it sits above every other layer.
"""

from typing import Any

from .._core.tracing import is_compiling
from .api import CompiledFunction, GraphBreakError, OptimizedModule, compile, reset
from .ir import Graph

__all__ = ["compile", "CompiledFunction", "OptimizedModule", "GraphBreakError", "Graph",
           "is_compiling", "is_dynamo_compiling", "reset", "disable", "allow_in_graph",
           "assume_constant_result", "cudagraph_mark_step_begin"]

is_dynamo_compiling = is_compiling  # PyTorch's other name for it


def allow_in_graph(fn: Any) -> Any:
    """PyTorch's hint to put ``fn`` in the graph whole: the tracer here follows every call into
    its NumPy operations anyway, so ``fn`` is returned as it is."""
    return fn


def assume_constant_result(fn: Any) -> Any:
    """PyTorch's hint that ``fn``'s result never changes: returned as it is (a value the
    traced call reads is guarded or checked here)."""
    return fn


def cudagraph_mark_step_begin() -> None:
    """A CUDA-graphs step marker: nothing to mark on the CPU."""


def disable(fn: Any = None, recursive: bool = True) -> Any:
    """Run ``fn`` eagerly (a no-op decorator here: only the function given to ``tl.compile`` is
    traced)."""
    return (lambda f: f) if fn is None else fn
