"""Graph passes, each a small function from a Graph to a better Graph (same results).

- ``fold_constants``: a pure op whose inputs are all constants runs once, now.
- ``simplify_selects``: ``np.where(mask, 1, 0)`` on constants is the mask's cast.
- ``eliminate_common_subexpressions``: the second identical pure op reuses the first's result.
- ``eliminate_dead_code``: pure ops whose results nothing reads are dropped.
- ``plan_memory``: every ufunc result that lives only inside the replay gets a preallocated
  buffer through ``out=``, reused by later results of the same shape and dtype once its value
  (and every view of it) is dead; a value dying at the op that produces the next one gives that
  op its buffer, which is the in-place rewrite (``a = a + b`` as ``np.add(a, b, out=a)``).
Values that leave the replay (returned tensors, new ``.grad`` arrays, rebound state) keep their
own fresh arrays, and so do values some op writes into, because a fold or a merge would share
memory that the eager run did not share.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .ir import LEAF_TYPES, Const, Graph, Op, Ref, refs, walk_template

__all__ = ["hoist_checks", "fold_constants", "simplify_selects", "eliminate_identity_views",
           "eliminate_common_subexpressions",
           "eliminate_dead_code", "plan_memory", "optimize", "escaping", "mutated_roots"]


def substitute(template: Any, mapping: dict[int, Any]) -> Any:
    """``template`` with each ``Ref(v)`` for ``v`` in ``mapping`` replaced by its mapped slot
    (the very same object where nothing in it is replaced)."""
    if not mapping:
        return template  # (most calls: nothing has been replaced yet)
    kind = type(template)
    if kind is Ref:
        return mapping.get(template.vid, template)
    if kind is tuple or kind is list:
        items = None
        for i, item in enumerate(template):
            item_kind = type(item)
            if item_kind is Ref:
                new = mapping.get(item.vid, item)
            elif item_kind in LEAF_TYPES:
                continue
            else:
                new = substitute(item, mapping)
            if new is not item:
                if items is None:
                    items = list(template)
                items[i] = new
        return template if items is None else kind(items)
    if kind is dict:
        if not template:
            return template
        return {k: substitute(v, mapping) for k, v in template.items()}
    return template


def _rewrite(graph: Graph, ops: list[Op], mapping: dict[int, Any]) -> None:
    """Install a pass's ops (whose arguments it substituted as it went: a value is made before
    any op reads it) and map the outputs and state writes."""
    graph.outputs = substitute(graph.outputs, mapping)
    graph.writebacks = [(t, a, _remap(v, mapping)) for t, a, v in graph.writebacks]
    graph.ops = ops


def _remap(vid: int | None, mapping: dict[int, Any]) -> int | None:
    new = mapping.get(vid) if vid is not None else None
    return new.vid if isinstance(new, Ref) else vid


def mutated_roots(graph: Graph) -> set[int]:
    """Values whose memory some op writes into."""
    return {graph.root(m) for op in graph.ops for m in op.mutates}


def escaping(graph: Graph) -> set[int]:
    """Roots of the values that leave a replay (outputs, writebacks) or come from outside."""
    found: set[int] = set(graph.inputs)
    walk_template(graph.outputs, lambda r: found.add(graph.root(r.vid)))
    found.update(graph.root(v) for _, _, v in graph.writebacks if v is not None)
    return found


def _has_ref(template: Any) -> bool:
    return bool(refs(template))


def _run(op: Op) -> Any:
    """Evaluate a pure op whose arguments are all constants."""
    args = _consts(op.args)
    kwargs = _consts(op.kwargs)
    if op.kind == "call":
        return op.target(*args, **kwargs)
    if op.kind == "method":
        return getattr(args[0], op.target)(*args[1:], **kwargs)
    return args[0][args[1]]


def _consts(template: Any) -> Any:
    if isinstance(template, Const):
        return template.obj
    if type(template) in (tuple, list):
        return type(template)(_consts(t) for t in template)
    if type(template) is dict:
        return {k: _consts(v) for k, v in template.items()}
    return template


def _filled_buffers(graph: Graph) -> dict[int, Op]:
    """Arrays made from constants and then written once, whole, with a constant
    (``g = np.empty(shape); g[...] = 1.0``, a backward seed): value -> its one write."""
    writes: dict[int, list[Op]] = {}
    for op in graph.ops:
        for m in op.mutates:
            writes.setdefault(graph.root(m), []).append(op)
    made = {op.outputs[0] for op in graph.ops
            if op.kind == "call" and len(op.outputs) == 1 and not op.mutates
            and not _has_ref((op.args, op.kwargs))}
    found = {}
    for vid, ops in writes.items():
        op = ops[0]
        if (vid in made and len(ops) == 1 and op.kind == "setitem"
                and op.args[0] == Ref(vid) and op.args[1] is Ellipsis
                and not _has_ref(op.args[2])):
            found[vid] = op
    return found


def fold_constants(graph: Graph) -> Graph:
    """Run pure ops on constants now; their results become constants of the replay. A fold
    can make a buffer's fill value constant, which the next round folds with the buffer."""
    fills = _filled_buffers(graph)
    for _ in range(3):
        if not _fold_once(graph, fills):
            break
        newer = _filled_buffers(graph)
        if newer.keys() <= fills.keys():
            break
        fills = newer
    return graph


