"""The backward engine.

Two passes over the graph, both iterative (no recursion limit: a 100,000-op chain is fine):

1. Count, for every node reachable from the roots, how many edges point at it.
2. Start from the roots with their seed gradients. Gradients arriving at a node are summed in
   ``pending``; a node is *ready* once every edge into it has delivered (its count reached zero).
   Its sum is then popped (freed as early as possible), tensor hooks run on it, and the node's
   backward rule spreads it to the node's inputs. Gradients reaching a leaf are summed per leaf;
   when the walk is over, each leaf's hooks run once on its complete gradient and it is added
   into ``.grad``.

In a plain backward, gradients travel as NumPy arrays and grad mode is off, so backward rules are
bare NumPy calls. With ``create_graph=True`` they travel as Tensors with grad mode on, so the
rules record a new graph, which gives higher-order derivatives.

Most nodes need nothing but their rule run (``Node._direct``); the rest (several outputs, tensor
hooks, custom Functions) and watched backwards (``autograd.grad``'s captures, the observers of
anomaly mode, explain mode and viz.record; see ``observers.py``) go through ``_run_node``. The
observers are read once per backward; when there are none (the normal case) the loop pays one
check per node.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .grad_mode import grad_state
from .graph import Node, RetainGradHook, edge_of
from .observers import active_observers
from .quiet import silence_numpy_warnings
from .tensor_base import TensorBase, grad_dtype_np, wrap
from .tracing import tracing_state

_getrefcount = sys.getrefcount

# Held while gradients are added into ``.grad`` (and its hooks run), so that backward calls in
# several threads into the same leaves lose no update: the accumulation is a read-modify-write,
# and NumPy releases the GIL inside large additions. One acquisition per backward; re-entrant,
# because a post-accumulate hook may itself run a backward.
_accumulation_lock = threading.RLock()


def run_backward(
    roots: Sequence[TensorBase],
    root_grads: Sequence[TensorBase],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[TensorBase] | None = None,
    accumulate: bool = True,
) -> list[Any]:
    """Propagate ``root_grads`` from ``roots`` back through the graph.

    ``accumulate=True`` (``Tensor.backward``) adds into ``.grad`` of the leaves, or only of
    ``inputs`` when given. ``accumulate=False`` (``autograd.grad``) touches no ``.grad`` and
    returns the gradient of each of ``inputs`` (None where unreachable; arrays unless
    ``create_graph``).
    """
    silence_numpy_warnings()  # in case a catch_warnings block dropped the filter (cheap)
    pending: dict = {}  # node -> the sum of its output gradient so far (a list if several)
    leaf_grads: dict = {}  # leaf tensor -> the sum of what reached it
    grad: Any  # an array in a plain backward, a Tensor under create_graph
    for i, (root, grad) in enumerate(zip(roots, root_grads)):
        edge = edge_of(root)
        if edge is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        _send(pending, leaf_grads, edge, grad if create_graph else grad._data, None)
    deps = _count_dependencies(pending)  # pending holds the roots' nodes so far
    ready = [node for node in pending if deps[node] == 0]
    # Normally every leaf's gradient is finished at the end; a data-parallel reducer needs each
    # one as soon as its last contribution arrives, to start communicating during backward.
    leaf_deps = _count_leaf_edges(deps) if _eager_leaves[0] and accumulate else None
    watched = inputs is not None or active_observers()
    watch = _Watch(roots, root_grads, inputs, deps) if watched else None

    prev_mode = grad_state.enabled
    grad_state.enabled = create_graph
    _final_callbacks.depth += 1
    failed = False
    try:
        while ready:
            node = ready.pop()
            grad = pending.pop(node)
            if node._direct and watch is None:  # the common case: nothing to do but the rule
                input_grads = node.backward(grad)
            else:
                input_grads = _run_node(node, grad, watch, create_graph)
                if input_grads is None:  # autograd.grad: no wanted input lies behind this node
                    continue
            if not retain_graph:
                node._saved = node._saved_out = None  # free what it saved (see Node._released)
            for edge, grad in zip(node.next_edges, input_grads):
                if grad is None or edge is None:
                    continue
                target = edge[0]
                if isinstance(target, Node):
                    if target.n_outputs == 1:  # the common case, inline
                        held = pending.get(target)
                        pending[target] = grad if held is None else held + grad
                    else:
                        _send(pending, leaf_grads, edge, grad, node)
                    deps[target] -= 1
                    if deps[target] == 0:
                        ready.append(target)
                elif grad.shape == target._data.shape:  # a leaf, inline
                    held = leaf_grads.get(target)
                    leaf_grads[target] = grad if held is None else held + grad
                    if leaf_deps is not None:
                        leaf_deps[target] -= 1
                        if leaf_deps[target] == 0:  # complete: accumulate and run hooks now
                            with _accumulation_lock:
                                _finish_leaf(target, leaf_grads.pop(target), watch, create_graph,
                                             accumulate)
                else:
                    _send(pending, leaf_grads, edge, grad, node)  # raises: wrong shape

        input_grads = grad = held = None  # drop references: .grad adopts unshared arrays
        plain = watch is None and accumulate and not create_graph
        with _accumulation_lock:
            for leaf in list(leaf_grads):
                grad = leaf_grads.pop(leaf)
                # The common case, inline: a first gradient that nothing else refers to becomes
                # .grad without a copy (PyTorch steals an unshared gradient the same way).
                if (plain and leaf._grad is None and _getrefcount(grad) == 2
                        and not (leaf._backward_hooks or leaf._post_accumulate_hooks)
                        and _adoptable(grad, leaf)):
                    leaf._grad = wrap(grad)
                else:
                    _finish_leaf(leaf, grad, watch, create_graph, accumulate)
            if watch is None:
                return []
            if accumulate and inputs is not None:
                # Non-leaf tensors named in backward(inputs=...) accumulate too, as in PyTorch.
                for t, grad in zip(inputs, watch.captured):
                    if t.grad_fn is not None and grad is not None:
                        _accumulate_grad(t, grad, create_graph)
        return watch.captured
    except BaseException:
        failed = True
        raise
    finally:
        grad_state.enabled = prev_mode
        _final_callbacks.depth -= 1
        if _final_callbacks.items and _final_callbacks.depth == 0:
            # queued by hooks (a reducer waiting for its all-reduces): run after a backward
            # that finished, dropped after one that raised
            _run_final_callbacks(run=not failed)
        if watch is not None:
            for obs in watch.observers:
                obs.finish()


class _Watch:
    """What a backward does beyond running nodes, set up only when needed: capture gradients
    where the edges of ``inputs`` end (autograd.grad, backward(inputs=...)), skip the nodes no
    input lies behind, and tell the observers (anomaly, explain, viz.record) each step."""

    def __init__(self, roots: Sequence[TensorBase], root_grads: Sequence[TensorBase],
                 inputs: Sequence[TensorBase] | None, deps: dict) -> None:
        self.captures: dict[tuple, int] = {}  # edge -> index in ``inputs``
        self.needed: set = set()
        if inputs is not None:
            for i, t in enumerate(inputs):
                edge = edge_of(t)
                if edge is None:
                    raise RuntimeError(f"input {i} (shape {t._data.shape}) does not require grad")
                self.captures[edge] = i
            self.needed = _nodes_leading_to(deps, {edge[0] for edge in self.captures})
        self.captured: list[Any] = [None] * len(self.captures)
        self.observers = active_observers()
        for obs in self.observers:
            obs.start(roots, root_grads, deps)

    def capture(self, edge: tuple, grad: Any) -> bool:
        """Keep ``grad`` if ``edge`` is one of the inputs' edges; says whether it was."""
        slot = self.captures.get(edge)
        if slot is None:
            return False
        self.captured[slot] = grad
        return True


