"""Watched backwards: what a backward does beyond running nodes, set up only when needed.

``autograd.grad`` and ``backward(inputs=...)`` capture the gradients where the edges of their
inputs end, and skip the nodes no input lies behind; the engine observers (anomaly mode, explain
mode, ``viz.record``; see ``observers.py``) are told each step. A plain backward has no watch,
and its engine loop pays one ``is None`` check per node for all of this.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .graph import Node, edge_of
from .observers import active_observers
from .tensor_base import TensorBase

__all__ = ["Watch", "watch_for"]


class Watch:
    """Capture gradients where the edges of ``inputs`` end (autograd.grad, backward(inputs=...)),
    know which nodes some input lies behind, and tell the observers (anomaly, explain,
    viz.record) each step."""

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


def watch_for(roots: Sequence[TensorBase], root_grads: Sequence[TensorBase],
              inputs: Sequence[TensorBase] | None, deps: dict) -> Watch | None:
    """The watch a backward needs: None (the normal case) unless it has ``inputs`` or an
    observer is active. The observers are read once, here, per backward."""
    if inputs is not None or active_observers():
        return Watch(roots, root_grads, inputs, deps)
    return None


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