def _fold_once(graph: Graph, fills: dict[int, Op]) -> bool:
    """One round of ``fold_constants``; whether it folded anything."""
    leaving = escaping(graph)
    filled = {vid: op for vid, op in fills.items() if vid not in leaving}
    fill_ops = {id(op) for op in filled.values()}
    unsafe = (mutated_roots(graph) - set(filled)) | leaving
    mapping: dict[int, Any] = {}
    kept = []
    for op in graph.ops:
        op.args, op.kwargs = substitute(op.args, mapping), substitute(op.kwargs, mapping)
        if op.kind == "setitem" and isinstance(op.args[0], Const) and id(op) in fill_ops:
            target = op.args[0].obj
            target.flags.writeable = True
            target[...] = _consts(op.args[2])
            target.flags.writeable = False
            continue
        if (op.pure and not _has_ref((op.args, op.kwargs)) and op.unpack is None
                and len(op.outputs) == 1
                and op.outputs[0] not in unsafe
                and not any(graph.root(o) in unsafe for o in op.outputs)):
            value = _run(op)
            if isinstance(value, np.ndarray):
                value.flags.writeable = False  # shared by every replay
            mapping[op.outputs[0]] = Const(value)
            continue
        kept.append(op)
    folded = len(kept) != len(graph.ops)
    _rewrite(graph, kept, mapping)
    return folded


def _key(template: Any) -> Any:
    """A hashable identity of an op's arguments (constants by object identity)."""
    if isinstance(template, Ref):
        return ("v", template.vid)
    if isinstance(template, Const):
        return ("c", id(template.obj))
    if type(template) in (tuple, list):
        return (type(template).__name__, *(_key(t) for t in template))
    if type(template) is dict:
        return ("d", *((k, _key(v)) for k, v in sorted(template.items())))
    if isinstance(template, slice):
        return ("s", template.start, template.stop, template.step)
    try:
        hash(template)
    except TypeError:
        return ("o", id(template))
    return ("l", type(template).__name__, template)


def eliminate_common_subexpressions(graph: Graph) -> Graph:
    """Merge repeated pure ops (same call, same arguments) that no write in between could
    tell apart."""
    unsafe = mutated_roots(graph) | escaping(graph)
    seen: dict[Any, Op] = {}  # key -> the first op
    # root -> the keys of ops that read it (a key's arguments name its values, so the roots it
    # reads are the same whichever op made the entry; a stale key only forgets an entry early
    # when it reads the written root too, which it then does)
    readers: dict[int, list[Any]] = {}
    mapping: dict[int, Any] = {}
    kept = []

    def remember(key: Any, op: Op) -> None:
        seen[key] = op
        for r in {graph.root(v) for v in graph.uses(op)}:
            readers.setdefault(r, []).append(key)

    for op in graph.ops:
        op.args, op.kwargs = substitute(op.args, mapping), substitute(op.kwargs, mapping)
        if op.mutates:  # a write changes what the ops that read its memory would give now
            for r in {graph.root(m) for m in op.mutates}:
                for key in readers.pop(r, ()):
                    seen.pop(key, None)
        if op.kind == "check":  # the same test of an unchanged value: decided already
            key = ("check", op.target, _key(op.args), repr(op.expected))
            if key in seen:
                continue
            remember(key, op)
        elif op.pure and op.outputs and not any(graph.root(o) in unsafe for o in op.outputs):
            key = (op.kind, _key(op.target) if op.kind != "call" else id(op.target),
                   _key(op.args), _key(op.kwargs))
            found = seen.get(key)
            if found is not None and len(found.outputs) == len(op.outputs):
                for mine, theirs in zip(op.outputs, found.outputs):
                    mapping[mine] = Ref(theirs)
                continue
            remember(key, op)
        kept.append(op)
    _rewrite(graph, kept, mapping)
    return graph


