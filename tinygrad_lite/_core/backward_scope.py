"""The extent of one backward: what is switched on while it runs and what happens when it ends.

Inside, grad mode is ``create_graph`` (so backward rules record a graph only when asked to).
Callbacks queued by hooks (``queue_callback``: how a data-parallel reducer waits for its last
all-reduce) run when the outermost backward finishes, and are dropped when it raises. The
observers of a watched backward hear that it is over, also after an error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .grad_mode import grad_state

__all__ = ["BackwardScope", "queue_callback"]


class _FinalCallbacks(threading.local):
    items: list | None = None
    depth = 0


_final_callbacks = _FinalCallbacks()


def queue_callback(callback: Callable[[], None]) -> None:
    """Run ``callback()`` when the current backward finishes (PyTorch's
    ``Variable._execution_engine.queue_callback``: how a reducer waits for its last
    all-reduce). Only valid while a backward runs (from a hook)."""
    if _final_callbacks.items is None:
        _final_callbacks.items = []
    _final_callbacks.items.append(callback)


def _run_final_callbacks(run: bool) -> None:
    callbacks, _final_callbacks.items = _final_callbacks.items or [], None
    for callback in callbacks if run else ():
        callback()


class BackwardScope:
    """``with BackwardScope(create_graph, observers):`` around the engine's walk (entered once
    per backward; backwards nest when a hook runs one)."""

    __slots__ = ("create_graph", "observers", "prev_mode")

    def __init__(self, create_graph: bool, observers: tuple) -> None:
        self.create_graph = create_graph
        self.observers = observers  # told ``finish()`` at the end

    def __enter__(self) -> None:
        self.prev_mode = grad_state.enabled
        grad_state.enabled = self.create_graph
        _final_callbacks.depth += 1

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        grad_state.enabled = self.prev_mode
        _final_callbacks.depth -= 1
        if _final_callbacks.items and _final_callbacks.depth == 0:
            # run after a backward that finished, dropped after one that raised
            _run_final_callbacks(run=exc_type is None)
        for obs in self.observers:
            obs.finish()
