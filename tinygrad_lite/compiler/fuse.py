"""Horizontal fusion: the same elementwise update applied to many arrays becomes one NumPy call
per op over contiguous arenas (PyTorch's ``foreach`` optimizer kernels; FSDP's flat parameters).

An optimizer's step runs the same few in-place ufunc calls once per parameter: SGD with momentum
is four calls per parameter, 24 for a three-layer MLP, each paying NumPy's call overhead on a
small array. Here such calls are split into *lanes* (the connected groups of arrays one
parameter's update touches) and lanes with the same ops, constants and dtypes form a *group*.
A group runs as one call per op on arenas, each holding one operand slot of every lane end to end:

- ``state``: arrays the replay reads from state and updates (parameters, momentum buffers) are
  moved into one persistent arena by the ``relocate`` callback; the tensors keep views of it,
  so eager code and the replay see the same memory.
- ``fresh``: arrays the step computes before the update (gradients) are written, through
  ``out=``, into views of one arena allocated per replay; the views are what ``.grad`` holds.
- ``scratch``: temporaries whose old contents nothing reads (an optimizer's scratch buffers)
  become one private arena.

A group is fused only when nothing else reads its temporaries, no other op between its first
and last call touches its arrays, and each array is a whole, unshared array of the lane's
shape. The arithmetic per element is unchanged, so the results are bit-identical.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .ir import Const, Graph, Op, Ref, Value, walk_template
from .passes import escaping

__all__ = ["fuse_parallel_updates"]

Node = tuple[int, int]  # (root value, version): one array's contents over a stretch of ops


def _operands(op: Op) -> tuple[list[Any], Any] | None:
    """(inputs, output slot) of a single-output ufunc call with an explicit or implicit
    output, or of ``np.copyto(dst, src)``; None for any other op."""
    fn = op.target
    if op.kind == "call" and fn is np.copyto and len(op.args) == 2 and not op.kwargs:
        return [op.args[1]], op.args[0]
    if op.kind != "call" or not isinstance(fn, np.ufunc) or fn.nout != 1 or op.unpack is not None:
        return None
    if set(op.kwargs) - {"out"}:
        return None
    args = list(op.args)
    out = op.kwargs.get("out")
    if type(out) is tuple:
        if len(out) != 1:
            return None
        out = out[0]
    if len(args) == fn.nin + 1 and out is None:
        out = args.pop()
    if len(args) != fn.nin:
        return None
    if out is None:
        if len(op.outputs) != 1:
            return None
        out = Ref(op.outputs[0])
    return args, out


def _scalar(a: Any) -> bool:
    """Whether an op argument is a constant scalar (the same for every lane it appears in)."""
    if isinstance(a, Const):
        return isinstance(a.obj, (int, float, np.generic)) or (
            isinstance(a.obj, np.ndarray) and a.obj.ndim == 0)
    return type(a) in (int, float, bool)


class _Candidate:
    """An elementwise op whose array operands are whole arrays of one shape."""

    __slots__ = ("index", "op", "inputs", "out", "shape")

    def __init__(self, index: int, op: Op, inputs: list, out: Ref, shape: tuple) -> None:
        self.index, self.op, self.inputs, self.out, self.shape = index, op, inputs, out, shape


def _candidate(graph: Graph, index: int, op: Op) -> _Candidate | None:
    found = _operands(op)
    if found is None:
        return None
    inputs, out = found
    if not isinstance(out, Ref):
        return None
    target = graph.values[out.vid]
    shape = tuple(target.shape)
    if target.view_of is not None or not shape or math.prod(shape) == 0:
        return None
    for a in inputs:
        if isinstance(a, Ref):
            v = graph.values[a.vid]
            if v.shape == () and v.vid != out.vid:
                continue  # a 0-d value: shared by the lanes, or the lanes differ
            if tuple(v.shape) != shape or v.view_of is not None or v.dtype != target.dtype:
                return None
        elif not _scalar(a):
            return None
    return _Candidate(index, op, inputs, out, shape)


class _Sets:
    """Union-find over nodes."""

    def __init__(self) -> None:
        self.parent: dict[Node, Node] = {}

    def find(self, n: Node) -> Node:
        self.parent.setdefault(n, n)
        while self.parent[n] != n:
            self.parent[n] = self.parent[self.parent[n]]
            n = self.parent[n]
        return n

    def union(self, a: Node, b: Node) -> None:
        self.parent[self.find(a)] = self.find(b)


def _scratch_roots(graph: Graph, cands: list[_Candidate]) -> set[int]:
    """State inputs whose contents nothing reads before a candidate overwrites them whole, and
    nothing reads after the last candidate that writes them: scratch space, each write of
    which starts an unrelated value."""
    by_index = {c.index: c for c in cands}
    state = {vid for vid in graph.inputs if graph.values[vid].source == "state"}
    first_write: dict[int, int] = {}
    first_read: dict[int, int] = {}
    last_touch: dict[int, tuple[int, bool]] = {}  # root -> (index, by a candidate)
    for i, op in enumerate(graph.ops):
        c = by_index.get(i)
        reads = [graph.root(r) for r in graph.uses(op)]
        if c is not None:
            reads = [graph.root(a.vid) for a in c.inputs if isinstance(a, Ref)]
            first_write.setdefault(graph.root(c.out.vid), i)
        for r in reads:
            first_read.setdefault(r, i)
        for r in set(reads) | {graph.root(m) for m in op.mutates}:
            last_touch[r] = (i, c is not None)
    leaving = {graph.root(v) for _, _, v in graph.writebacks if v is not None}
    walk_template(graph.outputs, lambda r: leaving.add(graph.root(r.vid)))
    found = set()
    for vid in state - leaving:
        w = first_write.get(vid)
        if w is not None and first_read.get(vid, w + 1) > w and last_touch[vid][1]:
            found.add(vid)
    return found


def _lanes(graph: Graph, cands: list[_Candidate], scratch: set[int]
           ) -> list[tuple[list[_Candidate], list[Node], dict]]:
    """Split the candidates into lanes: (ops, nodes in order of first use, op index -> the
    nodes of its operands)."""
    version: dict[int, int] = {}
    sets = _Sets()
    operand_nodes: dict[int, list[Node | None]] = {}
    for c in cands:
        nodes: list[Node | None] = []
        for a in c.inputs:
            if isinstance(a, Ref) and graph.values[a.vid].shape == c.shape:
                r = graph.root(a.vid)
                nodes.append((r, version.get(r, 0)))
            else:
                nodes.append(None)
        out = graph.root(c.out.vid)
        if out in scratch and (out, version.get(out, 0)) not in nodes:
            version[out] = version.get(out, 0) + 1  # a whole overwrite: a new value
        nodes.append((out, version.get(out, 0)))
        operand_nodes[c.index] = nodes
        present = [n for n in nodes if n is not None]
        for n in present[1:]:
            sets.union(present[0], n)
        sets.find(present[0])
    lanes: dict[Node, tuple[list[_Candidate], list[Node]]] = {}
    for c in cands:
        head = next(n for n in operand_nodes[c.index] if n is not None)
        ops, order = lanes.setdefault(sets.find(head), ([], []))
        ops.append(c)
        for node in operand_nodes[c.index]:
            if node is not None and node not in order:
                order.append(node)
    return [(ops, order, operand_nodes) for ops, order in lanes.values()]


_OUT_CAPABLE = (np.matmul, np.dot)


def _producer_accepts_out(op: Op) -> bool:
    """Whether the op making a value can write it into a given array instead (``out=``)."""
    fn = op.target
    if op.kind != "call" or "out" in op.kwargs or len(op.outputs) != 1 or op.unpack is not None:
        return False
    if isinstance(fn, np.ufunc):
        return fn.nout == 1 and len(op.args) == fn.nin
    owner = getattr(fn, "__self__", None)
    return (isinstance(owner, np.ufunc) and getattr(fn, "__name__", "") == "reduce") or \
        fn in _OUT_CAPABLE


def _kinds(graph: Graph, lane_ops: list[_Candidate], order: list[Node], scratch: set[int],
           producers: dict[int, int], readers: dict[int, list[int]], leaving: set[int],
           candidates: set[int]) -> list[str] | None:
    """Each node's arena kind (state, fresh, scratch), or None when the lane cannot be fused."""
    mine = {c.index for c in lane_ops}
    inputs = set(graph.inputs)
    kinds = []
    for root, _ in order:
        value = graph.values[root]
        if root in scratch:
            kinds.append("scratch")
        elif root in inputs:
            if value.source != "state":
                return None
            kinds.append("state")
        else:
            made_by = producers.get(root)
            if made_by is None:
                return None
            if made_by in mine:  # a temporary of the lane: nothing else may read it
                if root in leaving or any(i not in mine for i in readers.get(root, ())):
                    return None
                kinds.append("scratch")
            elif made_by not in candidates and _producer_accepts_out(graph.ops[made_by]):
                kinds.append("fresh")
            else:
                return None
    return kinds


