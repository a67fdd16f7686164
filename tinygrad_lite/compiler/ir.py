"""The compiler's IR: a flat list of NumPy calls on numbered values, printable as a table.

A value (``v7``) is one array: an input (an argument's array, a parameter's, an optimizer
buffer), a constant captured while tracing, or the result of an op. An op is one NumPy call as
the eager run made it: a ufunc or function (``call``), an ndarray method (``method``), indexing
(``getitem``/``setitem``), a draw from a random generator (``rng``), or a ``check`` that a
data-dependent Python decision taken while tracing (``if (target < 0).any(): raise``) still
goes the same way. Ops that write into their operands (``out=``, ``a[i] = b``, ``+=``) name the
values they mutate; everything else is pure, which the passes rely on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Ref", "Const", "Value", "Op", "Graph", "walk_template", "refs", "LEAF_TYPES"]


@dataclass(frozen=True, slots=True)
class Ref:
    """A template slot holding value ``vid``."""

    vid: int


@dataclass(frozen=True, eq=False, slots=True)
class Const:
    """A template slot holding an object captured while tracing (by reference); ``name``
    says what it is where the compiler knows (an optimizer arena: ``exp_avg``)."""

    obj: Any
    name: str = ""


@dataclass(slots=True)
class Value:
    """One array of the graph: where it comes from, its shape and dtype."""

    vid: int
    shape: tuple
    dtype: np.dtype
    source: str  # "input", "state", "op", "const"
    name: str = ""  # for inputs and state: where the replay reads it ("arg 0", "fc1.weight")
    view_of: int | None = None  # for views: the value whose memory it shares
    # whether the traced array was C-contiguous: a ufunc lays its result out like its inputs
    # (a transposed input gives a transposed result), and a later reduction's rounding depends
    # on that order, so only C-ordered results may go into (C-ordered) planned buffers
    c_order: bool = True


@dataclass(eq=False, slots=True)
class Op:
    """One NumPy call of the traced run (compared by identity: two identical calls are two
    ops)."""

    kind: str  # "call", "method", "getitem", "setitem", "rng", "check"
    target: Any  # the callable, method name, (generator, method) or the checked expression
    args: tuple
    kwargs: dict
    outputs: list[int]  # values it produces (several for a tuple result)
    mutates: list[int] = field(default_factory=list)  # values it writes in place
    unpack: int | None = None  # a tuple/list result of this many arrays
    expected: Any = None  # for checks: the value seen while tracing
    where: str = ""  # the user's source line that led here
    out_buffer: int | None = None  # set by memory planning: preallocated buffer number
    # ``Graph.uses`` of the arguments as last seen: (args, kwargs, values), reused while the
    # passes leave both objects as they are (they replace them, never change them)
    used: tuple | None = field(default=None, repr=False, compare=False)

    @property
    def label(self) -> str:
        """A readable name: ``np.add``, ``.reshape``, ``rng.random``, ``check bool``."""
        if self.kind == "method":
            return f".{self.target}"
        if self.kind == "rng":
            return f"rng.{self.target[1]}"
        if self.kind in ("getitem", "setitem"):
            return self.kind
        if self.kind == "check":
            return f"check {self.target}"
        return callable_name(self.target)

    @property
    def pure(self) -> bool:
        """No writes, no random draws, no checks: may be removed, merged or folded."""
        return self.kind in ("call", "method", "getitem") and not self.mutates


def callable_name(fn: Any) -> str:
    """``np.add``, ``np.add.reduce``, ``np.matmul``: how the table and the code name ``fn``
    (a fused loop kernel names itself and the ops it fused)."""
    label = getattr(fn, "ir_label", None)
    if isinstance(label, str):
        return label
    if isinstance(fn, np.ufunc):
        return f"np.{fn.__name__}"
    owner = getattr(fn, "__self__", None)
    if isinstance(owner, np.ufunc):
        return f"np.{owner.__name__}.{fn.__name__}"
    module = getattr(fn, "__module__", "") or ""
    name = getattr(fn, "__name__", type(fn).__name__)
    return f"np.{name}" if module.startswith("numpy") else f"{module}.{name}"


def walk_template(template: Any, visit: Any) -> None:
    """Call ``visit(ref)`` for every ``Ref`` inside a (nested) template."""
    if isinstance(template, Ref):
        visit(template)
    elif isinstance(template, (tuple, list)):
        for item in template:
            walk_template(item, visit)
    elif isinstance(template, dict):
        for item in template.values():
            walk_template(item, visit)
    elif isinstance(template, slice):
        walk_template((template.start, template.stop, template.step), visit)


# template items with no Ref inside (what ``refs`` and ``passes.substitute`` skip); a slice's
# bounds are Python values (``Trace.template`` reads traced ones as ints)
LEAF_TYPES = frozenset({int, float, bool, str, type(None), type(Ellipsis), Const, slice})
_NESTING = (Ref, tuple, list, dict, slice)  # what else may hold a Ref (subclasses of these)


def refs(template: Any, found: list[int] | None = None) -> list[int]:
    """The value numbers of the ``Ref``s inside a (nested) template, in order (what
    ``walk_template`` visits, without a call per item: the passes ask this of every op)."""
    if found is None:
        found = []
    kind = type(template)
    if kind is Ref:
        found.append(template.vid)
    elif kind is tuple or kind is list:
        for item in template:
            item_kind = type(item)
            if item_kind is Ref:
                found.append(item.vid)
            elif item_kind not in LEAF_TYPES:
                refs(item, found)
    elif kind is dict:
        for item in template.values():
            if type(item) not in LEAF_TYPES:
                refs(item, found)
    elif kind not in LEAF_TYPES and isinstance(template, _NESTING):
        walk_template(template, lambda r: found.append(r.vid))  # (subclasses)
    return found


@dataclass
class Graph:
    """A traced call: its values, ops, outputs and the state writes a replay must make."""

    values: dict[int, Value] = field(default_factory=dict)
    ops: list[Op] = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)  # read from arguments/state on each replay
    outputs: Any = None  # template of the function's return value
    writebacks: list[tuple[Any, str, int | None]] = field(default_factory=list)

    def uses(self, op: Op) -> list[int]:
        """The values ``op`` reads (its mutated operands included)."""
        cached = op.used
        if cached is not None and cached[0] is op.args and cached[1] is op.kwargs:
            return list(cached[2])
        found = refs(op.kwargs, refs(op.args))
        op.used = (op.args, op.kwargs, tuple(found))
        return found

    def root(self, vid: int) -> int:
        """The value whose memory ``vid`` shares (itself unless it is a view)."""
        seen = self.values[vid]
        while seen.view_of is not None:
            seen = self.values[seen.view_of]
        return int(seen.vid)

    def __str__(self) -> str:
        return self.table()

    def table(self) -> str:
        """The IR as a table: op number, op, inputs, result shape and dtype, source line."""
        rows = [("#", "op", "inputs", "result", "shape / dtype", "from")]
        for vid in self.inputs:
            v = self.values[vid]
            rows.append(("in", v.source, v.name, f"v{vid}", _describe(v), ""))
        for i, op in enumerate(self.ops):
            args = [f"v{a}" for a in self.uses(op)] + _constant_arrays(op)
            inputs = ", ".join(args) or "-"
            if op.kind == "check":
                inputs += f" == {op.expected!r}"
            result = ", ".join(f"v{o}" for o in op.outputs) or (
                "(writes " + ", ".join(f"v{m}" for m in op.mutates) + ")" if op.mutates else "-")
            shape = "; ".join(_describe(self.values[o]) for o in op.outputs)
            if op.out_buffer is not None:
                result += f" [buf{op.out_buffer}]"
            rows.append((str(i), op.label, inputs, result, shape, op.where))
        for target, attr, written in self.writebacks:
            rows.append(("out", f"{_owner_name(target)}.{attr}",
                         "-" if written is None else f"v{written}", "", "", ""))
        widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]) - 1)]
        lines = ["  ".join(cell.ljust(w) for cell, w in zip(r[:-1], widths)) + "  " + r[-1]
                 for r in rows]
        lines.insert(1, "-" * max(len(line) for line in lines))
        return "\n".join(line.rstrip() for line in lines)

    def to_dot(self) -> str:
        """The IR as Graphviz source: one box per op, one edge per value it reads."""
        lines = ["digraph ir {", '  rankdir="TB";', '  node [shape=box, fontsize=10];']
        producer: dict[int, str] = {}
        for vid in self.inputs:
            v = self.values[vid]
            producer[vid] = f"in{vid}"
            lines.append(f'  in{vid} [label="{v.name}\\n{_describe(v)}", shape=ellipse];')
        for i, op in enumerate(self.ops):
            shape = "; ".join(_describe(self.values[o]) for o in op.outputs)
            lines.append(f'  op{i} [label="{i}: {op.label}\\n{shape}"];')
            for used in self.uses(op):
                src = producer.get(used, producer.get(self.root(used)))
                if src is not None:
                    lines.append(f"  {src} -> op{i};")
            for o in op.outputs + op.mutates:
                producer[o] = f"op{i}"
        lines.append("}")
        return "\n".join(lines)


def _constant_arrays(op: Op) -> list[str]:
    """The arrays an op reads or writes that are constants of the replay, by name where the
    compiler gave them one (an optimizer's arena of every ``exp_avg``: ``exp_avg(337,)``),
    else as ``const(337,)``."""
    found: list[str] = []

    def visit(template: Any) -> None:
        if isinstance(template, Const) and isinstance(template.obj, np.ndarray) and \
                template.obj.ndim:
            found.append(f"{template.name or 'const'}{tuple(template.obj.shape)}")
        elif isinstance(template, (tuple, list)):
            for item in template:
                visit(item)
        elif isinstance(template, dict):
            for item in template.values():
                visit(item)

    visit((op.args, op.kwargs))
    return found


def _describe(v: Value) -> str:
    return f"{tuple(v.shape)} {v.dtype}"


def _owner_name(obj: Any) -> str:
    return type(obj).__name__