def eliminate_dead_code(graph: Graph) -> Graph:
    """Drop pure ops whose results nothing reads."""
    live: set[int] = set()
    walk_template(graph.outputs, lambda r: live.add(r.vid))
    live.update(v for _, _, v in graph.writebacks if v is not None)
    kept: list[Op] = []
    for op in reversed(graph.ops):
        if op.pure and not any(o in live for o in op.outputs):
            continue
        kept.append(op)
        used = graph.uses(op)
        live.update(used)
        live.update(map(graph.root, used))
    graph.ops = kept[::-1]
    graph.inputs = [v for v in graph.inputs if v in live]
    return graph


def _plannable(op: Op) -> bool:
    """A ufunc call with one fresh result, or a C-ordered ``np.empty`` a kernel fills through
    ``out=`` views (ReLU's rows, a convolution's output): what memory planning may place."""
    if op.kind != "call" or len(op.outputs) != 1:
        return False
    if op.target is np.empty:
        return set(op.kwargs) <= {"dtype"} or op.kwargs.get("order", "C") == "C" and \
            set(op.kwargs) <= {"dtype", "order"}
    return isinstance(op.target, np.ufunc) and op.target.nout == 1 and "out" not in op.kwargs


def plan_memory(graph: Graph) -> list[tuple[tuple, np.dtype]]:
    """Give ufunc results and ``np.empty`` buffers that die inside the replay reusable
    buffers; returns the buffers' (shape, dtype) list (allocated once per compiled entry)."""
    outside = escaping(graph)
    unsafe = mutated_roots(graph) | outside
    last_use: dict[int, int] = {}
    for i, op in enumerate(graph.ops):
        for used in graph.uses(op):
            last_use[graph.root(used)] = i
    buffers: list[tuple[tuple, np.dtype]] = []
    free: dict[tuple, list[int]] = {}
    # op index -> the (buffer, key)s free from then on: each value's last use comes after
    # the op making it
    released: dict[int, list[tuple[int, tuple]]] = {}
    for i, op in enumerate(graph.ops):
        for buf, key in released.pop(i, ()):
            free.setdefault(key, []).append(buf)
        if not _plannable(op):
            continue
        vid = op.outputs[0]
        # an empty buffer is there to be written into: only leaving the replay rules it out
        if vid in (outside if op.target is np.empty else unsafe) or vid not in last_use or \
                not graph.values[vid].c_order:
            continue  # (a result NumPy lays out in another order keeps its own array)
        value = graph.values[vid]
        key = (value.shape, value.dtype)
        pool = free.get(key)
        if pool:
            buf = pool.pop()
        else:
            buf = len(buffers)
            buffers.append(key)
        op.out_buffer = buf
        released.setdefault(last_use[vid], []).append((buf, key))
    return buffers


