"""``Trace``: records one eager run of a function into a ``Graph``.

The trace numbers every array it sees (inputs, constants, results), turns each NumPy call into an
``Op`` whose arguments are templates (``Ref(v)`` for traced values, ``Const`` for anything else
captured), and notes which source line of the user's code led to it. While it is active it also
patches the NumPy creation functions (``np.zeros`` and friends: a buffer the step fills must be a
traced value, not a constant) and routes the package's random generators through a recorder, so
that a replay draws fresh numbers from the same generator.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import Any

import numpy as np

from .._core.tracing import tracing_state
from .ir import Const, Graph, Op, Ref, Value
from .traced_array import (
    ACTIVE,
    GraphBreakError,
    TracedArray,
    as_traced,
    plain,
    record,
    unwrap,
)

__all__ = ["Trace"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(np.__file__)
# NumPy functions that make new arrays from Python data or shapes; while tracing they return
# traced values so the buffers a step fills are followed.
_CREATION = ("zeros", "ones", "empty", "full", "arange", "eye", "identity", "linspace", "array",
             "asarray", "asanyarray", "ascontiguousarray", "asfortranarray", "tri")
_ORIGINAL = {name: getattr(np, name) for name in _CREATION}
# NumPy's global random functions (and new generators): draws a replay would freeze.
_NP_RANDOM = ("rand", "randn", "random", "random_sample", "randint", "normal", "uniform",
              "choice", "permutation", "shuffle", "binomial", "poisson", "default_rng",
              "standard_normal", "exponential", "beta", "gamma", "multinomial")
_AS_IS = (_ORIGINAL["asarray"], _ORIGINAL["asanyarray"])
# argument types that are their own template (no Ref or Const inside)
_PLAIN = frozenset({int, float, bool, str, type(None), type(Ellipsis)})


class Trace:
    """The recording of one call: a Graph plus the bookkeeping that builds it."""

    def __init__(self, fullgraph: bool) -> None:
        self.graph = Graph()
        self.fullgraph = fullgraph
        self.broken: str | None = None
        self.thread = threading.get_ident()
        ACTIVE.generation += 1
        self.generation = ACTIVE.generation
        self._patched: list[tuple[Any, str, Any]] = []
        self._refs: list[Ref] = []  # Ref(v) for each value v (one object each: Refs are immutable)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Make this the active trace and patch NumPy's creation functions."""
        ACTIVE.trace = self
        tracing_state.active = True
        tracing_state.on_graph_break = self.graph_break
        tracing_state.record_call = lambda fn, args: record("call", fn, args, {})
        for name in _CREATION:
            original = _ORIGINAL[name]
            self._patched.append((np, name, original))
            setattr(np, name, self._creation(original))
        for name in _NP_RANDOM:
            original = getattr(np.random, name)
            self._patched.append((np.random, name, original))
            setattr(np.random, name, self._frozen_random(name, original))

    def stop(self) -> None:
        """Undo ``start``."""
        for owner, name, original in reversed(self._patched):
            setattr(owner, name, original)
        self._patched.clear()
        ACTIVE.trace = None
        tracing_state.active = False
        tracing_state.on_graph_break = None
        tracing_state.record_call = None

    def recording(self) -> bool:
        """Whether NumPy calls are being recorded (active, not broken, on the tracing thread)."""
        return self.broken is None and threading.get_ident() == self.thread

    def graph_break(self, reason: str) -> None:
        """Stop recording (the run goes on eagerly), or raise with ``fullgraph=True``."""
        if not self.recording():
            return
        where = user_line()
        self.broken = f"{reason} at {where}" if where else reason
        if self.fullgraph:
            raise GraphBreakError(f"tl.compile(fullgraph=True): graph break: {self.broken}")

    # -- values ------------------------------------------------------------------------------
    def new_value(self, arr: np.ndarray, source: str, name: str = "",
                  view_of: int | None = None) -> int:
        """Number a new value with ``arr``'s shape and dtype."""
        vid = len(self.graph.values)
        self.graph.values[vid] = Value(vid, tuple(arr.shape), arr.dtype, source, name, view_of,
                                       bool(arr.flags.c_contiguous))
        self._refs.append(Ref(vid))
        return vid

    def number(self, traced: TracedArray, vid: int) -> int:
        """Mark ``traced`` as value ``vid`` of this trace."""
        traced._tv, traced._gen = vid, self.generation
        return vid

    def vid(self, obj: TracedArray) -> Any:
        """``obj``'s value number in this trace (None: not numbered by it)."""
        return obj._tv if obj._gen == self.generation else None

    def add_input(self, arr: np.ndarray, source: str, name: str) -> TracedArray:
        """A traced view of ``arr`` (same memory) that the replay reads from ``name``."""
        traced = arr.view(TracedArray)
        self.number(traced, self.new_value(arr, source, name))
        self.graph.inputs.append(self.vid(traced))
        return traced

    def template(self, obj: Any) -> Any:
        """``obj`` as an op argument: traced arrays as Refs, captured arrays as Consts."""
        if isinstance(obj, TracedArray):
            if obj._gen == self.generation:
                if obj._tv is not None:
                    return self._refs[obj._tv]
                self.graph_break("an array made by a NumPy operation the compiler cannot follow")
            obj = plain(obj)  # from an earlier trace (a cache filled then): plain data
        if isinstance(obj, np.ndarray):
            base = obj.base
            for _ in range(8):
                if base is None:
                    break
                if isinstance(base, TracedArray) and self.vid(base) is not None:
                    self.graph_break("a plain view of a traced array")
                    break
                base = getattr(base, "base", None)
            return Const(obj)
        kind = type(obj)
        if kind is tuple or kind is list:
            items = [o if type(o) in _PLAIN else self.template(o) for o in obj]
            return items if kind is list else tuple(items)
        if kind is dict:
            return {k: v if type(v) in _PLAIN else self.template(v) for k, v in obj.items()}
        if type(obj) is slice:
            return slice(*(int(c) if isinstance(c, TracedArray) else c
                           for c in (obj.start, obj.stop, obj.step)))
        return obj

    def wrap_result(self, result: Any, args: tuple) -> tuple[Any, list[int]]:
        """A call's result as traced values, and their numbers."""
        if isinstance(result, np.ndarray):
            if result.base is None:
                traced = as_traced(result)
                vid = self.number(traced, self.new_value(result, "op"))
            else:
                traced = result.view(TracedArray)
                vid = self.number(traced, self.new_value(result, "op",
                                                         view_of=self._viewed(result, args)))
            return traced, [vid]
        if isinstance(result, (np.generic, bool, int, float)):
            traced = as_traced(result)
            return traced, [self.number(traced, self.new_value(traced, "op"))]
        if isinstance(result, (tuple, list)) and all(isinstance(r, (np.ndarray, np.generic))
                                                    for r in result):
            items = [self.wrap_result(r, args) for r in result]
            return type(result)(t for t, _ in items), [v[0] for _, v in items]
        self.graph_break(f"a NumPy call returned a {type(result).__name__}")
        return result, []

    def _viewed(self, result: np.ndarray, args: tuple) -> int | None:
        """The traced argument whose memory the view ``result`` shares."""
        for a in args:
            if isinstance(a, TracedArray) and self.vid(a) is not None and np.may_share_memory(
                    result, plain(a)):
                return self.vid(a)
        return None

    def add_op(self, kind: str, target: Any, args: tuple, kwargs: dict, result: Any,
               mutated: Any) -> Any:
        """Record one call (``record`` ran it already) and return its traced result."""
        targs, tkwargs = self.template(args), self.template(kwargs)
        mutates = []
        for m in mutated:
            if isinstance(m, TracedArray) and self.vid(m) is not None:
                mutates.append(self.vid(m))
            elif isinstance(m, np.ndarray):
                self.graph_break("a NumPy call writes into an array the compiler does not see")
        op = Op(kind, target, targs, tkwargs, [], mutates, where=user_line())
        if kind == "check":
            op.expected = result
            self.graph.ops.append(op)
            return result
        out = kwargs.get("out")
        if result is None:
            pass
        elif out is not None and _is_out(result, out):
            result = _out_object(result, out)
        else:
            result, op.outputs = self.wrap_result(result, args)
            if isinstance(result, (tuple, list)):
                op.unpack = len(result)
        if self.recording():
            self.graph.ops.append(op)
        return result

    # -- patches -----------------------------------------------------------------------------
    def _creation(self, original: Any) -> Any:
        """``np.<name>`` recording its call (a traced result) while this trace is recording."""

        def create(*args: Any, **kwargs: Any) -> Any:
            if ACTIVE.busy or not self.recording():
                return original(*args, **kwargs)
            if original in _AS_IS and isinstance(
                    args[0] if args else None, TracedArray) and not kwargs and len(args) == 1:
                return args[0]  # no conversion: the same array, as NumPy returns it
            return record("call", original, args, kwargs)

        create.__wrapped__ = original  # type: ignore[attr-defined]
        return create

    def _frozen_random(self, name: str, original: Any) -> Any:
        """``np.random.<name>``: its numbers would be constants of the replay: a graph break."""

        def draw(*args: Any, **kwargs: Any) -> Any:
            if not ACTIVE.busy:
                self.graph_break(f"np.random.{name} (use the tl random functions, whose draws "
                                 "a replay repeats)")
            return original(*args, **kwargs)

        return draw

    def patch_generator(self, generator: Any) -> None:
        """Route ``generator._rng`` (a tl.Generator's NumPy generator) through a recorder."""
        if isinstance(generator._rng, RecordingRNG):
            return
        self._patched.append((generator, "_rng", generator._rng))
        generator._rng = RecordingRNG(self, generator, generator._rng)