def _run_node(node: Node, grad: Any, watch: _Watch | None, create_graph: bool) -> tuple | None:
    """Run a node the fast path does not cover: several outputs, tensor hooks, a custom
    Function, or a watched backward. None: the node need not run (autograd.grad)."""
    grads = [grad] if node.n_outputs == 1 else grad
    tensor_hooks = node._tensor_hooks
    if tensor_hooks:
        grads = _run_tensor_hooks(node, tensor_hooks, grads)
    if watch is not None:
        if watch.captures:
            for nr, grad in enumerate(grads):
                watch.capture((node, nr), grad)
            if node not in watch.needed:
                return None
        if watch.observers:
            return _observed_call(watch.observers, node, grads, create_graph)
    if create_graph or node.takes_arrays:
        return node.backward(*grads)
    return _call_with_tensors(node, grads)


def _send(pending: dict, leaf_grads: dict, edge: tuple, grad: Any, producer) -> None:
    """Add ``grad`` to what the edge's target (a node's output, or a leaf) has received so far."""
    target, nr = edge
    if isinstance(target, Node):
        if target.n_outputs == 1:
            held = pending.get(target)
            pending[target] = grad if held is None else held + grad
            return
        held = pending.get(target)
        if held is None:
            pending[target] = held = [None] * target.n_outputs
        held[nr] = grad if held[nr] is None else held[nr] + grad
        return
    if grad.shape != target._data.shape:
        source = producer.name() if producer is not None else "the gradient argument"
        raise RuntimeError(
            f"{source} returned a gradient of shape {tuple(grad.shape)} for a leaf tensor of "
            f"shape {target._data.shape}{producer._where() if producer is not None else ''}"
        )
    previous = leaf_grads.get(target)
    leaf_grads[target] = grad if previous is None else previous + grad


# Users of eager leaf finishing (data-parallel reducers); see enable_eager_leaf_finish.
_eager_leaves = [0]


def enable_eager_leaf_finish(on: bool) -> None:
    """Ask (or stop asking) every backward to accumulate each leaf's gradient, and run its
    post-accumulate hooks, as soon as the gradient is complete rather than at the end. Counted,
    so several users can ask at once."""
    _eager_leaves[0] += 1 if on else -1


