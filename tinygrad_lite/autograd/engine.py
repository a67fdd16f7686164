"""The backward engine.

Two passes over the graph, both iterative (no recursion limit):

1. Count, for every node reachable from the roots, how many edges point at it.
2. Start from the roots with their seed gradients. A node is *ready* once every edge into it has
   delivered its gradient (its count reached zero); its summed gradient is then popped from the
   buffer (so it is freed as early as possible), tensor hooks run, and the node's backward rule
   spreads it to the node's inputs. Gradients reaching a leaf are summed per leaf; when the walk
   is over, each leaf's hooks run once on its complete gradient and it is added into ``.grad``.

In a plain backward, gradients travel as NumPy arrays and grad mode is off, so backward rules are
bare NumPy calls. With ``create_graph=True`` they travel as Tensors with grad mode on, so the
rules record a new graph, which gives higher-order derivatives.

Anomaly mode and explain mode watch a backward through *observers* (see ``anomaly.py`` and
``explain.py``). ``_observers`` is read once per backward; when it is empty (the normal case) the
loop pays only one check of a local per node.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from . import graph as _graph
from .grad_mode import grad_state
from .graph import Node, RetainGradHook, edge_of

if TYPE_CHECKING:
    from ..tensor import Tensor

# Objects told about each step of every backward: added by detect_anomaly() and explain().
_observers: tuple = ()


def run_backward(
    roots: Sequence[Tensor],
    root_grads: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
) -> list[Any]:
    """Propagate ``root_grads`` from ``roots`` back through the graph.

    ``accumulate=True`` (``Tensor.backward``) adds into ``.grad`` of the leaves, or only of
    ``inputs`` when given. ``accumulate=False`` (``autograd.grad``) touches no ``.grad`` and
    returns the gradient of each of ``inputs`` (None where unreachable; arrays unless
    ``create_graph``).
    """
    root_edges = []
    for i, root in enumerate(roots):
        edge = edge_of(root)
        if edge is None:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn"
            )
        root_edges.append(edge)
    deps = _count_dependencies([e[0] for e in root_edges if isinstance(e[0], Node)])

    # autograd.grad / backward(inputs=...): capture gradients where the inputs' edges end, and
    # run only the nodes from which some input can be reached.
    captures: dict[tuple, int] = {}
    needed: set = set()
    if inputs is not None:
        for i, t in enumerate(inputs):
            edge = edge_of(t)
            if edge is None:
                raise RuntimeError(f"input {i} (shape {t.data.shape}) does not require grad")
            captures[edge] = i
        needed = _nodes_leading_to(deps, {edge[0] for edge in captures})
    captured: list[Any] = [None] * len(captures)

    node_grads: dict[Node, list] = {}  # per node, one gradient slot per output
    leaf_grads: dict[Tensor, Any] = {}  # per leaf, the sum of what reached it
    for (target, idx), grad in zip(root_edges, root_grads):
        _deliver(node_grads, leaf_grads, target, idx, grad if create_graph else grad.data, None)
    ready = [node for node in node_grads if deps[node] == 0]
    observers = _observers
    for obs in observers:
        obs.start(roots, root_grads, deps)

    prev_mode = grad_state.enabled
    grad_state.enabled = create_graph
    try:
        while ready:
            node = ready.pop()
            grads = node_grads.pop(node)
            if node._tensor_hooks:
                grads = _run_tensor_hooks(node, grads)
            if captures:
                for idx, grad in enumerate(grads):
                    slot = captures.get((node, idx))
                    if slot is not None:
                        captured[slot] = grad
                if node not in needed:
                    continue
            if observers:
                input_grads = _observed_call(observers, node, grads, create_graph)
            elif create_graph or node.takes_arrays:
                input_grads = node.backward(*grads)
            else:
                input_grads = _call_with_tensors(node, grads)
            if not retain_graph:
                node.release()
            for edge, grad in zip(node.next_edges, input_grads):
                if edge is None or grad is None:
                    continue
                child = edge[0]
                if not isinstance(child, Node):
                    _deliver(node_grads, leaf_grads, child, 0, grad, node)
                    continue
                slots = node_grads.get(child)
                if slots is None:
                    node_grads[child] = slots = [None] * child.n_outputs
                idx = edge[1]
                slots[idx] = grad if slots[idx] is None else slots[idx] + grad
                deps[child] -= 1
                if deps[child] == 0:
                    ready.append(child)
        input_grads = grads = grad = None  # drop references, so .grad can adopt arrays uncopied
        for leaf in list(leaf_grads):
            _finish_leaf(leaf, leaf_grads.pop(leaf), captures, captured, create_graph,
                         accumulate and (inputs is None or (leaf, 0) in captures))
        if accumulate and inputs is not None:
            # Non-leaf tensors named in backward(inputs=...) accumulate too, as in PyTorch.
            for t, grad in zip(inputs, captured):
                if t.grad_fn is not None and grad is not None:
                    _accumulate_grad(t, grad, create_graph)
    finally:
        grad_state.enabled = prev_mode
        for obs in observers:
            obs.finish()
    return captured


def _count_dependencies(starts: list) -> dict:
    """For every node reachable from the nodes ``starts``: how many edges point at it."""
    deps = dict.fromkeys(starts, 0)
    stack = list(deps)
    while stack:
        for edge in stack.pop().next_edges:
            if edge is not None and isinstance(edge[0], Node):
                node = edge[0]
                if node in deps:
                    deps[node] += 1
                else:
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


def _deliver(node_grads: dict, leaf_grads: dict, target, idx: int, grad, producer) -> None:
    """Add ``grad`` to what ``target`` (a node's output ``idx``, or a leaf) has received so far."""
    if isinstance(target, Node):
        slots = node_grads.get(target)
        if slots is None:
            node_grads[target] = slots = [None] * target.n_outputs
        slots[idx] = grad if slots[idx] is None else slots[idx] + grad
        return
    if grad.shape != target.data.shape:
        source = producer.name() if producer is not None else "the gradient argument"
        raise RuntimeError(
            f"{source} returned a gradient of shape {tuple(grad.shape)} for a leaf tensor of "
            f"shape {target.data.shape}{producer._where() if producer is not None else ''}"
        )
    previous = leaf_grads.get(target)
    leaf_grads[target] = grad if previous is None else previous + grad


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


def _as_tensor(grad: Any) -> Tensor:
    return grad if isinstance(grad, _graph._Tensor) else _graph._Tensor._wrap(grad)


def _call_with_tensors(node: Node, grads: list) -> tuple:
    """Run a node that wants Tensors (a custom Function) during a plain, array-based backward."""
    result = node.backward(*[None if g is None else _as_tensor(g) for g in grads])
    return tuple(None if g is None else g.data for g in result)


def _run_tensor_hooks(node: Node, grads: list) -> list:
    """Run the hooks registered on the node's output tensors on their (complete) gradients."""
    grads = list(grads)
    for idx, hooks in node._tensor_hooks.items():
        if grads[idx] is not None and hooks:
            grads[idx] = _apply_hooks(hooks.values(), grads[idx], node)
    return grads


def _apply_hooks(hooks, grad: Any, owner: Any) -> Any:
    """Call ``hook(grad)`` in registration order (retain_grad last, as in PyTorch); a tensor
    returned by a hook replaces the gradient. Hooks always see Tensors. ``owner``: the node
    whose output gradient this is, or the leaf tensor."""
    hooks = sorted(hooks, key=lambda h: isinstance(h, RetainGradHook))
    was_array = not isinstance(grad, _graph._Tensor)
    grad = _as_tensor(grad)
    for hook in hooks:
        result = hook(grad)
        for obs in _observers:
            obs.hook_ran(owner, hook, grad, result)
        if result is not None:
            if tuple(result.shape) != tuple(grad.shape):
                where = owner.name() if isinstance(owner, Node) else "a leaf tensor"
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!r} on the gradient of {where} "
                    f"returned shape {tuple(result.shape)}, expected {tuple(grad.shape)}"
                )
            grad = _as_tensor(result)
    return grad.data if was_array else grad


