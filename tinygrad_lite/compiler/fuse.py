"""Horizontal fusion: the same elementwise update applied to many arrays becomes one NumPy call
per op over contiguous arenas (PyTorch's ``foreach`` optimizer kernels; FSDP's flat parameters).

An optimizer's step runs the same few in-place calls once per parameter: SGD with momentum is
four calls per parameter, 24 for a three-layer MLP, Adam about twenty, each paying NumPy's call
overhead on a small array. Here such calls are split into *lanes* (the connected groups of
arrays one parameter's update touches, with the 0-d values only that parameter's update uses,
such as Adam's step count and bias corrections) and lanes with the same ops, constants and
dtypes form a *group*. A group runs as one call per op on arenas, each holding one operand slot
of every lane end to end (a 0-d slot: one element per lane):

- ``state``: arrays the replay reads from state and updates (parameters, momentum buffers, step
  counts) are moved into one persistent arena by the ``relocate`` callback; the tensors keep
  views of it, so eager code and the replay see the same memory.
- ``fresh``: arrays the step computes before the update (gradients) are written, through
  ``out=``, into views of one arena allocated per replay; the views are what ``.grad`` holds.
- ``scratch``: temporaries whose old contents nothing reads (an optimizer's scratch buffers,
  the lane's own intermediate values) become one private arena.

An op that combines a parameter-shaped slot with a per-lane 0-d one (Adam's division by its
bias correction) stays one call per lane, on views of the arenas. A group is fused only when
nothing else reads its temporaries, no other op between its first and last call touches its
arrays, and each array is a whole, unshared array. The arithmetic per element is unchanged
(``astype`` becomes ``copyto`` with the same cast), so the results are bit-identical.
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
Relocate = Callable[[list[int]], np.ndarray | None]


class _Candidate:
    """An elementwise op on whole arrays of one shape (and 0-d values): its inputs, output and
    how it is written (``ufunc``, ``copyto`` or ``astype``)."""

    __slots__ = ("index", "op", "inputs", "out", "shape", "form")

    def __init__(self, index: int, op: Op, inputs: list, out: Ref, shape: tuple,
                 form: str) -> None:
        self.index, self.op, self.inputs, self.out = index, op, inputs, out
        self.shape, self.form = shape, form


def _operands(op: Op) -> tuple[list[Any], Any, str] | None:
    """(inputs, output slot, form) of a single-output ufunc call, ``np.copyto(dst, src)``,
    ``a.copy()`` (a copyto into a new array) or ``a.astype(dtype)``; None for any other op."""
    fn = op.target
    if op.kind == "method" and fn == "astype" and len(op.args) == 2 and not op.kwargs \
            and len(op.outputs) == 1:
        return [op.args[0]], Ref(op.outputs[0]), "astype"
    if op.kind == "method" and fn == "copy" and len(op.args) == 1 and not op.kwargs \
            and len(op.outputs) == 1:
        return [op.args[0]], Ref(op.outputs[0]), "copyto"
    if op.kind != "call" or op.unpack is not None:
        return None
    if fn is np.copyto and len(op.args) == 2 and not op.kwargs:
        return [op.args[1]], op.args[0], "copyto"
    if not isinstance(fn, np.ufunc) or fn.nout != 1 or set(op.kwargs) - {"out"}:
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
    return args, out, "ufunc"


def _scalar(a: Any) -> bool:
    """Whether an op argument is a constant scalar (the same for every lane it appears in)."""
    if isinstance(a, Const):
        return isinstance(a.obj, (int, float, np.generic)) or (
            isinstance(a.obj, np.ndarray) and a.obj.ndim == 0)
    return type(a) in (int, float, bool)


def _candidate(graph: Graph, index: int, op: Op) -> _Candidate | None:
    found = _operands(op)
    if found is None:
        return None
    inputs, out, form = found
    if not isinstance(out, Ref):
        return None
    target = graph.values[out.vid]
    shape = tuple(target.shape)
    if target.view_of is not None or 0 in shape:
        return None
    for a in inputs:
        if isinstance(a, Ref):
            v = graph.values[a.vid]
            if v.view_of is not None or tuple(v.shape) not in (shape, ()):
                return None
        elif not _scalar(a):
            return None
    if form != "ufunc" and not isinstance(inputs[0], Ref):
        return None
    return _Candidate(index, op, inputs, out, shape, form)


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
    last_touch: dict[int, bool] = {}  # root -> whether a candidate touched it last
    for i, op in enumerate(graph.ops):
        c = by_index.get(i)
        reads = [graph.root(r) for r in graph.uses(op)]
        if c is not None:
            reads = [graph.root(a.vid) for a in c.inputs if isinstance(a, Ref)]
            first_write.setdefault(graph.root(c.out.vid), i)
        for r in reads:
            first_read.setdefault(r, i)
        for r in set(reads) | {graph.root(m) for m in op.mutates}:
            last_touch[r] = c is not None
    leaving = {graph.root(v) for _, _, v in graph.writebacks if v is not None}
    walk_template(graph.outputs, lambda r: leaving.add(graph.root(r.vid)))
    found = set()
    for vid in state - leaving:
        w = first_write.get(vid)
        if w is not None and first_read.get(vid, w + 1) > w and last_touch[vid]:
            found.add(vid)
    return found


class _Lane:
    """One lane: its ops in order, its nodes in order of first use, each op's operand nodes
    (inputs then output; None for a scalar or a value from outside the lane)."""

    def __init__(self) -> None:
        self.ops: list[_Candidate] = []
        self.order: list[Node] = []
        self.operands: dict[int, list[Node | None]] = {}
        self.kinds: list[str] = []


def _lanes(graph: Graph, cands: list[_Candidate], scratch: set[int]) -> list[_Lane]:
    """Split the candidates into lanes. Ops on parameter-shaped arrays are joined through the
    arrays they share; a group of 0-d ops joins the one lane whose ops read its values (a
    value several lanes read, a learning rate held in a tensor, belongs to none)."""
    version: dict[int, int] = {}
    sets = _Sets()
    nodes_of: dict[int, list[Node | None]] = {}
    # a 0-d input nothing writes (a learning rate read per call) is shared by the lanes, like a
    # constant: it joins none of them
    written = {graph.root(m) for op in graph.ops for m in op.mutates}
    shared = {vid for vid in graph.inputs if graph.values[vid].shape == () and vid not in written}
    scalar_uses: list[tuple[Node, Node]] = []  # (0-d node, a node of the full op reading it)

    def out_of(c: _Candidate) -> Node:
        node = nodes_of[c.index][-1]
        assert node is not None  # (an op's output is always a node)
        return node

    for c in cands:
        nodes: list[Node | None] = []
        for a in c.inputs:
            if isinstance(a, Ref) and graph.root(a.vid) not in shared:
                r = graph.root(a.vid)
                nodes.append((r, version.get(r, 0)))
            else:
                nodes.append(None)
        out = graph.root(c.out.vid)
        if out in scratch and (out, version.get(out, 0)) not in nodes:
            version[out] = version.get(out, 0) + 1  # a whole overwrite: a new value
        out_node = (out, version.get(out, 0))
        nodes.append(out_node)
        nodes_of[c.index] = nodes
        for n, a in zip(nodes, c.inputs + [c.out]):
            if n is None:
                continue
            if c.shape and graph.values[a.vid].shape == ():
                scalar_uses.append((n, out_node))  # joined below, if only this lane reads it
            else:
                sets.union(n, out_node)
    readers: dict[Node, set[Node]] = {}
    for n, full in scalar_uses:
        readers.setdefault(sets.find(n), set()).add(sets.find(full))
    for head, reading in readers.items():
        if len(reading) == 1:
            sets.union(head, next(iter(reading)))
    lanes: dict[Node, _Lane] = {}
    for c in cands:
        lane = lanes.setdefault(sets.find(out_of(c)), _Lane())
        lane.ops.append(c)
    for lane in lanes.values():
        for c in lane.ops:
            home = sets.find(out_of(c))
            own = [n if n is not None and sets.find(n) == home else None
                   for n in nodes_of[c.index]]
            lane.operands[c.index] = own
            for n in own:
                if n is not None and n not in lane.order:
                    lane.order.append(n)
    return [lane for lane in lanes.values() if any(c.shape for c in lane.ops)]


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


def _kinds(graph: Graph, lane: _Lane, scratch: set[int], producers: dict[int, int],
           readers: dict[int, list[int]], leaving: set[int], candidates: set[int]
           ) -> list[str] | None:
    """Each node's arena kind (state, fresh, scratch), or None when the lane cannot be fused."""
    mine = {c.index for c in lane.ops}
    inputs = set(graph.inputs)
    kinds = []
    for root, _ in lane.order:
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
            elif value.shape and value.c_order and made_by not in candidates and \
                    _producer_accepts_out(graph.ops[made_by]):
                kinds.append("fresh")
            else:
                return None
    return kinds