def _count_leaf_edges(deps: dict) -> dict:
    """For every leaf reachable through the nodes of ``deps``: how many edges point at it."""
    counts: dict = {}
    for node in deps:
        for edge in node.next_edges:
            if edge is not None and not isinstance(edge[0], Node):
                counts[edge[0]] = counts.get(edge[0], 0) + 1
    return counts  # a leaf that is itself a root got its seed already: nothing more to wait for


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


def _count_dependencies(starts: Iterable[Node]) -> dict:
    """For every node reachable from the nodes ``starts``: how many edges point at it."""
    deps = dict.fromkeys(starts, 0)
    stack = list(deps)
    while stack:
        for edge in stack.pop().next_edges:
            if edge is not None:
                node = edge[0]
                if node in deps:
                    deps[node] += 1
                elif isinstance(node, Node):
                    deps[node] = 1
                    stack.append(node)
    return deps


def _nodes_leading_to(deps: dict, goals: set) -> set:
    """The nodes from which one of ``goals`` is reachable: the only ones that need to run."""
    needed: set = set()
    for node in reversed(_topological_order(deps)):  # every node after the nodes it points to
        for edge in node.next_edges:
            if edge is not None and (edge[0] in goals or edge[0] in needed):
                needed.add(node)
                break
    return needed


def _topological_order(deps: dict) -> list:
    """The nodes ordered so that each comes before the nodes its edges point to (Kahn)."""
    remaining = dict(deps)
    order = []
    stack = [node for node, n in remaining.items() if n == 0]
    while stack:
        node = stack.pop()
        order.append(node)
        for edge in node.next_edges:
            if edge is not None and isinstance(edge[0], Node):
                remaining[edge[0]] -= 1
                if remaining[edge[0]] == 0:
                    stack.append(edge[0])
    return order


def _observed_call(observers: tuple, node: Node, grads: list, create_graph: bool) -> tuple:
    """Run one node with the observers told before and after (anomaly / explain mode only)."""
    for obs in observers:
        obs.before_node(node, grads)
    if create_graph or node.takes_arrays:
        input_grads = node.backward(*grads)
    else:
        input_grads = _call_with_tensors(node, grads)
    for obs in observers:
        obs.after_node(node, input_grads)
    return input_grads


def _as_tensor(grad: Any) -> TensorBase:
    return grad if isinstance(grad, TensorBase) else wrap(grad)


def _call_with_tensors(node: Node, grads: list) -> tuple:
    """Run a node that wants Tensors (a custom Function) during a plain, array-based backward."""
    result = node.backward(*[None if g is None else _as_tensor(g) for g in grads])
    return tuple(None if g is None else g._data for g in result)


def _run_tensor_hooks(node: Node, tensor_hooks: dict[int, OrderedDict], grads: list) -> list:
    """Run the hooks registered on the node's output tensors (``node._tensor_hooks``) on their
    (complete) gradients."""
    grads = list(grads)
    for idx, hooks in tensor_hooks.items():
        if grads[idx] is not None and hooks:
            grads[idx] = _apply_hooks(hooks.values(), grads[idx], node)
    return grads


def _apply_hooks(hooks, grad: Any, owner: Any) -> Any:
    """Call ``hook(grad)`` in registration order (retain_grad last, as in PyTorch); a tensor
    returned by a hook replaces the gradient. Hooks always see Tensors. ``owner``: the node
    whose output gradient this is, or the leaf tensor."""
    hooks = sorted(hooks, key=lambda h: isinstance(h, RetainGradHook))
    was_array = not isinstance(grad, TensorBase)
    grad = _as_tensor(grad)
    for hook in hooks:
        result = hook(grad)
        for obs in active_observers():
            obs.hook_ran(owner, hook, grad, result)
        if result is not None:
            if tuple(result.shape) != tuple(grad.shape):
                where = owner.name() if isinstance(owner, Node) else "a leaf tensor"
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!r} on the gradient of {where} "
                    f"returned shape {tuple(result.shape)}, expected {tuple(grad.shape)}"
                )
            grad = _as_tensor(result)
    return grad._data if was_array else grad


def _finish_leaf(leaf: TensorBase, grad: Any, watch: _Watch | None, create_graph: bool,
                 accumulate: bool) -> None:
    """A leaf's gradient is complete: run its hooks, capture it and/or add it into ``.grad``."""
    if leaf._backward_hooks:
        grad = _apply_hooks(leaf._backward_hooks.values(), grad, leaf)
    if watch is not None and watch.captures:
        # backward(inputs=...) accumulates only into the inputs
        accumulate = watch.capture((leaf, 0), grad) and accumulate
    if not accumulate:
        return
    if active_observers():
        before = None if leaf._grad is None else leaf._grad._data.copy()
        _accumulate_grad(leaf, grad, create_graph)
        for obs in active_observers():
            obs.accumulated(leaf, grad, before)
    else:
        _accumulate_grad(leaf, grad, create_graph)


def _accumulate_grad(t: TensorBase, grad: Any, create_graph: bool) -> None:
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
            # References counted: run_backward's local, _finish_leaf's argument, this frame's,
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
            hook(t)
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
