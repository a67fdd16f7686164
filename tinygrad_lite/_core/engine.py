"""The backward engine: ``run_backward`` walks the graph from the roots to the leaves.

Two passes over the graph, both iterative (no recursion limit: a 100,000-op chain is fine):

1. Count, for every node reachable from the roots, how many edges point at it.
2. Start from the roots with their seed gradients. Gradients arriving at a node are summed in
   ``pending``; a node is *ready* once every edge into it has delivered (its count reached zero).
   Its sum is then popped (freed as early as possible) and the node's backward rule spreads it
   to the node's inputs. Gradients reaching a leaf are summed per leaf; when the walk is over,
   each leaf's hooks run once on its complete gradient and it is added into ``.grad``.

In a plain backward, gradients travel as NumPy arrays and grad mode is off, so backward rules are
bare NumPy calls. With ``create_graph=True`` they travel as Tensors with grad mode on, so the
rules record a new graph, which gives higher-order derivatives.

The loop is the algorithm, with its two fast paths inline: a node that needs nothing but its
rule run (``Node._direct``) is called straight away, and a gradient for a one-output node or a
leaf is summed in place. Everything else is a named helper, most in a module of its own:

- ``_run_node``: several outputs, tensor hooks (``tensor_hooks.py``), custom Functions (they
  take Tensors), watched backwards (``backward_watch.py``: ``autograd.grad``'s captures and the
  observers of anomaly mode, explain mode and viz.record);
- ``accumulate_grad.py``: a leaf's complete gradient into ``.grad`` (adopted when unshared),
  at the end or, for a data-parallel reducer, as soon as it is complete;
- ``backward_scope.py``: grad mode during the walk, callbacks queued for its end, observers told
  it is over (``begin_backward``/``end_backward`` around the loop).

A plain backward (no watch, no reducer) pays one ``is None`` check per node and per leaf edge for
all of these.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from .accumulate_grad import count_leaf_edges, eager_leaves, finish_if_complete, finish_leaves
from .backward_scope import begin_backward, end_backward, keep_graphs
from .backward_watch import Watch, watch_for
from .graph import Node, edge_of
from .quiet import silence_numpy_warnings
from .tensor_base import TensorBase, wrap
from .tensor_hooks import run_node_posthooks, run_node_prehooks, run_tensor_hooks


def run_backward(roots: Sequence[TensorBase], root_grads: Sequence[TensorBase], retain_graph: bool,
                 create_graph: bool, inputs: Sequence[TensorBase] | None = None,
                 accumulate: bool = True) -> list[Any]:
    """Propagate ``root_grads`` from ``roots`` back through the graph. ``accumulate=True``
    (``Tensor.backward``) adds into ``.grad`` of the leaves (of ``inputs`` only, when given);
    ``accumulate=False`` (``autograd.grad``) returns the gradients of ``inputs`` instead."""
    pending, leaf_grads = _seed(roots, root_grads, create_graph)  # node -> sum; leaf -> sum
    deps = _count_dependencies(pending)  # node -> edges into it that have not delivered yet
    ready = [node for node in pending if deps[node] == 0]
    leaf_deps = count_leaf_edges(deps) if eager_leaves[0] and accumulate else None  # DDP
    watch = watch_for(roots, root_grads, inputs, deps)  # None unless grad(inputs) or observers
    outer_mode, finished = begin_backward(create_graph), False
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
            if not (retain_graph or keep_graphs[0]):  # (vmap keeps graphs: see backward_scope)
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
                        finish_if_complete(target, leaf_deps, leaf_grads, watch, create_graph)
                else:
                    _send(pending, leaf_grads, edge, grad, node)  # raises: wrong shape
        input_grads = grad = held = None  # drop references: .grad adopts unshared arrays
        captured = finish_leaves(leaf_grads, watch, inputs, create_graph, accumulate)
        finished = True
        return captured
    finally:  # grad mode back; callbacks run (or dropped after an error); observers told
        end_backward(outer_mode, () if watch is None else watch.observers, finished)


def _seed(roots: Sequence[TensorBase], root_grads: Sequence[TensorBase],
          create_graph: bool) -> tuple[dict, dict]:
    """Send each root's seed gradient along the root's edge. Returns ``pending`` (node -> the sum
    of its output gradient so far, a list if several) and ``leaf_grads`` (leaf tensor -> the sum
    of what reached it), both filled with the seeds."""
    silence_numpy_warnings()  # in case a catch_warnings block dropped the filter (cheap)
    pending: dict = {}
    leaf_grads: dict = {}
    for i, (root, grad) in enumerate(zip(roots, root_grads)):
        edge = edge_of(root)
        if edge is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        _send(pending, leaf_grads, edge, grad if create_graph else grad._data, None)
    return pending, leaf_grads


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


def _run_node(node: Node, grad: Any, watch: Watch | None, create_graph: bool) -> tuple | None:
    """Run a node the fast path does not cover: several outputs, tensor hooks, a custom
    Function, or a watched backward. None: the node need not run (autograd.grad)."""
    grads = [grad] if node.n_outputs == 1 else grad
    tensor_hooks = node._tensor_hooks
    if tensor_hooks:
        grads = run_tensor_hooks(node, tensor_hooks, grads)
    node_hooks = node._node_hooks
    if node_hooks is not None and node_hooks[0]:
        grads = run_node_prehooks(node, grads, arrays=not create_graph)
    if watch is not None:
        if watch.captures:
            for nr, grad in enumerate(grads):
                watch.capture((node, nr), grad)
            if node not in watch.needed:
                return None
        if watch.observers:
            input_grads = _observed_call(watch.observers, node, grads, create_graph)
        else:
            input_grads = _call(node, grads, create_graph)
    else:
        input_grads = _call(node, grads, create_graph)
    if node_hooks is not None and node_hooks[1]:
        input_grads = run_node_posthooks(node, input_grads, grads, arrays=not create_graph)
    return input_grads


def _call(node: Node, grads: list, create_graph: bool) -> tuple:
    if create_graph or node.takes_arrays:
        return node.backward(*grads)
    return _call_with_tensors(node, grads)


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