def _finish_leaf(leaf: Tensor, grad: Any, captures: dict, captured: list, create_graph: bool,
                 accumulate: bool) -> None:
    """A leaf's gradient is complete: run its hooks, capture it and/or add it into ``.grad``."""
    if leaf._backward_hooks:
        grad = _apply_hooks(leaf._backward_hooks.values(), grad, leaf)
    if captures:
        slot = captures.get((leaf, 0))
        if slot is not None:
            captured[slot] = grad
    if accumulate:
        if _observers:
            before = None if leaf._grad is None else leaf._grad.data.copy()
            _accumulate_grad(leaf, grad, create_graph)
            for obs in _observers:
                obs.accumulated(leaf, grad, before)
        else:
            _accumulate_grad(leaf, grad, create_graph)


def _accumulate_grad(t: Tensor, grad: Any, create_graph: bool) -> None:
    """``t.grad += grad``: a fresh array the first time, in place afterwards (unless create_graph,
    where ``.grad`` itself is a graph-connected tensor and is replaced by ``old + grad``)."""
    wrap = _graph._Tensor._wrap
    if create_graph:
        grad = grad if grad.data.dtype == t.data.dtype else grad.to(t.dtype)
        t._grad = grad if t._grad is None else t._grad + grad
    else:
        if grad.dtype != t.data.dtype:
            grad = grad.astype(t.data.dtype)
        old = t._grad
        if old is None:
            t._grad = wrap(grad if _unshared(grad) else np.array(grad, copy=True))
        elif old.grad_fn is not None or not old.data.flags.writeable:
            t._grad = wrap(old.data + grad)
        else:
            np.add(old.data, grad, out=old.data)
            old._version_counter[0] += 1
    if t._post_accumulate_hooks:
        for hook in list(t._post_accumulate_hooks.values()):
            hook(t)
            for obs in _observers:
                obs.hook_ran(t, hook, None, None)


def _unshared(grad: np.ndarray) -> bool:
    """True when nothing but the engine refers to ``grad`` and it owns its memory, so ``.grad``
    can adopt it without a copy (PyTorch steals an unshared gradient the same way)."""
    # References: _finish_leaf's argument, _accumulate_grad's, this frame's, getrefcount's.
    return (type(grad) is np.ndarray and grad.base is None and grad.flags.writeable
            and sys.getrefcount(grad) <= 4)
