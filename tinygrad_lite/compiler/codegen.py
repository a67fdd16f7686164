"""Generate the replay: a Python function of straight-line NumPy calls, from a Graph.

Every callable, constant and state object the code needs is bound in the function's globals
under a short name (``np_add``, ``c3``, ``K5``); values are locals ``v0, v1, ...``; planned
buffers are ``b0, b1, ...``. The replay reads its inputs (arguments' and state arrays), runs the
ops, makes the state writes the traced call made (new ``.grad`` tensors, rebound arrays) and
returns the function's result with fresh tensors around the computed arrays.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .ir import Const, Graph, Op, Ref, callable_name, walk_template

__all__ = ["generate", "CheckFailedError"]


class CheckFailedError(Exception):
    """A replay's data-dependent check went the other way than while tracing (the arrays the
    replay had changed are put back first); carries the check's op index."""


_CONVERT = {"bool": "bool", "float": "float", "int": "int", "index": "_index", "item": None}


class _Names:
    """Binds objects to names in the generated function's globals."""

    def __init__(self) -> None:
        self.env: dict[str, Any] = {"np": np, "CheckFailedError": CheckFailedError,
                                    "_index": lambda a: a.__index__()}
        self._by_id: dict[int, str] = {}

    def bind(self, obj: Any, hint: str = "c") -> str:
        name = self._by_id.get(id(obj))
        if name is None:
            base = "".join(ch if ch.isalnum() else "_" for ch in hint)[:24] or "c"
            name = f"{base}_{len(self._by_id)}"
            self._by_id[id(obj)] = name
            self.env[name] = obj
        return name


def _render(template: Any, names: _Names) -> str:
    if isinstance(template, Ref):
        return f"v{template.vid}"
    if isinstance(template, Const):
        return names.bind(template.obj, "c")
    if type(template) is tuple:
        inner = ", ".join(_render(t, names) for t in template)
        return f"({inner},)" if len(template) == 1 else f"({inner})"
    if type(template) is list:
        return "[" + ", ".join(_render(t, names) for t in template) + "]"
    if type(template) is dict:
        return "{" + ", ".join(f"{k!r}: {_render(v, names)}" for k, v in template.items()) + "}"
    if type(template) is slice:
        return (f"slice({_render(template.start, names)}, {_render(template.stop, names)}, "
                f"{_render(template.step, names)})")
    if template is None or type(template) in (bool, int, str):
        return repr(template)
    if type(template) is float and math.isfinite(template):
        return repr(template)
    if template is Ellipsis:
        return "Ellipsis"
    return names.bind(template, type(template).__name__)


# ufuncs whose output NumPy deprecates passing positionally (NumPy 2.4)
_OUT_BY_KEYWORD = (np.maximum, np.minimum)


def _positional_out(op: Op) -> bool:
    """Whether a call's single output can be passed positionally: ``np.add(a, b, c)`` skips
    the keyword parsing of ``out=(c,)``, about 0.5 us of each small ufunc call."""
    fn = op.target
    if not isinstance(fn, np.ufunc) or fn.nout != 1 or fn in _OUT_BY_KEYWORD or \
            len(op.args) != fn.nin:
        return False
    out = op.kwargs.get("out")
    if set(op.kwargs) - {"out"} or (out is not None) == (op.out_buffer is not None):
        return False  # other keywords, or no output (or two) to move
    return out is None or (type(out) is tuple and len(out) == 1) or isinstance(out, Ref)


def _call_args(op: Op, names: _Names, skip_first: bool = False) -> str:
    args = op.args[1:] if skip_first else op.args
    parts = [_render(a, names) for a in args]
    if op.kind == "call" and _positional_out(op):
        out = op.kwargs.get("out")
        parts.append(f"b{op.out_buffer}" if out is None else
                     _render(out[0] if type(out) is tuple else out, names))
        return ", ".join(parts)
    parts += [f"{k}={_render(v, names)}" for k, v in op.kwargs.items()]
    if op.out_buffer is not None:
        parts.append(f"out=b{op.out_buffer}")
    return ", ".join(parts)


def _undispatched(fn: Any) -> Any:
    """NumPy's implementation behind an ``__array_function__`` dispatcher (``np.where``,
    ``np.concatenate``): a replay passes plain arrays only, so the dispatch (a third of a
    small ``np.where``'s time) is skipped."""
    implementation = getattr(fn, "_implementation", None)
    return implementation if callable(implementation) else fn