def _signature(graph: Graph, lane_ops: list[_Candidate], order: list[Node], kinds: list[str],
               operand_nodes: dict) -> tuple:
    index = {n: k for k, n in enumerate(order)}
    parts: list[Any] = [tuple(kinds), graph.values[order[0][0]].dtype]
    for c in lane_ops:
        desc: list[Any] = [id(c.op.target)]
        for a, n in zip(c.inputs + [c.out], operand_nodes[c.index]):
            if n is not None:
                desc.append(("n", index[n]))
            elif isinstance(a, Ref):
                desc.append(("r", a.vid))
            else:
                obj = a.obj if isinstance(a, Const) else a
                desc.append(("c", type(obj).__name__, repr(obj)))
        parts.append(tuple(desc))
    return tuple(parts)


def fuse_parallel_updates(graph: Graph, relocate: Callable[[list[int]], np.ndarray | None]
                          ) -> int:
    """Fuse groups of identical elementwise lanes (see the module); ``relocate(vids)`` moves
    the state arrays read as ``vids`` into consecutive stretches of one new 1-D array and
    returns it (None: they cannot move). Returns the number of ops removed."""
    removed, tried = 0, set[tuple]()
    while True:  # one group at a time: fusing renumbers the ops the next one is found by
        found = _next_group(graph, tried)
        if found is None:
            return removed
        removed += _fuse_group(graph, *found, relocate)