def hoist_checks(graph: Graph) -> Graph:
    """Move each data-dependent check, with the pure ops that compute what it tests, up to just
    after the last op that writes anything they read: a failing check then stops a replay
    before its side effects wherever the data allow (a target-index check before the forward's
    running-statistics update, say)."""
    ops = list(graph.ops)
    checks = [op for op in ops if op.kind == "check"]
    if not checks:
        return graph
    root = graph.root
    # indexes built once (a trace has thousands of ops and may have a hundred checks): the op
    # making each value, and the ops writing each root (making it or a view of it, or writing
    # into it); ``index`` follows the ops as they move
    producer: dict[int, Op] = {}
    writers: dict[int, list[Op]] = {}
    for op in ops:
        for v in op.outputs:
            producer[v] = op
        for r in {root(v) for v in op.outputs} | {root(m) for m in op.mutates}:
            writers.setdefault(r, []).append(op)
    index = {id(op): i for i, op in enumerate(ops)}
    for check in checks:
        k = index[id(check)]
        # the check and, transitively, the pure ops making what it reads (all before it)
        members, pending, visited = {k}, list(graph.uses(check)), set()
        while pending:
            vid = pending.pop()
            if vid in visited:
                continue
            visited.add(vid)
            made_by = producer.get(vid)
            if made_by is not None and made_by.pure:
                members.add(index[id(made_by)])
                pending += graph.uses(made_by)
        reads = {root(v) for i in members for v in graph.uses(ops[i])}
        # just after the last op outside the chain that writes what it reads
        position = max((index[id(w)] + 1 for r in reads for w in writers.get(r, ())
                        if index[id(w)] < k and index[id(w)] not in members), default=0)
        moving = sorted(i for i in members if i >= position)
        if moving == list(range(position, position + len(moving))):
            continue  # already in place
        # (a check often moves thousands of ops up, an optimizer's test of its learning rate
        # to the replay's start: the window is rebuilt from slices, its indexes in one update)
        window = [ops[i] for i in moving]
        start = position
        for i in moving:
            window += ops[start:i]
            start = i + 1
        window += ops[start:k + 1]
        ops[position:k + 1] = window
        index.update(zip(map(id, window), range(position, k + 1)))
    graph.ops = ops
    return graph


def eliminate_identity_views(graph: Graph) -> Graph:
    """Drop reshapes to the shape a value already has (the eager code cannot know that the
    batch-folding ``reshape(-1, n)`` it makes is a no-op for a 2-D input; the replay does)."""
    mapping: dict[int, Any] = {}
    kept = []
    for op in graph.ops:
        op.args, op.kwargs = substitute(op.args, mapping), substitute(op.kwargs, mapping)
        if (op.kind == "method" and op.target == "reshape" and not op.kwargs
                and len(op.outputs) == 1 and isinstance(op.args[0], Ref)):
            source, out = graph.values[op.args[0].vid], graph.values[op.outputs[0]]
            if source.shape == out.shape:
                mapping[op.outputs[0]] = op.args[0]
                continue
        kept.append(op)
    _rewrite(graph, kept, mapping)
    return graph


def simplify_selects(graph: Graph) -> Graph:
    """``np.where(mask, ones, zeros)`` between constant ones and (positive) zeros, which the
    gradient of a sum through a ReLU becomes once the sum's seed is folded, is the boolean mask
    cast to the result's dtype: the same values, one cast (a third of a small select's time)."""
    for i, op in enumerate(graph.ops):
        if op.kind != "call" or op.target is not np.where or len(op.args) != 3 or op.kwargs \
                or not isinstance(op.args[0], Ref) or len(op.outputs) != 1:
            continue
        mask, ones, zeros = op.args
        result, tested = graph.values[op.outputs[0]], graph.values[mask.vid]
        if tested.dtype == np.bool_ and tuple(tested.shape) == tuple(result.shape) and \
                _all_equal(ones, 1) and _all_equal(zeros, 0):
            graph.ops[i] = Op("method", "astype", (mask, result.dtype), {}, op.outputs,
                              where=op.where)
    return graph


def _all_equal(template: Any, value: float) -> bool:
    """Whether ``template`` is a constant whose every element is ``value`` (a zero: +0.0)."""
    obj = template.obj if isinstance(template, Const) else template
    if isinstance(obj, Ref) or not isinstance(obj, (np.ndarray, np.generic, int, float, bool)):
        return False
    arr = np.asarray(obj)
    return arr.dtype.kind in "biuf" and bool(np.all(arr == value)) and not (
        arr.dtype.kind == "f" and bool(np.any(np.signbit(arr))))


def optimize(graph: Graph, fuse: Callable[[Graph], Any] | None = None
             ) -> list[tuple[tuple, np.dtype]]:
    """All passes in order (``fuse``, when given, runs just before memory planning); returns
    the memory plan's buffers."""
    fold_constants(graph)
    simplify_selects(graph)
    eliminate_identity_views(graph)
    eliminate_common_subexpressions(graph)
    eliminate_dead_code(graph)
    if fuse is not None and fuse(graph):
        eliminate_dead_code(graph)  # the arrays the fused ops no longer read
    return plan_memory(graph)