class RecordingRNG:
    """Stands in for a NumPy Generator while tracing: each draw is an ``rng`` op."""

    def __init__(self, trace: Trace, owner: Any, rng: np.random.Generator) -> None:
        self._trace, self._owner, self._rng = trace, owner, rng

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._rng, name)
        if not callable(method) or name in ("spawn", "bit_generator"):
            self._trace.graph_break(f"Generator.{name} (the generator's state is used directly)")
            return method

        def draw(*args: Any, **kwargs: Any) -> Any:
            trace = self._trace
            # one op: the draw's own NumPy calls are not recorded (a replay calls the draw)
            busy, ACTIVE.busy = ACTIVE.busy, True
            try:
                result = method(*unwrap(args), **unwrap(kwargs))
            finally:
                ACTIVE.busy = busy
            if not trace.recording():
                return result
            if not isinstance(result, np.ndarray):
                trace.graph_break(f"a random Python number from Generator.{name}")
                return result
            op = Op("rng", (self._owner, name), trace.template(args), trace.template(kwargs), [],
                    where=user_line())
            traced, op.outputs = trace.wrap_result(result, args)
            trace.graph.ops.append(op)
            return traced

        return draw


def _is_out(result: Any, out: Any) -> bool:
    outs = out if isinstance(out, tuple) else (out,)
    results = result if isinstance(result, tuple) else (result,)
    return any(isinstance(o, np.ndarray) for o in outs) and len(results) == len(outs)


def _out_object(result: Any, out: Any) -> Any:
    outs = out if isinstance(out, tuple) else (out,)
    if isinstance(result, tuple):
        return tuple(outs)
    return outs[0]


_INSIDE: dict[str, bool] = {}  # file name -> whether it belongs to tinygrad_lite or NumPy


def user_line() -> str:
    """``file:line`` of the innermost frame outside tinygrad_lite and NumPy."""
    frame: Any = sys._getframe(2)
    inside = _INSIDE
    while frame is not None:
        name = frame.f_code.co_filename
        known = inside.get(name)
        if known is None:
            known = inside[name] = name.startswith(_PACKAGE_DIR) or name.startswith(_NUMPY_DIR)
        if not known:
            return f"{name.rsplit('/', 1)[-1]}:{frame.f_lineno}"
        frame = frame.f_back
    return ""