def _next_group(graph: Graph, tried: set) -> tuple[list, dict[int, int]] | None:
    """The first group of two or more lanes not tried yet, with each value's producing op."""
    cands = [c for i, op in enumerate(graph.ops) if (c := _candidate(graph, i, op)) is not None]
    if len(cands) < 2:
        return None
    scratch = _scratch_roots(graph, cands)
    producers: dict[int, int] = {}
    readers: dict[int, list[int]] = {}
    for i, op in enumerate(graph.ops):
        for o in op.outputs:
            producers[o] = i
        for r in graph.uses(op):
            readers.setdefault(graph.root(r), []).append(i)
    leaving = escaping(graph)
    groups: dict[tuple, list] = {}
    for lane_ops, order, operand_nodes in _lanes(graph, cands, scratch):
        kinds = _kinds(graph, lane_ops, order, scratch, producers, readers, leaving,
                       {c.index for c in cands})
        if kinds is None:
            continue
        key = _signature(graph, lane_ops, order, kinds, operand_nodes)
        groups.setdefault(key, []).append((lane_ops, order, kinds, operand_nodes))
    for key, members in groups.items():
        if len(members) > 1 and key not in tried:
            tried.add(key)
            return members, producers
    return None


def _fuse_group(graph: Graph, members: list, producers: dict[int, int],
                relocate: Callable[[list[int]], np.ndarray | None]) -> int:
    """Replace the lanes of one group by one op per lane op over arenas; the ops removed."""
    members.sort(key=lambda m: m[0][0].index)
    positions = {c.index for lane_ops, *_ in members for c in lane_ops}
    roots = {root for _, order, _, _ in members for root, _ in order}
    first, last = min(positions), max(positions)
    for i in range(first + 1, last):
        if i in positions:
            continue
        op = graph.ops[i]
        touched = {graph.root(v) for v in graph.uses(op) + op.outputs + op.mutates}
        if touched & roots:
            return 0  # something between the lanes uses their arrays: keep the order
    template_ops, template_order, kinds, _ = members[0]
    sizes = [math.prod(graph.values[order[0][0]].shape) for _, order, _, _ in members]
    total = sum(sizes)
    dtype = graph.values[template_order[0][0]].dtype
    operand: list[Any] = []
    for k, kind in enumerate(kinds):
        vids = [order[k][0] for _, order, _, _ in members]
        if kind == "state":
            arena = relocate(vids)
            if arena is None:
                return 0
            operand.append(Const(arena))
        elif kind == "scratch":
            operand.append(Const(np.empty(total, dtype)))
        else:
            operand.append(None)  # filled below, once every state arena has moved
    before: dict[int, list[Op]] = {}  # op index -> ops inserted just before it
    for k, kind in enumerate(kinds):
        if kind != "fresh":
            continue
        made = [graph.values[order[k][0]] for _, order, _, _ in members]
        made_at = [producers[v.vid] for v in made]
        # the arena is made just before its first producer (not at the replay's start: the
        # forward's activations and the gradients would be alive together)
        arena_vid = _new_value(graph, (total,), dtype, None)
        before.setdefault(min(made_at), []).append(
            Op("call", np.empty, ((total,),), {"dtype": dtype}, [arena_vid]))
        offset = 0
        for value, at, size in zip(made, made_at, sizes):
            flat = _new_value(graph, (size,), dtype, arena_vid)
            view = _new_value(graph, value.shape, dtype, flat)
            before.setdefault(at, []).extend([
                Op("getitem", None, (Ref(arena_vid), slice(offset, offset + size)), {}, [flat]),
                Op("method", "reshape", (Ref(flat), tuple(value.shape)), {}, [view])])
            producer = graph.ops[at]
            producer.kwargs = {**producer.kwargs, "out": Ref(view)}
            value.view_of = view
            offset += size
        operand[k] = Ref(arena_vid)
    fused = []
    for j, c in enumerate(template_ops):
        nodes = members[0][3][c.index]
        order = template_order
        args = []
        for a, n in zip(c.inputs + [c.out], nodes):
            args.append(operand[order.index(n)] if n is not None else a)
        mutated = [m for lane_ops, _, _, _ in members for m in lane_ops[j].op.mutates]
        fresh_out = args[-1]
        if isinstance(fresh_out, Ref):
            mutated.append(fresh_out.vid)
        if c.op.target is np.copyto:  # (destination, source)
            args = [args[-1], *args[:-1]]
        fused.append(Op("call", c.op.target, tuple(args), {}, [], mutates=mutated,
                        where=c.op.where))
    ops: list[Op] = []
    for i, op in enumerate(graph.ops):
        ops += before.get(i, [])
        if i == last:
            ops += fused
        elif i not in positions:
            ops.append(op)
    graph.ops = ops
    return len(positions) - len(fused) - sum(len(v) for v in before.values())


def _new_value(graph: Graph, shape: tuple, dtype: np.dtype, view_of: int | None) -> int:
    """A new value number of ``graph``, made by an op."""
    vid = max(graph.values) + 1
    graph.values[vid] = Value(vid, tuple(shape), dtype, "op", "", view_of)
    return vid