def _signature(graph: Graph, lane: _Lane) -> tuple:
    """What lanes of one group share: node kinds, dtypes and 0-d-ness, and op by op the
    callable, the constants and which node each operand is."""
    index = {n: k for k, n in enumerate(lane.order)}
    parts: list[Any] = [tuple((kind, graph.values[r].dtype, graph.values[r].shape == ())
                              for kind, (r, _) in zip(lane.kinds, lane.order))]
    for c in lane.ops:
        desc: list[Any] = [c.op.kind, c.op.target if c.op.kind == "method" else id(c.op.target),
                           c.shape == ()]
        if c.form == "astype":
            dtype = c.op.args[1]
            desc.append(("dtype", np.dtype(dtype.obj if isinstance(dtype, Const) else dtype).str))
        for a, n in zip(c.inputs + [c.out], lane.operands[c.index]):
            if n is not None:
                desc.append(("n", index[n]))
            elif isinstance(a, Ref):
                desc.append(("r", a.vid))
            else:
                obj = a.obj if isinstance(a, Const) else a
                desc.append(("c", type(obj).__name__, repr(obj)))
        parts.append(tuple(desc))
    return tuple(parts)


def fuse_parallel_updates(graph: Graph, relocate: Relocate) -> int:
    """Fuse groups of identical lanes (see the module); ``relocate(vids)`` moves the state
    arrays read as ``vids`` into consecutive stretches of one new 1-D array and returns it
    (None: they cannot move). Returns the number of ops removed."""
    groups, producers = _groups(graph)
    removed: set[int] = set()  # op indices that fused ops replace
    before: dict[int, list[Op]] = {}  # op index -> ops inserted just before it
    fused_at: dict[int, list[Op]] = {}  # op index -> the fused ops that replace it
    for members in groups:
        plan = _Group(graph, members, producers).plan(relocate)
        if plan is None:
            continue
        positions, inserts, fused = plan
        removed |= positions
        fused_at[max(positions)] = fused
        for i, new in inserts.items():
            before.setdefault(i, []).extend(new)
    if not removed:
        return 0
    ops: list[Op] = []
    for i, op in enumerate(graph.ops):
        ops += before.get(i, [])
        if i in fused_at:
            ops += fused_at[i]
        elif i not in removed:
            ops.append(op)
    count = len(graph.ops) - len(ops)
    graph.ops = ops
    return count


