"""Vertical fusion: runs of elementwise ops over one shape become one loop kernel each.

Between two GEMMs a training step makes chains of whole-array NumPy calls (a layer norm's
scale and shift, GELU's polynomial, an optimizer's update of one parameter), each a pass over
memory with its own temporary. ``fuse_loops`` finds maximal runs of consecutive elementwise ops
(ufuncs, ``np.clip``, ``np.where``, ``astype``, ``copy``/``copyto``) whose results have one
shape, and replaces each run of two or more by a single call of a ``LoopKernel`` (see
``loop_kernels``): it reads each input once, keeps the intermediates in registers and writes
only what the rest of the replay reads. GEMMs, reductions, indexing and views stay as they
are.

A run is cut wherever fusing would change what an op sees. Every array the group writes is
read and written by the group only through that one value (never through another view of its
memory), so element ``i`` of every write depends on element ``i`` of the reads, and running
the group element by element gives what running it op by op gave. Inputs may broadcast
(a per-row statistic, a bias, a 0-d learning rate); results the rest of the replay reads are
written into new C-ordered buffers, which memory planning reuses like any other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ir import Const, Graph, Op, Ref
from .loop_kernels import COMPARISONS, EXPRESSIONS, Arg, KernelPlan, LoopKernel, Step
from .passes import escaping

__all__ = ["fuse_loops"]

_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))
_VALUE_DTYPES = frozenset({np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.bool_),
                           np.dtype(np.int64), np.dtype(np.int32)})
_SCALARS = (int, float, bool, np.generic)


class _Elementwise:
    """One op read as an elementwise step: its form, ufunc, operands, output slot and the
    shape it iterates over."""

    __slots__ = ("op", "form", "ufunc", "operands", "out", "fresh", "shape")

    def __init__(self, op: Op, form: str, ufunc: Any, operands: list[Any], out: Any,
                 fresh: bool, shape: tuple) -> None:
        self.op, self.form, self.ufunc, self.operands = op, form, ufunc, operands
        self.out, self.fresh, self.shape = out, fresh, shape


def _out_slot(op: Op, args: list[Any], nin: int) -> tuple[Any, bool] | None:
    """(output template, whether it is a new value) of a one-output call."""
    out = op.kwargs.get("out")
    if type(out) is tuple:
        if len(out) != 1:
            return None
        out = out[0]
    if len(args) == nin + 1 and out is None:
        out = args.pop()
    if len(args) != nin:
        return None
    if out is None:
        if len(op.outputs) != 1:
            return None
        return Ref(op.outputs[0]), True
    return out, False


def _read(graph: Graph, op: Op) -> _Elementwise | None:
    """``op`` as an elementwise step, or None."""
    if op.unpack is not None:
        return None
    fn = op.target
    if op.kind == "method":
        if op.kwargs or len(op.outputs) != 1:
            return None
        if fn == "astype" and len(op.args) == 2:
            target = op.args[1].obj if isinstance(op.args[1], Const) else op.args[1]
            try:
                dtype = np.dtype(target)
            except TypeError:
                return None
            if dtype not in _FLOATS:
                return None
            return _make(graph, op, "cast", None, [op.args[0]], Ref(op.outputs[0]), True)
        if fn == "copy" and len(op.args) == 1:
            return _make(graph, op, "cast", None, [op.args[0]], Ref(op.outputs[0]), True)
        return None
    if op.kind != "call":
        return None
    if fn is np.copyto:
        if op.kwargs or len(op.args) != 2:
            return None
        return _make(graph, op, "cast", None, [op.args[1]], op.args[0], False)
    if fn is np.where:
        if op.kwargs or len(op.args) != 3 or len(op.outputs) != 1:
            return None
        return _make(graph, op, "where", None, list(op.args), Ref(op.outputs[0]), True)
    if fn is np.clip:
        if set(op.kwargs) - {"out"} or len(op.args) not in (3, 4):
            return None
        args = list(op.args)
        slot = _out_slot(op, args, 3)
        if slot is None or any(not (b is None or _scalar(b) is not None) for b in args[1:]):
            return None
        return _make(graph, op, "clip", None, args, *slot)
    if not isinstance(fn, np.ufunc) or fn not in EXPRESSIONS or set(op.kwargs) - {"out"}:
        return None
    args = list(op.args)
    slot = _out_slot(op, args, fn.nin)
    if slot is None:
        return None
    return _make(graph, op, "ufunc", fn, args, *slot)


def _scalar(template: Any) -> Any:
    """The Python or NumPy scalar a template holds (None: not a scalar). A 0-d constant array
    counts only when read-only: a writable one may change between replays."""
    obj = template.obj if isinstance(template, Const) else template
    if isinstance(obj, np.ndarray):
        if obj.ndim or obj.flags.writeable or obj.dtype not in _VALUE_DTYPES:
            return None
        return obj[()]
    if isinstance(obj, _SCALARS) and not isinstance(obj, (np.datetime64, np.timedelta64)):
        if isinstance(obj, np.generic) and obj.dtype not in _VALUE_DTYPES:
            return None
        return obj
    return None


def _array_info(graph: Graph, template: Any) -> tuple[tuple, np.dtype, bool] | None:
    """(shape, dtype, C-ordered) of an array operand."""
    if isinstance(template, Ref):
        v = graph.values[template.vid]
        return tuple(v.shape), np.dtype(v.dtype), bool(v.c_order)
    if isinstance(template, Const) and isinstance(template.obj, np.ndarray) and \
            _scalar(template) is None:
        obj = template.obj
        return tuple(obj.shape), obj.dtype, bool(obj.flags.c_contiguous)
    return None


def _make(graph: Graph, op: Op, form: str, ufunc: Any, operands: list[Any], out: Any,
          fresh: bool) -> _Elementwise | None:
    target = _array_info(graph, out)
    if target is None:
        return None
    shape, dtype, c_order = target
    if not shape or 0 in shape or dtype not in _VALUE_DTYPES or (fresh and not c_order):
        return None  # (a result laid out in another order keeps NumPy's own op)
    if isinstance(out, Ref) and fresh and graph.values[out.vid].view_of is not None:
        return None
    for a in operands:
        if a is None and form == "clip":
            continue
        if _scalar(a) is not None:
            continue
        info = _array_info(graph, a)
        if info is None or info[1] not in _VALUE_DTYPES or len(info[0]) > len(shape) or any(
                d not in (1, s) for d, s in zip(info[0][::-1], shape[::-1])):
            return None
    return _Elementwise(op, form, ufunc, operands, out, fresh, shape)


def _key(graph: Graph, template: Any) -> tuple[Any, Any]:
    """(memory key, operand key) of an array operand: what it shares memory with, and which
    value it is."""
    if isinstance(template, Ref):
        return ("v", graph.root(template.vid)), ("v", template.vid)
    obj = template.obj
    base = obj
    while isinstance(base.base, np.ndarray):
        base = base.base
    return ("c", id(base)), ("c", id(obj))


class _Run:
    """A run of elementwise ops being grown, with what its memory accesses allow."""

    def __init__(self, graph: Graph, first: _Elementwise, index: int) -> None:
        self.graph = graph
        self.shape = first.shape
        self.items: list[_Elementwise] = []
        self.start = index
        self.produced: set[int] = set()
        self.access: dict[Any, list[tuple[Any, bool]]] = {}  # memory -> (operand, written)
        self.state_ref = self.state_written = False
        self.mutable_const = self.const_written = False

    def admits(self, item: _Elementwise) -> bool:
        """Whether ``item`` can join without changing what any op of the run sees."""
        if item.shape != self.shape:
            return False
        graph = self.graph
        access = {k: list(v) for k, v in self.access.items()}
        state_ref, state_written = self.state_ref, self.state_written
        mutable_const, const_written = self.mutable_const, self.const_written
        slots = [(a, False) for a in item.operands if a is not None and _scalar(a) is None]
        slots.append((item.out, True))
        for template, written in slots:
            if isinstance(template, Ref) and template.vid in self.produced:
                continue
            if written and item.fresh:
                continue  # a new value: nothing else refers to it yet
            memory, operand = _key(graph, template)
            seen = access.setdefault(memory, [])
            if any(o != operand and (w or written) for o, w in seen):
                return False  # two views of one memory, one of them written
            seen.append((operand, written))
            if isinstance(template, Ref):
                if graph.values[graph.root(template.vid)].source in ("input", "state"):
                    state_ref = True
                    state_written = state_written or written
            elif template.obj.flags.writeable:
                mutable_const = True
                const_written = const_written or written
        # a writable constant may be an arena that state tensors view: never both written
        if (const_written and state_ref) or (state_written and mutable_const):
            return False
        self.access = access
        self.state_ref, self.state_written = state_ref, state_written
        self.mutable_const, self.const_written = mutable_const, const_written
        return True

    def add(self, item: _Elementwise) -> None:
        self.items.append(item)
        if item.fresh:
            self.produced.add(item.out.vid)


def fuse_loops(graph: Graph, kernels: list[LoopKernel], min_ops: int = 2) -> int:
    """Replace each run of ``min_ops`` or more elementwise ops by one loop kernel call (the
    kernels made are appended to ``kernels``); returns the number of ops removed."""
    runs: list[_Run] = []
    current: _Run | None = None
    for i, op in enumerate(graph.ops):
        item = _read(graph, op)
        if item is not None and current is not None and current.admits(item):
            current.add(item)
            continue
        if current is not None and len(current.items) >= min_ops:
            runs.append(current)
        current = None
        if item is not None:
            current = _Run(graph, item, i)
            if current.admits(item):
                current.add(item)
            else:
                current = None
    if current is not None and len(current.items) >= min_ops:
        runs.append(current)
    if not runs:
        return 0
    needed = _needed_outside(graph, runs)
    replaced: dict[int, list[Op]] = {}
    for run in runs:
        made = _rewrite(graph, run, needed, len(kernels))
        if made is None:
            continue
        new_ops, kernel = made
        kernels.append(kernel)
        replaced[run.start] = new_ops
    if not replaced:
        return 0
    ops: list[Op] = []
    skip = {run.start: len(run.items) for run in runs if run.start in replaced}
    i = 0
    while i < len(graph.ops):
        if i in skip:
            ops += replaced[i]
            i += skip[i]
        else:
            ops.append(graph.ops[i])
            i += 1
    removed = len(graph.ops) - len(ops)
    graph.ops = ops
    return removed


def _needed_outside(graph: Graph, runs: list[_Run]) -> dict[int, set[int]]:
    """For each run (by start): the roots that ops after it, the outputs and the state writes
    read."""
    leaving = escaping(graph)
    last: dict[int, int] = {}  # root -> the last op that reads (or writes) it
    for i, op in enumerate(graph.ops):
        for v in graph.uses(op):
            last[graph.root(v)] = i
    found: dict[int, set[int]] = {}
    for run in runs:
        end = run.start + len(run.items)
        found[run.start] = leaving | {vid for item in run.items if item.fresh
                                      for vid in [item.out.vid] if last.get(vid, -1) >= end}
    return found


def _rewrite(graph: Graph, run: _Run, needed: dict[int, set[int]], number: int
             ) -> tuple[list[Op], LoopKernel] | None:
    """The ops that replace ``run`` (new buffers for the values the rest reads, then the
    kernel's call) and the kernel; None when nothing of the run is read afterwards."""
    later = needed[run.start]
    args: list[Arg] = []
    arg_vids: list[int | None] = []
    index: dict[Any, int] = {}  # operand key -> argument

    def argument(template: Any, written: bool) -> int:
        _, operand = _key(graph, template)
        k = index.get(operand)
        if k is None:
            shape, dtype, c_order = _array_info(graph, template)  # type: ignore[misc]
            k = index[operand] = len(args)
            args.append(Arg(template, shape, dtype, c_order))
            arg_vids.append(template.vid if isinstance(template, Ref) else None)
        args[k].written = args[k].written or written
        return k

    steps: list[Step] = []
    stores: dict[Any, int] = {}
    produced: list[int] = []
    dtypes: dict[Any, np.dtype] = {}
    for item in run.items:
        operands: list[Any] = []
        loop_inputs: list[Any] = []
        for a in item.operands:
            if a is None:
                operands.append(None)
                continue
            scalar = _scalar(a)
            if scalar is not None:
                operands.append(("lit", scalar))
                loop_inputs.append(scalar)
            elif isinstance(a, Ref) and a.vid in produced:
                operands.append(("reg", a.vid))
                loop_inputs.append(np.empty(0, graph.values[a.vid].dtype))
            else:
                k = argument(a, False)
                operands.append(("arg", k))
                loop_inputs.append(np.empty(0, args[k].dtype))
        result = _array_info(graph, item.out)[1]  # type: ignore[index]
        loop = _loop_dtype(item, loop_inputs, result)
        if loop is None:
            return None
        if item.fresh:
            target: Any = item.out.vid
            produced.append(target)
        elif isinstance(item.out, Ref) and item.out.vid in produced:
            target = item.out.vid
        else:
            k = argument(item.out, True)
            target = ("arg", k)
            stores[target] = k
        dtypes[target] = result
        steps.append(Step(item.form, item.ufunc, operands, target, loop, result))
    materialized = [vid for vid in produced if vid in later]
    new_ops: list[Op] = []
    for vid in materialized:
        value = graph.values[vid]
        new_ops.append(Op("call", np.empty, (tuple(value.shape),), {"dtype": value.dtype},
                          [vid], where=run.items[0].op.where))
        stores[vid] = argument(Ref(vid), True)
    if not stores or not any(tuple(a.shape) == tuple(run.shape) for a in args):
        return None
    mutates: list[int] = []
    for item in run.items:
        mutates += [m for m in item.op.mutates if m not in produced]
    mutates += [a.template.vid for a in args if a.written and isinstance(a.template, Ref)]
    plan = KernelPlan(run.shape, args, steps, stores, [item.op for item in run.items],
                      produced, materialized, arg_vids)
    kernel = LoopKernel(plan, number)
    call = Op("call", kernel, tuple(a.template for a in args), {}, [],
              mutates=list(dict.fromkeys(mutates)), where=run.items[0].op.where)
    return new_ops + [call], kernel


def _loop_dtype(item: _Elementwise, inputs: list[Any], result: np.dtype) -> np.dtype | None:
    """The dtype NumPy computes ``item`` in (None: not one the kernels handle)."""
    if item.form == "cast":
        return result if result in _FLOATS else None
    values = [x for x in inputs if x is not None]
    if item.form == "where":
        values = values[1:]
    try:
        loop = np.result_type(*values)
    except (TypeError, ValueError, OverflowError):  # (a Python int beyond int64, say)
        return None
    if item.form == "ufunc" and item.ufunc in COMPARISONS:
        return loop if loop in _VALUE_DTYPES and loop.kind != "b" else None
    if item.form == "ufunc" and item.ufunc is np.true_divide and loop.kind in "biu":
        loop = np.dtype(np.float64)
    return loop if loop in _FLOATS else None
