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
from typing import Any

__all__ = ["tracing_state", "is_compiling", "report_graph_break", "call_as_one_op"]


class TracingState:
    """The tracer's switch: ``active`` while a call is recorded; ``on_graph_break(reason)`` is
    called by eager code that takes a data-dependent Python value out of a traced tensor."""

    active = False
    on_graph_break: Callable[[str], None] | None = None
    # ``record_call(fn, args)``: runs ``fn(*args)`` on plain arrays and records it as one op
    record_call: Callable[[Callable[..., Any], tuple], Any] | None = None


tracing_state = TracingState()


def is_compiling() -> bool:
    """True while ``tl.compile`` traces a call (PyTorch's ``torch.compiler.is_compiling``)."""
    return tracing_state.active


def report_graph_break(reason: str) -> None:
    """Tell the active tracer that ``reason`` (e.g. ``Tensor.item()``) needs eager execution."""
    callback = tracing_state.on_graph_break
    if tracing_state.active and callback is not None:
        callback(reason)


def call_as_one_op(fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` for an array kernel whose NumPy calls depend on the data (a sort, a count
    of repeats); while tl.compile traces, it is recorded as one op that a replay calls again, so
    the replay runs the same code on its data and gives the eager bits."""
    recorder = tracing_state.record_call
    if tracing_state.active and recorder is not None:
        return recorder(fn, args)
    return fn(*args)