def _groups(graph: Graph) -> tuple[list[list[_Lane]], dict[int, int]]:
    """The groups of two or more lanes with the same signature, and each value's producing
    op."""
    cands = [c for i, op in enumerate(graph.ops) if (c := _candidate(graph, i, op)) is not None]
    producers: dict[int, int] = {}
    if len(cands) < 2:
        return [], producers
    scratch = _scratch_roots(graph, cands)
    readers: dict[int, list[int]] = {}
    for i, op in enumerate(graph.ops):
        for o in op.outputs:
            producers[o] = i
        for r in graph.uses(op):
            readers.setdefault(graph.root(r), []).append(i)
    leaving = escaping(graph)
    indices = {c.index for c in cands}
    groups: dict[tuple, list[_Lane]] = {}
    for lane in _lanes(graph, cands, scratch):
        kinds = _kinds(graph, lane, scratch, producers, readers, leaving, indices)
        if kinds is not None:
            lane.kinds = kinds
            groups.setdefault(_signature(graph, lane), []).append(lane)
    return [members for members in groups.values() if len(members) > 1], producers


class _Group:
    """The rewrite of one group of lanes into calls over arenas."""

    def __init__(self, graph: Graph, lanes: list[_Lane], producers: dict[int, int]) -> None:
        self.graph, self.producers = graph, producers
        self.lanes = sorted(lanes, key=lambda lane: lane.ops[0].index)
        self.template = self.lanes[0]
        slot = next(k for k, (r, _) in enumerate(self.template.order) if graph.values[r].shape)
        self.sizes = [math.prod(graph.values[lane.order[slot][0]].shape) for lane in self.lanes]
        count = len(self.template.kinds)
        self.operand: list[Any] = [None] * count  # per node: the arena (Const, or a Ref made
        self.per_lane: list[list[Any]] = [[] for _ in range(count)]  # per replay); each lane's
        self.space: list[int | None] = [None] * count  # operand; a scratch arena's stand-in

    def plan(self, relocate: Relocate) -> tuple[set[int], dict[int, list[Op]], list[Op]] | None:
        """(indices of the ops the group replaces, ops to insert before given indices, the
        fused ops); None to leave the group as it is."""
        graph = self.graph
        positions = {c.index for lane in self.lanes for c in lane.ops}
        roots = {root for lane in self.lanes for root, _ in lane.order}
        for i in range(min(positions) + 1, max(positions)):
            op = graph.ops[i]
            if i not in positions and roots & {
                    graph.root(v) for v in graph.uses(op) + op.outputs + op.mutates}:
                return None  # something between the lanes uses their arrays: keep the order
        before: dict[int, list[Op]] = {}
        kinds = self.template.kinds
        # state first: moving it can fail, and nothing may have changed then
        for k in sorted(range(len(kinds)), key=lambda k: kinds[k] != "state"):
            if not self._arena(k, kinds[k], relocate, before):
                return None
        fused: list[Op] = []
        for j, c in enumerate(self.template.ops):
            nodes = self.template.operands[c.index]
            slots = [self.template.order.index(n) if n is not None else None for n in nodes]
            shapes = {graph.values[self.template.order[s][0]].shape == () for s in slots
                      if s is not None}
            # a write into a private arena is a write too: dead-code elimination keeps it
            written = self.space[self.template.order.index(nodes[-1])] if nodes[-1] else None
            space = [written] if written is not None else []
            mutated = [m for lane in self.lanes for m in lane.ops[j].op.mutates] + space
            if len(shapes) == 1:  # one call over the arenas
                fused.append(self._call(c, [self.operand[s] if s is not None else None
                                            for s in slots], mutated))
            else:  # a parameter-shaped slot and a per-lane 0-d one: one call per lane
                for i, lane in enumerate(self.lanes):
                    own = lane.ops[j]
                    fused.append(self._call(own, [self.per_lane[s][i] if s is not None else
                                                  None for s in slots], own.op.mutates + space))
        return positions, before, fused

    def _arena(self, k: int, kind: str, relocate: Relocate, before: dict[int, list[Op]]
               ) -> bool:
        """Make node ``k``'s arena and each lane's operand for it; False: it cannot be made."""
        graph = self.graph
        values = [graph.values[lane.order[k][0]] for lane in self.lanes]
        dtype, scalar = values[0].dtype, values[0].shape == ()
        sizes = [1] * len(values) if scalar else self.sizes
        total = sum(sizes)
        offsets = np.cumsum([0] + sizes[:-1]).tolist()
        if kind == "fresh":
            made_at = [self.producers[v.vid] for v in values]
            # the arena is made just before its first producer (not at the replay's start:
            # the forward's activations and the gradients would be alive together)
            arena = _new_value(graph, (total,), dtype, None)
            before.setdefault(min(made_at), []).append(
                Op("call", np.empty, ((total,),), {"dtype": dtype}, [arena]))
            for value, at, size, offset in zip(values, made_at, sizes, offsets):
                flat = _new_value(graph, (size,), dtype, arena)
                view = _new_value(graph, value.shape, dtype, flat)
                before.setdefault(at, []).extend([
                    Op("getitem", None, (Ref(arena), slice(offset, offset + size)), {}, [flat]),
                    Op("method", "reshape", (Ref(flat), tuple(value.shape)), {}, [view])])
                producer = graph.ops[at]
                producer.kwargs = {**producer.kwargs, "out": Ref(view)}
                producer.mutates = [*producer.mutates, view]  # (a write: no pass may drop it)
                value.view_of = view
            self.operand[k] = Ref(arena)
            self.per_lane[k] = [Ref(v.vid) for v in values]
            return True
        if kind == "state":
            moved = relocate([v.vid for v in values])
            if moved is None:
                return False
            self.operand[k] = Const(moved, _arena_name(values, "state"))
            self.per_lane[k] = [Ref(v.vid) for v in values]  # the tensors' views of it
            return True
        space = np.empty(total, dtype)
        self.space[k] = _new_value(graph, (total,), dtype, None, "const")
        name = _arena_name(values, "scratch")
        self.operand[k] = Const(space, name)
        self.per_lane[k] = [Const(space[o:o + n].reshape(v.shape), name)
                            for o, n, v in zip(offsets, sizes, values)]
        return True

    @staticmethod
    def _call(c: _Candidate, slots: list[Any], mutated: list[int]) -> Op:
        """Op ``c`` with its lane operands replaced by ``slots`` (None: keep the argument)."""
        args = [s if s is not None else a for s, a in zip(slots, c.inputs + [c.out])]
        out = args.pop()
        mutates = list(dict.fromkeys([*mutated, *([out.vid] if isinstance(out, Ref) else [])]))
        if c.form == "astype":  # into the node's arena, with astype's cast
            return Op("call", np.copyto, (out, args[0]), {"casting": "unsafe"}, [],
                      mutates=mutates, where=c.op.where)
        if c.form == "copyto":
            return Op("call", np.copyto, (out, args[0]), {}, [], mutates=mutates,
                      where=c.op.where)
        return Op("call", c.op.target, tuple(args), {"out": (out,)}, [], mutates=mutates,
                  where=c.op.where)


