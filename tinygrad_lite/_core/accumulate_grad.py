"""Accumulating a leaf's finished gradient into ``.grad`` (PyTorch's ``AccumulateGrad``).

Once every edge into a leaf has delivered, its gradient is complete: the leaf's hooks run on it,
it is added into ``.grad`` (adopted without a copy when nothing else refers to it, as PyTorch
steals an unshared gradient), then the post-accumulate hooks run. Normally the engine finishes
all leaves when its walk is over (``finish_leaves``); a data-parallel reducer asks for each leaf
as soon as its last contribution arrives (``enable_eager_leaf_finish``), to start communicating
during backward.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .backward_watch import Watch
from .graph import Node
from .observers import active_observers
from .tensor_base import TensorBase, grad_dtype_np, wrap
from .tensor_hooks import apply_hooks
from .tracing import tracing_state

__all__ = ["finish_leaves", "finish_if_complete", "count_leaf_edges", "eager_leaves",
           "enable_eager_leaf_finish", "accumulate_grad"]

_getrefcount = sys.getrefcount

# Held while gradients are added into ``.grad`` (and its hooks run), so that backward calls in
# several threads into the same leaves lose no update: the accumulation is a read-modify-write,
# and NumPy releases the GIL inside large additions. One acquisition per backward; re-entrant,
# because a post-accumulate hook may itself run a backward.
_accumulation_lock = threading.RLock()

# Users of eager leaf finishing (data-parallel reducers); see enable_eager_leaf_finish.
eager_leaves = [0]


def enable_eager_leaf_finish(on: bool) -> None:
    """Ask (or stop asking) every backward to accumulate each leaf's gradient, and run its
    post-accumulate hooks, as soon as the gradient is complete rather than at the end. Counted,
    so several users can ask at once."""
    eager_leaves[0] += 1 if on else -1


def count_leaf_edges(deps: dict) -> dict:
    """For every leaf reachable through the nodes of ``deps``: how many edges point at it."""
    counts: dict = {}
    for node in deps:
        for edge in node.next_edges:
            if edge is not None and not isinstance(edge[0], Node):
                counts[edge[0]] = counts.get(edge[0], 0) + 1
    return counts  # a leaf that is itself a root got its seed already: nothing more to wait for


def finish_if_complete(leaf: TensorBase, leaf_deps: dict, leaf_grads: dict, watch: Watch | None,
                       create_graph: bool) -> None:
    """Eager leaf finishing: one more edge into ``leaf`` delivered; if it was the last, the
    gradient is complete, so accumulate it and run the hooks now."""
    leaf_deps[leaf] -= 1
    if leaf_deps[leaf] == 0:
        with _accumulation_lock:
            finish_leaf(leaf, leaf_grads.pop(leaf), watch, create_graph, True)


def finish_leaves(leaf_grads: dict, watch: Watch | None, inputs: Sequence[TensorBase] | None,
                  create_graph: bool, accumulate: bool) -> list[Any]:
    """The walk is over: finish every leaf's (complete) gradient. Returns what the watch
    captured (the gradients of ``inputs``), or [] for an unwatched backward."""
    plain = watch is None and accumulate and not create_graph
    with _accumulation_lock:
        for leaf in list(leaf_grads):
            grad = leaf_grads.pop(leaf)
            # The common case, inline: a first gradient that nothing else refers to becomes
            # .grad without a copy (PyTorch steals an unshared gradient the same way). The
            # engine dropped its own references first: this local and getrefcount's are all.
            if (plain and leaf._grad is None and _getrefcount(grad) == 2
                    and not (leaf._backward_hooks or leaf._post_accumulate_hooks)
                    and _adoptable(grad, leaf)):
                leaf._grad = wrap(grad)
            else:
                finish_leaf(leaf, grad, watch, create_graph, accumulate)
        if watch is None:
            return []
        if accumulate and inputs is not None:
            # Non-leaf tensors named in backward(inputs=...) accumulate too, as in PyTorch.
            for t, grad in zip(inputs, watch.captured):
                if t.grad_fn is not None and grad is not None:
                    accumulate_grad(t, grad, create_graph)
    return watch.captured


def finish_leaf(leaf: TensorBase, grad: Any, watch: Watch | None, create_graph: bool,
                accumulate: bool) -> None:
    """A leaf's gradient is complete: run its hooks, capture it and/or add it into ``.grad``."""
    if leaf._backward_hooks:
        grad = apply_hooks(leaf._backward_hooks.values(), grad, leaf)
    if watch is not None and watch.captures:
        # backward(inputs=...) accumulates only into the inputs
        accumulate = watch.capture((leaf, 0), grad) and accumulate
    if not accumulate:
        return
    if active_observers():
        before = None if leaf._grad is None else leaf._grad._data.copy()
        accumulate_grad(leaf, grad, create_graph)
        for obs in active_observers():
            obs.accumulated(leaf, grad, before)
    else:
        accumulate_grad(leaf, grad, create_graph)


def accumulate_grad(t: TensorBase, grad: Any, create_graph: bool) -> None:
    """``t.grad += grad``: a fresh array the first time, in place afterwards (unless create_graph,
    where ``.grad`` itself is a graph-connected tensor and is replaced by ``old + grad``)."""
    target = grad_dtype_np(t)  # the leaf's dtype unless grad_dtype says otherwise
    if create_graph:
        grad = grad if target is None or grad._data.dtype == target else grad.to(target)
        t._grad = grad if t._grad is None else t._grad + grad
    else:
        if target is not None and grad.dtype != target:
            grad = grad.astype(target)
        old = t._grad
        if old is None:
            # Adopt the array when nothing but the engine refers to it; otherwise copy it.
            # References counted: finish_leaves' local, finish_leaf's argument, this frame's,
            # and getrefcount's own.
            if not (_getrefcount(grad) <= 4 and _adoptable(grad, t)):
                grad = np.array(grad, copy=True)
            t._grad = wrap(grad)
        elif old.grad_fn is not None or not old._data.flags.writeable:
            t._grad = wrap(old._data + grad)
        else:
            np.add(old._data, grad, out=old._data)
            old._version_counter[0] += 1
    if t._post_accumulate_hooks:
        for hook in list(t._post_accumulate_hooks.values()):
            if hook(t) is not None:  # it acts on ``t.grad`` itself; a result would be lost
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")
            for obs in active_observers():
                obs.hook_ran(t, hook, None, None)


def _adoptable(grad: Any, leaf: TensorBase) -> bool:
    """Whether ``grad`` (known to be referenced only by the engine) can become ``leaf.grad``
    as it is: a writeable array of the leaf's dtype that owns its memory."""
    # While tl.compile traces, results are TracedArrays (owning their memory like any result).
    return ((type(grad) is np.ndarray or tracing_state.active and isinstance(grad, np.ndarray))
            and grad.base is None and grad.flags.writeable
            and grad.dtype == (leaf._data.dtype if leaf._grad_dtype is False
                               else grad_dtype_np(leaf)))
