"""The extent of one backward: what is switched on while it runs and what happens when it ends.

Inside, grad mode is ``create_graph`` (so backward rules record a graph only when asked to).
Callbacks queued by hooks (``queue_callback``: how a data-parallel reducer waits for its last
all-reduce) run when the outermost backward finishes, and are dropped when it raises. The
observers of a watched backward hear that it is over, also after an error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from .._kernels import cpu_share
from .grad_mode import grad_state

__all__ = ["begin_backward", "end_backward", "queue_callback", "keep_graphs"]


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


def begin_backward(create_graph: bool) -> bool:
    """Enter a backward (they nest when a hook runs one): the rules record a graph only under
    ``create_graph``. Returns the grad mode to restore. (Two plain functions rather than a
    context manager: this runs once per backward, and ``with`` on an object costs a third of a
    microsecond more, 1-2 % of a small model's step.)"""
    cpu_share.apply()  # the thread count for this machine's load (see _kernels/cpu_share.py)
    outer_mode = grad_state.enabled
    grad_state.enabled = create_graph
    _final_callbacks.depth += 1
    return outer_mode


def end_backward(outer_mode: bool, observers: tuple, finished: bool) -> None:
    """Leave a backward: restore grad mode; when the outermost one ends, run the queued
    callbacks if it ``finished`` (drop them if it raised); tell the observers it is over."""
    grad_state.enabled = outer_mode
    _final_callbacks.depth -= 1
    if _final_callbacks.items and _final_callbacks.depth == 0:
        _run_final_callbacks(run=finished)
    for obs in observers:
        obs.finish()


# >0 while a vmap runs its function once per sample: PyTorch runs the function once on the whole
# batch, so a backward inside it (``autograd.grad(y, x, v)`` without retain_graph) runs once
# there; here it runs once per sample, and the graph must survive until the last sample
keep_graphs = [0]
