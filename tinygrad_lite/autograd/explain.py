"""Explain mode: narrate every backward pass, step by step, to learn how backward works.

Inside ``with tl.autograd.explain():`` each backward prints, in execution order:

* the seed: which tensor backward starts from and its gradient;
* each node as it runs: the gradient arriving at each output (shape, norm, and how many
  contributions were summed into it), the hooks that fired on it and what they changed, and
  where each input gradient goes next (another node, or a leaf's ``.grad``);
* each leaf's accumulation: its hooks, then ``.grad`` before and after.

Leaves are named after the variables of the code that called backward (``w1``,
``model.fc1.weight``) or by ``names={"w1": w1}``. The mode only adds an engine observer, so
nothing of it runs when it is off.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from types import FrameType
from typing import IO, Any

import numpy as np

from .._core.graph import Node
from .._core.observers import EngineObserver, add_observer, remove_observer
from ..tensor import Tensor

__all__ = ["explain"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _array(g: Any) -> np.ndarray:
    return np.asarray(g._data if hasattr(g, "grad_fn") else g)


def _describe(g: Any) -> str:
    """``shape (4, 3), norm 2.449`` for a gradient (array or tensor)."""
    a = _array(g)
    return f"shape {tuple(a.shape)}, norm {float(np.linalg.norm(a.astype(np.float64))):.4g}"


def _hook_name(hook: Any) -> str:
    return getattr(hook, "__name__", None) or type(hook).__name__


class explain(EngineObserver):  # noqa: N801 - a context manager, named like no_grad
    """Print every step of each backward run inside the ``with`` block (to ``file``, default
    stdout); ``names`` maps names to leaf tensors for the printout."""

    def __init__(self, file: IO[str] | None = None, names: dict | None = None) -> None:
        self.file = file
        self.names = dict(names or {})

    def __enter__(self) -> explain:
        add_observer(self)
        return self

    def __exit__(self, *exc: object) -> None:
        remove_observer(self)

    # -- printing helpers ------------------------------------------------------------------------
    def _print(self, text: str) -> None:
        print(text, file=self.file or sys.stdout)

    def _label(self, node: Node) -> str:
        """A node's name, numbered when several nodes of this backward share it."""
        if self._name_counts[node.name()] == 1:
            return node.name()
        if node not in self._serial:
            self._serial[node] = sum(1 for n in self._serial if n.name() == node.name()) + 1
        return f"{node.name()}#{self._serial[node]}"

    def _leaf(self, t: Any) -> str:
        entry = self._names.get(id(t))
        return f"leaf {entry[0]}" if entry else f"leaf of shape {tuple(t._data.shape)}"

    def _find_names(self) -> dict:
        """id(tensor) -> (variable name, tensor), from ``names`` and the caller's locals."""
        found: dict[int, tuple] = {}
        frame: FrameType | None = sys._getframe(2)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame = frame.f_back
        for _ in range(2):  # the code that called backward, then its caller
            if frame is None:
                break
            for var, value in frame.f_locals.items():
                _collect(found, var, value)
            frame = frame.f_back
        for var, value in self.names.items():
            found[id(value)] = (var, value)
        return found

    # -- the observer protocol used by the engine --------------------------------------------------
    def start(self, roots: Any, root_grads: Any, deps: dict) -> None:
        """A backward begins: name things and print the seed."""
        self._name_counts = Counter(n.name() for n in deps)
        self._serial: dict = {}
        self._arrivals: Counter = Counter()  # gradients delivered so far per (node, output)
        self._printed: set = set()
        self._step = 0
        self._leaves = 0
        self._names = self._find_names()
        self._made: dict = {}  # node -> the variable names of the tensors it produced
        for var, t in self._names.values():
            if t.grad_fn is not None:
                self._made.setdefault(t.grad_fn, []).append(var)
        self._pending: list[str] = []  # post-accumulate hook lines, printed after the update
        self._print(f"== backward through {len(deps)} node(s) ==")
        for root, g in zip(roots, root_grads):
            where = (self._label(root.grad_fn) if root.grad_fn is not None else self._leaf(root))
            self._print(f"seed: gradient of the output of {where}: {_describe(g)}")
            if root.grad_fn is not None:
                self._arrivals[(root.grad_fn, root._output_nr)] += 1
        self._print("a node runs once the gradients from all of its uses have arrived and been "
                    "summed")

    def _header(self, node: Node) -> None:
        if node in self._printed:
            return
        self._printed.add(node)
        self._step += 1
        made = self._made.get(node)
        made = f"  (the backward of the op that made {', '.join(made)})" if made else ""
        self._print(f"[{self._step}] {self._label(node)}{made}")

    def before_node(self, node: Node, grads: list) -> None:
        """Print the node and the gradient that arrived at each of its outputs."""
        self._header(node)
        for i, g in enumerate(grads):
            label = "grad_output" if len(grads) == 1 else f"grad_output[{i}]"
            if g is None:
                self._print(f"    {label}: none (this output was not used)")
                continue
            n = self._arrivals[(node, i)]
            summed = f" (sum of {n} incoming gradients)" if n > 1 else ""
            self._print(f"    {label}: {_describe(g)}{summed}")

    def after_node(self, node: Node, input_grads: tuple) -> None:
        """Print where each input gradient the node computed goes next."""
        for i, (edge, g) in enumerate(zip(node.next_edges, input_grads)):
            if edge is None:
                self._print(f"    input {i}: needs no gradient")
                continue
            if g is None:
                self._print(f"    input {i}: no gradient returned")
                continue
            target, nr = edge
            if isinstance(target, Node):
                self._arrivals[(target, nr)] += 1
                dest = self._label(target) + (f" output {nr}" if target.n_outputs > 1 else "")
            else:
                self._arrivals[(target, 0)] += 1
                dest = f"{self._leaf(target)} (AccumulateGrad)"
            self._print(f"    -> input {i}: {_describe(g)} -> {dest}")

    def hook_ran(self, owner: Any, hook: Any, grad: Any, result: Any) -> None:
        """Print a hook that fired and how it changed the gradient."""
        if isinstance(owner, Node):
            self._header(owner)
            who = f"    hook {_hook_name(hook)} on the gradient of {self._label(owner)}"
        else:
            who = f"{self._leaf(owner)}: hook {_hook_name(hook)}"
        if grad is None:
            self._pending.append(f"{who}: post-accumulate-grad hook ran (after .grad was "
                                 "updated)")
        elif result is None:
            self._print(f"{who}: fired, gradient unchanged ({_describe(grad)})")
        else:
            change = float(np.abs(_array(result) - _array(grad)).max()) if _array(grad).size else 0
            self._print(f"{who}: fired, replaced the gradient: norm "
                        f"{float(np.linalg.norm(_array(grad))):.4g} -> "
                        f"{float(np.linalg.norm(_array(result))):.4g} (max change {change:.4g})")

    def accumulated(self, leaf: Any, grad: Any, before: Any) -> None:
        """Print a leaf's ``.grad`` before and after the accumulation."""
        self._leaves += 1
        n = self._arrivals[(leaf, 0)]
        summed = f" (sum of {n} incoming gradients)" if n > 1 else ""
        after = float(np.linalg.norm(_array(leaf._grad).astype(np.float64)))
        if before is None:
            change = f".grad was None, now norm {after:.4g}"
        else:
            prev = float(np.linalg.norm(np.asarray(before, np.float64)))
            change = f".grad norm {prev:.4g} -> {after:.4g} (added to the existing .grad)"
        self._print(f"AccumulateGrad {self._leaf(leaf)}: received {_describe(grad)}{summed}; "
                    f"{change}")
        for line in self._pending:
            self._print(line)
        self._pending.clear()

    def finish(self) -> None:
        """A backward ended (or failed): print the totals."""
        self._print(f"== done: {self._step} node(s) run, {self._leaves} leaf .grad(s) "
                    "accumulated ==")
        self._names, self._made = {}, {}  # hold no tensors between backward calls


def _collect(found: dict, var: str, value: Any) -> None:
    """Name the tensors in one local variable: a tensor, a list of them, or a model."""
    if isinstance(value, Tensor):
        found.setdefault(id(value), (var, value))
    elif isinstance(value, (list, tuple)) and len(value) <= 64:
        for i, v in enumerate(value):
            if isinstance(v, Tensor):
                found.setdefault(id(v), (f"{var}[{i}]", v))
    elif callable(getattr(value, "named_parameters", None)) and not isinstance(value, type):
        try:
            for pname, p in value.named_parameters():
                found.setdefault(id(p), (f"{var}.{pname}", p))
        except Exception:  # noqa: BLE001 - naming is best effort; never break a backward
            pass
