"""``tl._dynamo``: the names PyTorch programs use from ``torch._dynamo`` around ``torch.compile``
(its settings, ``reset``, ``explain``, the shape hints, ``graph_break``)."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ._core.tracing import report_graph_break
from .compiler import (
    CompiledFunction,
    OptimizedModule,
    allow_in_graph,
    compile,
    disable,
    is_compiling,
    reset,
)
from .compiler.config import config

__all__ = ["config", "reset", "explain", "ExplainOutput", "mark_dynamic", "mark_static",
           "maybe_mark_dynamic", "mark_static_address", "graph_break", "disable", "is_compiling",
           "allow_in_graph", "optimize", "run", "OptimizedModule"]


def mark_dynamic(t: Any, index: Any, min: int | None = None,  # noqa: A002 (PyTorch's names)
                 max: int | None = None) -> None:  # noqa: A002
    """PyTorch's hint that a dimension changes between calls: ``tl.compile`` specialises on
    every shape (a new size traces once more and keeps both), so there is nothing to mark."""


def maybe_mark_dynamic(t: Any, index: Any) -> None:
    """See ``mark_dynamic``."""


def mark_static(t: Any, index: Any = None) -> None:
    """PyTorch's hint that a dimension never changes: every shape is static here already."""


def mark_static_address(t: Any, guard: bool = True) -> None:
    """PyTorch's hint for CUDA graphs: nothing to do on the CPU."""


def graph_break() -> None:
    """Inside a compiled function: end the graph here, which for ``tl.compile`` means the
    function runs eagerly (with one warning; ``fullgraph=True`` raises). Outside: nothing."""
    report_graph_break("torch._dynamo.graph_break()")


def optimize(backend: Any = "inductor", *, nopython: bool = False, **options: Any
             ) -> Callable[[Callable], Any]:
    """PyTorch's older spelling of ``compile``: ``optimize("inductor")(fn)``; ``nopython`` is
    ``fullgraph``."""
    return lambda fn: compile(fn, fullgraph=nopython)


def run(fn: Callable | None = None) -> Any:
    """Run already compiled code without compiling more: the function itself here."""
    return fn


@dataclass
class ExplainOutput:
    """What ``explain`` found: the graphs (the traced IR), the graph breaks and their reasons,
    the ops per graph; printing it gives PyTorch's summary."""

    graphs: list = field(default_factory=list)
    graph_count: int = 0
    graph_break_count: int = 0
    break_reasons: list[str] = field(default_factory=list)
    op_count: int = 0
    ops_per_graph: list[list[str]] = field(default_factory=list)
    out_guards: list[str] = field(default_factory=list)
    compile_times: str = ""

    def __str__(self) -> str:
        lines = [f"Graph Count: {self.graph_count}",
                 f"Graph Break Count: {self.graph_break_count}",
                 f"Op Count: {self.op_count}"]
        if self.break_reasons:
            lines.append("Break Reasons:")
            for i, reason in enumerate(self.break_reasons, 1):
                lines += [f"  Break Reason {i}:", f"    Reason: {reason}"]
        if self.ops_per_graph:
            lines.append("Ops per Graph:")
            for i, ops in enumerate(self.ops_per_graph, 1):
                lines.append(f"  Ops {i}:")
                lines += [f"    {op}" for op in ops]
        return "\n".join(lines) + "\n"


def explain(fn: Callable, *extra_args: Any, **extra_kwargs: Any) -> Any:
    """``explain(fn)(*args)``: call ``fn`` once under ``tl.compile`` and say what the compiler
    made of it (an ``ExplainOutput``): one graph, or the graph break that makes it run eagerly.
    Extra arguments given here are passed in front of the call's own (PyTorch's older form)."""
    def inner(*args: Any, **kwargs: Any) -> ExplainOutput:
        compiled = compile(fn)
        runner = compiled._compiled if isinstance(compiled, OptimizedModule) else compiled
        assert isinstance(runner, CompiledFunction)
        with warnings.catch_warnings():  # (the output says it: no graph-break warning)
            warnings.simplefilter("ignore", UserWarning)
            runner(*extra_args, *args, **{**extra_kwargs, **kwargs})
        out = ExplainOutput()
        graph = runner.graph
        reasons = [e.reason for e in runner.entries if e.replay is None and e.reason]
        if graph is not None:
            ops = [op.label for op in graph.ops]
            out.graphs, out.graph_count, out.ops_per_graph = [graph], 1, [ops]
            out.op_count = len(ops)
        elif not reasons:  # traced, not yet compiled (the call set state up: optimizer buffers)
            out.graph_count, out.op_count = 1, runner.last_traced_ops
        out.break_reasons = reasons
        out.graph_break_count = len(reasons)
        return out

    return inner
