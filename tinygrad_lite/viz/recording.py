"""``record()``: what a drawing needs that the graph itself does not keep.

Nodes never hold their output tensors, so after the fact a graph knows neither which module call
made a node nor the gradients that flowed through it. Inside ``with tl.viz.record() as rec:``

* global module forward pre/post hooks note, for every module call, the nodes it created (the
  nodes reachable from its outputs without crossing its inputs) and its outputs' shapes;
* an engine observer (the mechanism of ``explain`` and anomaly mode) notes, for every node a
  backward runs, the shape, dtype, norm and largest magnitude of the gradient of each output.

Nothing of it runs outside the ``with`` block: the hot paths are untouched.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._core.graph import Node
from .._core.observers import EngineObserver, add_observer, remove_observer
from ..nn.modules.module import register_module_forward_hook, register_module_forward_pre_hook
from ..tensor import Tensor

__all__ = ["record", "Recording", "ModuleCall", "GradStats", "grad_stats", "latest_recording"]

# The latest finished recording: draw() uses it when it holds nodes of the graph being drawn.
last_recording: Recording | None = None


@dataclass
class GradStats:
    """Summary of one gradient: its shape and dtype, L2 norm, largest magnitude, NaN/Inf."""

    shape: tuple
    dtype: str
    norm: float
    max_abs: float
    nonfinite: bool


def grad_stats(grad: Any) -> GradStats:
    """The ``GradStats`` of a gradient given as an array or a tensor."""
    a = np.asarray(grad._data if isinstance(grad, Tensor) else grad)
    finite = np.isfinite(a)
    ok = a[finite].astype(np.float64) if not finite.all() else a.astype(np.float64)
    norm = float(np.linalg.norm(ok)) if ok.size else 0.0
    max_abs = float(np.abs(ok).max()) if ok.size else 0.0
    return GradStats(tuple(a.shape), a.dtype.name, norm, max_abs, not bool(finite.all()))


@dataclass(eq=False)
class ModuleCall:
    """One call of a module: the module, its qualified name (if known), nesting depth, the nodes it
    created, and ``(node, output_nr) -> (shape, dtype)`` of its outputs."""

    module: Any
    depth: int
    nodes: list = field(default_factory=list)
    outputs: dict = field(default_factory=dict)
    name: str = ""


def _tensors_in(obj: Any) -> list:
    """The tensors in a module's arguments or output (tuples, lists and dicts, recursively)."""
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors_in(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors_in(o)]
    return []


class Recording(EngineObserver):
    """What ``record()`` collected: ``calls`` (ModuleCall, in the order calls finished),
    ``grads`` (``(node, output_nr) -> GradStats``) and ``meta`` (``(node, nr) -> (shape, dtype)``).
    Holds the recorded nodes (not their saved arrays after backward) until it is dropped."""

    def __init__(self) -> None:
        self.calls: list[ModuleCall] = []
        self.grads: dict[tuple, GradStats] = {}
        self.meta: dict[tuple, tuple] = {}
        self.saved: dict[Node, list] = {}  # node -> [(shape, nbytes)], noted before backward
        self._stack: list[tuple[Any, set]] = []
        self._handles: list = []
        self._depth = 0

    # -- module hooks ------------------------------------------------------------------------------
    def _pre(self, module: Any, args: tuple) -> None:
        boundary = {id(t.grad_fn) for t in _tensors_in(args) if t.grad_fn is not None}
        self._stack.append((module, boundary))

    def _post(self, module: Any, args: tuple, output: Any) -> None:
        if not self._stack:
            return
        _, boundary = self._stack.pop()
        call = ModuleCall(module, depth=len(self._stack))
        seen: set[int] = set()
        todo = []
        for t in _tensors_in(output):
            if t.grad_fn is not None:
                key = (t.grad_fn, t._output_nr)
                call.outputs[key] = self.meta[key] = (tuple(t.shape), t._data.dtype.name)
                todo.append(t.grad_fn)
        while todo:  # the nodes reachable from the outputs without crossing an input
            node = todo.pop()
            if id(node) in seen or id(node) in boundary:
                continue
            seen.add(id(node))
            call.nodes.append(node)
            todo.extend(e[0] for e in node.next_edges if e is not None and isinstance(e[0], Node))
        self.calls.append(call)

    # -- engine observer -------------------------------------------------------------------------

    def before_node(self, node: Node, grads: list) -> None:
        """Engine observer: ``grads`` (one per output) are about to flow into ``node``."""
        if not node._released:  # note the saved tensors before backward frees them
            arrays = [t._data for t in (node._saved or ()) if isinstance(t, Tensor)]
            if node._saved_out is not None:
                arrays.append(node._saved_out[0])
            self.saved[node] = [(a.shape, a.nbytes) for a in arrays]
        for nr, g in enumerate(grads):
            if g is not None:
                self.grads[(node, nr)] = stats = grad_stats(g)
                self.meta.setdefault((node, nr), (stats.shape, stats.dtype))

    # -- context manager -------------------------------------------------------------------------
    def __enter__(self) -> Recording:
        self._handles = [register_module_forward_pre_hook(self._pre),
                         register_module_forward_hook(self._post)]
        add_observer(self)
        return self

    def __exit__(self, *exc: object) -> None:
        global last_recording
        last_recording = self
        for h in self._handles:
            h.remove()
        self._handles = []
        self._stack = []
        remove_observer(self)


def latest_recording() -> Recording | None:
    """The latest recording whose ``with`` block has finished (None before the first)."""
    return last_recording


def record() -> Recording:
    """Context manager recording module calls and gradient statistics for ``draw``/``to_dot``::

        with tl.viz.record() as rec:
            loss = loss_fn(model(x), y)
            loss.backward()
        tl.viz.draw(loss, params=model, recording=rec, collapse="modules")
    """
    return Recording()