def _line(op: Op, index: int, names: _Names) -> str:
    if op.unpack is not None:
        lhs = ", ".join(f"v{o}" for o in op.outputs) + ("," if len(op.outputs) == 1 else "")
        lhs += " = "
    elif op.outputs:
        lhs = f"v{op.outputs[0]} = "
    else:
        lhs = ""
    if op.kind == "call" and op.target is np.empty and op.out_buffer is not None:
        return f"{lhs}b{op.out_buffer}"  # a planned buffer: nothing to allocate
    if op.kind == "call":
        name = callable_name(op.target)  # np.add -> np_add; a package kernel by its own name
        hint = getattr(op.target, "kernel_name", None)  # a fused loop kernel: kernel3
        fn = names.bind(_undispatched(op.target), hint if isinstance(hint, str) else
                        name.replace("np.", "np_") if name.startswith("np.")
                        else name.rsplit(".", 1)[-1])
        return f"{lhs}{fn}({_call_args(op, names)})"
    if op.kind == "method":
        return f"{lhs}{_render(op.args[0], names)}.{op.target}({_call_args(op, names, True)})"
    if op.kind == "getitem":
        return f"{lhs}{_render(op.args[0], names)}[{_render(op.args[1], names)}]"
    if op.kind == "setitem":
        return f"{_render(op.args[0], names)}[{_render(op.args[1], names)}] = " \
               f"{_render(op.args[2], names)}"
    if op.kind == "rng":
        gen = names.bind(op.target[0], "gen")
        return f"{lhs}{gen}._rng.{op.target[1]}({_call_args(op, names)})"
    value = _render(op.args[0], names)
    convert = _CONVERT[op.target]
    expr = f"{value}.item()" if convert is None else f"{convert}({value})"
    expected = names.bind(op.expected, "expected")
    return f"if {expr} != {expected}: raise CheckFailedError({index})"


def _restores(graph: Graph) -> dict[int, list[int]]:
    """For each check op that runs after ops writing into input or state arrays: those arrays
    (their root values), to put back when the check fails."""
    written: list[int] = []
    restore: dict[int, list[int]] = {}
    for i, op in enumerate(graph.ops):
        if op.kind == "check" and written:
            restore[i] = list(written)
        for vid in op.mutates:
            root = graph.root(vid)
            if graph.values[root].source in ("input", "state") and root not in written:
                written.append(root)
    return restore


def generate(graph: Graph, readers: dict[int, str], writebacks: list[str],
             result: str, buffers: list[tuple[tuple, np.dtype]],
             names_env: dict[str, Any], prologue: list[str] | None = None) -> tuple[str, Any]:
    """The replay's source and function ``replay(A)`` (``A``: the argument tensors).

    ``readers`` maps each input value to the expression that reads it (``A[0]._data``,
    ``K3._data``); ``prologue`` statements run first, ``writebacks`` after the ops; ``result``
    builds the return value; ``names_env`` binds the names those expressions use."""
    names = _Names()
    names.env.update(names_env)
    for i, (shape, dtype) in enumerate(buffers):
        names.env[f"b{i}"] = np.empty(shape, dtype)
    body = [f"v{vid} = {readers[vid]}" for vid in graph.inputs] + list(prologue or [])
    # drop each local after its last use, as the eager run frees its temporaries (else every
    # intermediate of the step would stay alive until the replay returns)
    keep: set[int] = set()
    walk_template(graph.outputs, lambda r: keep.add(r.vid))
    keep.update(v for _, _, v in graph.writebacks if v is not None)
    # a check that fails after the replay changed inputs or state (batch norm's running
    # statistics, say) puts them back before raising, so the eager run that follows starts from
    # the call's own state: each such array is copied at the start (the generators' states are
    # put back by the caller)
    restore = _restores(graph)
    last: dict[int, int] = {}
    for i, op in enumerate(graph.ops):
        for used in graph.uses(op) + restore.get(i, []):
            last[used] = i
        for out in op.outputs:
            last.setdefault(out, i)
    dying: dict[int, list[int]] = {}
    for vid, i in last.items():
        if vid not in keep:
            dying.setdefault(i, []).append(vid)
    saved = sorted({vid for vids in restore.values() for vid in vids})
    body += [f"s{vid} = v{vid}.copy()" for vid in saved]
    last_check = max(restore, default=-1)
    for i, op in enumerate(graph.ops):
        line = _line(op, i, names)
        if restore.get(i):
            puts = "".join(f"np.copyto(v{vid}, s{vid}); " for vid in restore[i])
            line = line.replace("raise CheckFailedError", puts + "raise CheckFailedError")
        where = f"  # {op.where}" if op.where else ""
        body.append(line + where)
        if i in dying:
            body.append("del " + ", ".join(f"v{v}" for v in sorted(dying[i])))
        if i == last_check and saved:
            body.append("del " + ", ".join(f"s{vid}" for vid in saved))
    body += writebacks
    body.append(f"return {result}")
    source = "def replay(A):\n" + "\n".join("    " + line for line in body) + "\n"
    code = compile(source, "<tl.compile replay>", "exec")
    # a module name inside the package: NumPy's warnings raised by the replay are attributed
    # to it, so the package's warnings filter keeps them silent as in eager mode (quiet.py)
    names.env.setdefault("__name__", "tinygrad_lite.compiler.replay")
    exec(code, names.env)  # noqa: S102 (our own generated source)
    return source, names.env["replay"]
