"""Whether ``tl.compile`` is tracing a call right now, and where it wants to hear about a graph
break.

The compiler (``tinygrad_lite/compile/``) sits above every other layer; eager code never imports
it. The few eager places that must behave differently while a call is traced read this state:
``Tensor.item()``/``tolist()``/``numpy()``/``bool()`` report a graph break (a Python value taken
from data cannot be replayed), and the optimizers keep their step counters in arrays instead of
Python floats (PyTorch's ``torch.compiler.is_compiling()`` switch).
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["tracing_state", "is_compiling", "report_graph_break"]


class TracingState:
    """The tracer's switch: ``active`` while a call is recorded; ``on_graph_break(reason)`` is
    called by eager code that takes a data-dependent Python value out of a traced tensor."""

    active = False
    on_graph_break: Callable[[str], None] | None = None


tracing_state = TracingState()


def is_compiling() -> bool:
    """True while ``tl.compile`` traces a call (PyTorch's ``torch.compiler.is_compiling``)."""
    return tracing_state.active


def report_graph_break(reason: str) -> None:
    """Tell the active tracer that ``reason`` (e.g. ``Tensor.item()``) needs eager execution."""
    callback = tracing_state.on_graph_break
    if tracing_state.active and callback is not None:
        callback(reason)