def _arena_name(values: list[Value], default: str) -> str:
    """What an arena holds, for the IR table: the state's own name when every lane's array has
    the same last name (``exp_avg``, ``momentum_buffer``, ``_scratch``), else the lanes' common
    owner with ``*`` (``opt.param_groups.0.params.*``), else ``default``."""
    names = [v.name for v in values]
    if not all(names):
        return default
    lasts = {_last_part(n) for n in names}
    if len(lasts) == 1:
        return lasts.pop()
    owners = {n[:len(n) - len(_last_part(n))].rstrip(".") for n in names}
    if len(owners) == 1:
        owner = owners.pop()
        return f"{owner}.*" if owner else default
    return default


def _last_part(name: str) -> str:
    """``opt.state[Parameter].exp_avg`` -> ``exp_avg``; ``opt._scratch[tuple]`` ->
    ``_scratch`` (a subscript says which entry, not what it holds)."""
    last = name.rsplit(".", 1)[-1]
    return last.split("[", 1)[0] or last


def _new_value(graph: Graph, shape: tuple, dtype: np.dtype, view_of: int | None,
               source: str = "op") -> int:
    """A new value number of ``graph`` (made by an op, or a constant's stand-in)."""
    vid = max(graph.values) + 1
    graph.values[vid] = Value(vid, tuple(shape), dtype, source, "", view_of)
    return vid
