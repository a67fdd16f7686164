"""``tl.compile``: trace a call once, replay it as generated straight-line NumPy.

The first call with a new signature runs the function eagerly while ``Trace`` records every
NumPy call it makes (the forward, the backward rules ``loss.backward()`` runs, gradient
accumulation, ``zero_grad``, the optimizer's in-place updates). The passes clean the recording
up, ``codegen`` turns it into a Python function, and later calls whose guards hold run that
function instead: no Tensor or Node objects, no engine. With the numba kernel backend (the
default when numba is installed; ``TINYGRAD_LITE_KERNELS=numpy`` turns it off) runs of
elementwise ops between the GEMMs become generated loop kernels (``loop_fusion``,
``loop_kernels``; ``compiled.kernels`` lists them), whose results are the NumPy ops' bits.
A call the compiler cannot replay (a graph break, outputs that still need autograd, Python state
the call changes) runs eagerly, with one warning that says why (``fullgraph=True`` raises
instead).
"""

from __future__ import annotations

import builtins
import contextlib
import gc
import re
import threading
import weakref
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .._core.autocast_state import autocast_state
from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase, wrap
from .._core.tracing import tracing_state
from .._core.warnings import warn
from .._kernels import backend as kernel_backend
from ..functions.generator import default_generator
from ..nn.modules.module import Module
from . import codegen, fuse, logs, loop_fusion, passes
from .config import config
from .ir import Graph, Ref
from .loop_kernels import LoopKernel, describe
from .relocate import relocator
from .state import StateWalk
from .trace import Trace
from .traced_array import GraphBreakError, TracedArray, plain

__all__ = ["compile", "CompiledFunction", "OptimizedModule", "GraphBreakError", "reset"]

_AUTOGRAD_AFTER = "its result needs autograd after the call"
LIVE: weakref.WeakSet = weakref.WeakSet()  # every CompiledFunction alive
_MAX_UNSTABLE = 2  # traces in a row that change Python state before the function runs eagerly
_MAX_CHECK_FAILURES = 3  # replays in a row stopped by a failing check before it runs eagerly
_MAX_GUARD_MISSES = 6  # retraces in a row after a failed guard (same signature) before it runs
# eagerly: a value that changes on every call (a learning rate a scheduler sets each step)
# would otherwise cost a trace per call


def reset() -> None:
    """Forget every compiled function's specialisations (PyTorch's ``torch.compiler.reset``):
    each traces again on its next call."""
    for compiled in list(LIVE):
        compiled.entries.clear()
        compiled._eager_reason = None
        compiled._unstable = compiled._check_failures = compiled._guard_misses = 0


class Entry:
    """One specialisation: its guard, the replay and what it was built from."""

    def __init__(self, key: tuple, guard: Callable[..., bool], replay: Callable | None,
                 graph: Graph | None, source: str, reason: str = "") -> None:
        self.key, self.guard, self.replay = key, guard, replay
        self.graph, self.code, self.reason = graph, source, reason
        # generators to rewind when a check fails after random draws (the eager rerun then
        # draws the same numbers the replay did)
        self.generators: list = []
        self.walk: StateWalk | None = None  # kept in explain mode, to say which guard failed
        self.kernels: list[LoopKernel] = []  # the fused loop kernels its replay calls


class CompiledFunction:
    """A function (or module) whose calls replay a traced NumPy program when the guards hold."""

    _compiler_internal = True  # not walked as state (``state.py``)

    def __init__(self, fn: Callable, fullgraph: bool = False, dynamic: bool | None = None,
                 mode: str | None = None) -> None:
        self.fn, self.fullgraph, self.dynamic, self.mode = fn, fullgraph, dynamic, mode
        LIVE.add(self)  # (``reset`` empties every cache)
        self.entries: list[Entry] = []
        self.traces = 0
        self.replays = 0
        self.explanations: list[str] = []
        self._unstable = 0
        self._check_failures = 0
        self._guard_misses = 0
        self._eager_reason: str | None = None
        self.last_traced_ops = 0  # NumPy calls the latest trace recorded
        self._warned: set[str] = set()

    @property
    def graph(self) -> Graph | None:
        """The IR of the most recent compiled specialisation (print it for a table)."""
        entry = next((e for e in self.entries if e.graph is not None), None)
        return entry.graph if entry else None

    @property
    def kernels(self) -> list[LoopKernel]:
        """The loop kernels of the most recent compiled specialisation, in replay order: each
        lists the ops it fused (``.ops``), its generated numba source (``.source``) and
        whether it is compiled yet (``.ready``). Empty with the NumPy kernel backend."""
        entry = next((e for e in self.entries if e.replay is not None), None)
        return list(entry.kernels) if entry else []

    def wait_for_kernels(self, timeout: float | None = None) -> bool:
        """Block until every loop kernel of the compiled specialisations finished compiling
        (replays run their NumPy ops until then); whether all of them are ready."""
        kernels = [k for e in self.entries for k in e.kernels]
        return all([k.wait(timeout) for k in kernels])

    @property
    def code(self) -> str:
        """The generated Python source of the most recent compiled specialisation."""
        entry = next((e for e in self.entries if e.replay is not None), None)
        return entry.code if entry else ""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._eager_reason is not None or tracing_state.active:
            return self.fn(*args, **kwargs)  # (inside another trace: inlined into it)
        tensors: list[TensorBase] = []
        signature = None if kwargs else _flat_signature(args, tensors)
        if signature is None:
            tensors.clear()
            signature = _signature((args, kwargs), tensors)
        key = (signature, grad_state.enabled, autocast_state.dtype)
        for i, entry in enumerate(self.entries):
            if entry.key != key:
                continue
            try:  # (a guard that cannot be evaluated, a container shrank, does not hold)
                if not entry.guard(tensors):
                    continue
            except Exception:  # noqa: BLE001
                continue
            if i:
                self.entries.insert(0, self.entries.pop(i))
            if entry.replay is None:  # a specialisation that runs eagerly
                return self.fn(*args, **kwargs)
            states = [g._rng.snapshot() for g in entry.generators] \
                if entry.generators else ()
            try:
                out = entry.replay(tensors)
            except codegen.CheckFailedError as failed:
                for g, state in zip(entry.generators, states):
                    g._rng.restore(state)
                self._check_failures += 1
                if self._check_failures > _MAX_CHECK_FAILURES:
                    return self._run_eagerly(args, kwargs, "a data-dependent value read in the "
                                             "call changes from call to call", key, None)
                self._explain(f"check {failed.args[0]} of the replay failed: retracing",
                              "recompiles")
                break
            self.replays += 1
            if self._check_failures or self._guard_misses:
                self._check_failures = self._guard_misses = 0
            return out
        if any(entry.key == key for entry in self.entries):  # same signature, a guard failed
            self._guard_misses += 1
            if self._guard_misses > _MAX_GUARD_MISSES:
                return self._run_eagerly(
                    args, kwargs, f"its guards failed on {self._guard_misses} calls in a row "
                    f"({self._why_not(key, tensors)}): a value it reads changes on every call "
                    "(a learning rate a scheduler sets each step, say)", key, None)
        if self.entries and (self.mode == "explain" or logs.enabled("recompiles")):
            self._explain(f"retracing: {self._why_not(key, tensors)}", "recompiles")
        with _collector_paused():
            return self._trace(args, kwargs, key, tensors)

    def _why_not(self, key: tuple, tensors: list[TensorBase]) -> str:
        """Why no cached specialisation applies (for ``mode="explain"``)."""
        walks = [e.walk for e in self.entries if e.key == key and e.walk is not None]
        if not walks:
            return "a new signature (argument shapes, dtypes or flags, grad mode, autocast)"
        walk = walks[0]
        env = dict(walk.env)
        env["A"] = tensors
        for check in walk.checks:
            if not _evaluates_true(check, env):
                return f"guard failed: {_readable(check, walk)}"
        return "a data-dependent check of the replay failed"

    # -- tracing -----------------------------------------------------------------------------
    def _trace(self, args: tuple, kwargs: dict, key: tuple, tensors: list[TensorBase]) -> Any:
        self.traces += 1
        walk = self._roots(args, kwargs)
        if self._clean(walk):  # (only after a trace that failed to clean up: walk again)
            walk = self._roots(args, kwargs)
        if walk.problem:
            return self._run_eagerly(args, kwargs, walk.problem, key, None)
        trace = Trace(self.fullgraph)
        swapped = _swap_in(trace, walk, tensors)
        generators = [default_generator, *walk.generators]
        trace.start()
        for gen in generators:
            trace.patch_generator(gen)
        try:
            result = self.fn(*args, **kwargs)
            outputs, out_problem = _output_template(result, walk, tensors, trace)
        finally:
            trace.stop()
            writes = _swap_out(trace, swapped)
            self._clean(self._roots(args, kwargs))
        problem = trace.broken
        result = _untrace(result)
        self.last_traced_ops = len(trace.graph.ops)  # (what ``tl._dynamo.explain`` counts)
        problem = problem or out_problem or writes[1]
        guard = _make_guard(walk)  # (compiled once: also the new entry's guard)
        if problem is None:
            changed = _changed_state(walk, guard)
            if changed:
                self._unstable += 1
                if self._unstable < _MAX_UNSTABLE:
                    self._explain(f"call changed Python state ({changed}): traced again next "
                                  "call", "recompiles")
                    return result
                problem = f"every call changes Python state ({changed})"
                guard = _always  # runs eagerly for this signature from now on, whatever the state
        if problem is not None:
            self._give_up(problem, key, walk, guard)
            return result
        self._unstable = 0
        trace.graph.outputs = outputs
        trace.graph.writebacks = writes[0]
        passes.hoist_checks(trace.graph)  # (a check failing earlier has less to put back)
        try:
            self._add(key, walk, trace, swapped, guard)
        except Exception as err:  # noqa: BLE001 - a compiler bug must not break the user's run
            if self.fullgraph and not config.suppress_errors:
                raise
            self._give_up(f"the compiler failed ({err!r})", key, walk, guard)
        return result

    def _roots(self, args: tuple, kwargs: dict) -> StateWalk:
        """Walk everything the function can reach (see ``state.py``)."""
        walk = StateWalk()
        if isinstance(self.fn, Module):
            walk.walk(self.fn, "A_module", 0, "self")
            walk.env["A_module"] = self.fn
            walk.function(self.fn.forward)
        else:
            walk.function(self.fn)
        for i, obj in enumerate(_objects((args, kwargs))):
            walk.walk(obj, f"{walk.const(obj)}", 0, f"argument {i}")
        return walk

    @staticmethod
    def _clean(walk: StateWalk) -> bool:
        """Replace traced arrays left in the walked state (new optimizer buffers, caches) by
        plain ones; whether there were any."""
        found = False
        for t, _ in walk.tensors:
            for holder in (t, t._grad):
                if holder is not None and isinstance(holder._data, TracedArray):
                    holder._data = plain(holder._data)
                    found = True
        for container, key, _ in walk.arrays:
            if isinstance(container[key], TracedArray):
                container[key] = plain(container[key])
                found = True
        return found

    def _add(self, key: tuple, walk: StateWalk, trace: Trace, swapped: dict,
             guard: Callable[..., bool]) -> None:
        graph = trace.graph
        relocate = relocator(swapped, walk, guard)
        kernels: list[LoopKernel] = []
        loops = kernel_backend() == "numba"  # (the NumPy backend replays NumPy calls only)

        def fuse_all(g: Graph) -> int:
            removed = fuse.fuse_parallel_updates(g, relocate)
            if loops:
                passes.eliminate_dead_code(g)  # (what the arenas replaced: not fused again)
                removed += loop_fusion.fuse_loops(g, kernels)
            return removed

        buffers = passes.optimize(graph, fuse_all)
        names: dict[str, Any] = {"_wrap": wrap, "_F64": np.float64, **walk.env}
        readers = {vid: swapped["readers"][vid] for vid in graph.inputs}
        writes = [_write(target, attr, vid, swapped, names)
                  for target, attr, vid in graph.writebacks]
        # a .grad the call replaces without reading (zero_grad, then backward) is dropped
        # first, as the eager run drops it, so old and new gradients are not alive together
        read = {readers[vid] for vid in graph.inputs}
        prologue = [w.split(" = ")[0] + " = None" for w in writes
                    if "._grad = " in w and w.split("._grad = ")[0] + "._grad._data" not in read]
        result = _render_output(graph.outputs, names)
        source, replay = codegen.generate(graph, readers, writes, result, buffers, names,
                                          prologue)
        entry = Entry(key, guard, replay, graph, source)
        entry.kernels = kernels
        if kernels:
            self._start_kernels(kernels)
        entry.walk = walk  # (says which guard failed, in explain mode and when giving up)
        if any(op.kind == "check" for op in graph.ops):
            entry.generators = list({id(op.target[0]): op.target[0] for op in graph.ops
                                     if op.kind == "rng"}.values())
        self.entries.insert(0, entry)
        del self.entries[max(1, config.cache_size_limit):]
        self._explain(f"compiled: {len(graph.ops)} ops, {len(buffers)} planned buffers")
        if logs.enabled("guards"):
            logs.report("guards", f"{_name(self.fn)}:\n  " + "\n  ".join(
                _readable(check, walk) for check in walk.checks))
        for artifact in ("graph_code", "graph"):
            if logs.enabled(artifact):  # (the table costs milliseconds to build)
                logs.report(artifact, f"{_name(self.fn)}:\n{graph}")
        if logs.enabled("output_code"):
            logs.report("output_code", f"{_name(self.fn)}:\n{source}")

    def _start_kernels(self, kernels: list[LoopKernel]) -> None:
        """Compile the loop kernels (see ``loop_kernels``: now, or on a background thread
        while the replays run the fused ops in NumPy) and report them."""
        distinct = len({k.name for k in kernels})
        when = "replays run their NumPy ops until each is compiled in the background" if \
            config.kernels_in_background else "compiling them now"
        logs.report("fusion", f"{_name(self.fn)}: {len(kernels)} loop kernels ({distinct} "
                    f"distinct); {when}:\n" + describe(kernels))
        if logs.enabled("kernel_code"):
            seen: set[str] = set()
            for k in kernels:
                if k.name not in seen:
                    seen.add(k.name)
                    logs.report("kernel_code", f"{k.name}:\n{k.source}")
        for k in kernels:
            k.start()
        if logs.enabled("fusion"):
            if not config.kernels_in_background:
                _report_ready(_name(self.fn), kernels)
                return
            watcher = threading.Thread(target=_report_ready, args=(_name(self.fn), kernels),
                                       daemon=True)
            watcher.start()

    def _give_up(self, reason: str, key: tuple, walk: StateWalk,
                 guard: Callable[..., bool] | None = None) -> None:
        if self.fullgraph:
            raise GraphBreakError(f"tl.compile(fullgraph=True): {reason}")
        self._explain(f"runs eagerly: {reason}", "graph_breaks")
        # A module trained with its backward outside the call is how PyTorch programs use
        # torch.compile: that eager fallback is expected, so it is explained, not warned about.
        if reason not in self._warned and not reason.startswith(_AUTOGRAD_AFTER):
            self._warned.add(reason)
            warn(f"tl.compile: {_name(self.fn)} runs eagerly: {reason}")
        self.entries.insert(0, Entry(key, guard or _make_guard(walk), None, None, "", reason))
        del self.entries[max(1, config.cache_size_limit):]

    def _run_eagerly(self, args: tuple, kwargs: dict, reason: str, key: tuple,
                     walk: StateWalk | None) -> Any:
        self._give_up(reason, key, walk or StateWalk())
        return self.fn(*args, **kwargs)

    def _explain(self, text: str, artifact: str | None = None) -> None:
        """Keep ``text`` (``explanations``), print it in explain mode, and log it as
        ``artifact`` when that report is on (``tl._logging.set_logs``)."""
        self.explanations.append(text)
        if self.mode == "explain":
            print(f"tl.compile({_name(self.fn)}): {text}")
        if artifact is not None:
            logs.report(artifact, f"{_name(self.fn)}: {text}")


class OptimizedModule(Module):
    """What ``tl.compile(module)`` returns: the module, called through a CompiledFunction
    (``_orig_mod`` is the original, as in PyTorch)."""

    def __init__(self, mod: Module, compiled: CompiledFunction) -> None:
        super().__init__()
        self._orig_mod = mod
        object.__setattr__(self, "_compiled", compiled)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """The original module's forward, compiled."""
        return self._compiled(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


# PyTorch's modes (all compile the same way here) and ``explain`` (says what the compiler does)
_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune",
          "explain")
# PyTorch's backend names that programs pass; each runs as this compiler
_BACKENDS = frozenset({"inductor", "eager", "aot_eager", "cudagraphs", "aot_eager_decomp_partition",
                       "openxla", "tvm", "onnxrt"})


def compile(model: Callable | None = None, *, fullgraph: bool = False,  # noqa: A001
            dynamic: bool | None = None, backend: str | Callable | None = None,
            mode: str | None = None, options: dict | None = None, name: str | None = None,
            disable: bool = False, **kwargs: Any) -> Any:
    """Compile ``model`` (a function or Module; without it, a decorator): traced on the first
    call of each signature, replayed as straight-line NumPy afterwards. ``mode="explain"``
    prints what the compiler does; ``fullgraph=True`` raises at a graph break; ``disable=True``
    returns ``model`` unchanged. ``backend`` and ``options`` are accepted for PyTorch code."""
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be "
                           "specified at the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: "
                           f"{', '.join(m for m in _MODES if m != 'explain')} (or 'explain')")
    if isinstance(backend, str) and backend not in _BACKENDS:
        raise RuntimeError(f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` "
                           f"for available backends (all run as tinygrad_lite's compiler: "
                           f"{', '.join(sorted(_BACKENDS))})")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("torch.compile: model must be callable, got "
                           f"{type(model).__name__}")
    if disable:
        return model
    compiled = CompiledFunction(model, fullgraph, dynamic, mode)
    if isinstance(model, Module):
        return OptimizedModule(model, compiled)
    compiled.__doc__ = getattr(model, "__doc__", None)
    return compiled


# -- helpers ---------------------------------------------------------------------------------


def _report_ready(name: str, kernels: list[LoopKernel]) -> None:
    """Log when every loop kernel of a compiled call is ready (the replays switch over)."""
    for k in kernels:
        k.wait()
    failed = [k for k in kernels if not k.ready]
    seconds = sum(k.compile_seconds or 0.0 for k in kernels)
    logs.report("fusion", f"{name}: {len(kernels) - len(failed)} of {len(kernels)} loop "
                f"kernels compiled ({seconds:.2f} s); replays run them from now on")


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for one trace and compile, then one collection of
    the young objects. A trace and its passes allocate tens of thousands of objects (values,
    ops, templates) that stay alive until the compile ends, so the collections they would
    trigger find little to free, yet walk them, and every few the whole heap (tens of
    milliseconds once numba is loaded). Reference counting frees most garbage as usual; the
    cycles made meanwhile (a guard's globals hold the guard) go in the final collection, before
    a next trace's arena move counts who refers to the state arrays (``relocate``)."""
    if not gc.isenabled():  # (turned off by the user, or by another thread tracing now)
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect(0)


def _name(fn: Any) -> str:
    return getattr(fn, "__qualname__", type(fn).__name__)


def _flat_signature(args: tuple, tensors: list[TensorBase]) -> tuple | None:
    """``_signature`` for the common call (positional tensors and numbers), in one loop; None
    when an argument needs the general walk."""
    parts: list[Any] = []
    for a in args:
        if isinstance(a, TensorBase):
            tensors.append(a)
            data = a._data
            parts.append(("T", data.shape, data.dtype, a._requires_grad, a.grad_fn is None,
                          a._grad is None))
        elif a is None or type(a) in (bool, int, float, str):
            parts.append(a)
        else:
            return None
    return ("tuple", *parts)


def _signature(obj: Any, tensors: list[TensorBase]) -> Any:
    """A hashable description of the arguments; their tensors are appended to ``tensors``."""
    if isinstance(obj, TensorBase):
        tensors.append(obj)
        return ("T", obj._data.shape, obj._data.dtype, obj._requires_grad,
                obj.grad_fn is None, obj._grad is None)
    if type(obj) in (tuple, list):
        return (type(obj).__name__, *(_signature(o, tensors) for o in obj))
    if type(obj) is dict:
        return ("d", *((k, _signature(v, tensors)) for k, v in obj.items()))
    if obj is None or type(obj) in (bool, int, float, str):
        return obj
    return ("o", id(obj))


def _objects(obj: Any) -> list:
    """The non-tensor, non-scalar objects among the arguments (walked for state)."""
    if type(obj) in (tuple, list):
        return [o for item in obj for o in _objects(item)]
    if type(obj) is dict:
        return [o for item in obj.values() for o in _objects(item)]
    if isinstance(obj, TensorBase) or obj is None or type(obj) in (bool, int, float, str):
        return []
    return [obj]


def _swap_in(trace: Trace, walk: StateWalk, args: list[TensorBase]) -> dict:
    """Replace every array the call can reach by a traced view; remember how to read it."""
    readers: dict[int, str] = {}
    slots: list[tuple[Any, Any, np.ndarray, TracedArray, str]] = []
    seen: set[int] = set()

    def swap(owner: Any, attr: Any, expr: str, source: str, label: str) -> None:
        arr = owner[attr] if isinstance(owner, (dict, list)) else getattr(owner, attr)
        if isinstance(arr, TracedArray):
            if trace.vid(arr) is not None:
                return  # reached twice (an argument that is also state): swapped already
            arr = plain(arr)  # left over from an earlier trace: plain data
        if not isinstance(arr, np.ndarray) or id(arr) in seen:
            return
        seen.add(id(arr))
        traced = trace.add_input(arr, source, label or expr)
        readers[trace.vid(traced)] = expr
        if isinstance(owner, (dict, list)):  # an object's __dict__, or a list of arrays
            owner[attr] = traced
        else:
            setattr(owner, attr, traced)
        slots.append((owner, attr, arr, traced, expr))

    for i, t in enumerate(args):
        swap(t, "_data", f"A[{i}]._data", "input", f"argument {i}")
        if t._grad is not None:
            swap(t._grad, "_data", f"A[{i}]._grad._data", "input", f"argument {i}.grad")
    for t, name in walk.tensors:
        label = walk.labels.get(id(t), "")
        swap(t, "_data", f"{name}._data", "state", label)
        if t._grad is not None:
            swap(t._grad, "_data", f"{name}._grad._data", "state", label and f"{label}.grad")
    for container, key, expr in walk.arrays:
        swap(container, key, expr, "state", walk.labels.get(id(container[key]), ""))
    for container, key, expr in walk.scalars:  # a float hyper-parameter read on every call:
        value = container[key]  # traced as a 0-d float64 (Python float arithmetic, exactly)
        traced = trace.add_input(np.asarray(value, np.float64), "state", _readable(expr, walk))
        readers[trace.vid(traced)] = f"_F64({expr})"
        container[key] = traced
        slots.append((container, key, value, traced, expr))
    owners = {id(t): f"A[{i}]" for i, t in enumerate(args)}
    owners.update({id(t): name for t, name in walk.tensors})
    grads = {id(t): t._grad for t in [*args, *(t for t, _ in walk.tensors)]}
    tensors = [*args, *(t for t, _ in walk.tensors)]
    return {"readers": readers, "slots": slots, "owners": owners, "grads": grads,
            "tensors": tensors}


def _swap_out(trace: Trace, swapped: dict) -> tuple[list, str | None]:
    """Put the real arrays back; the state writes the call made, and a problem if any."""
    writes: list[tuple[Any, str, int | None]] = []
    problem = None
    for owner, attr, arr, traced, _ in swapped["slots"]:
        current = owner[attr] if isinstance(owner, (dict, list)) else getattr(owner, attr)
        if current is traced:
            current = arr
        elif isinstance(arr, float):  # a hyper-parameter read per call that the call set (a
            # scheduler stepped inside it): kept as a Python float; the replay cannot set it
            problem = problem or f"it sets {type(owner).__name__}[{attr!r}], which a replay " \
                "reads on every call"
            current = float(plain(current)) if isinstance(current, TracedArray) else current
        elif isinstance(current, TracedArray) and trace.vid(current) is not None:
            writes.append((owner, attr, trace.vid(current)))
            current = plain(current)
        elif isinstance(current, TracedArray):
            problem = problem or "state was set to an array the compiler cannot follow"
            current = plain(current)
        else:
            problem = problem or "state was set to an array made outside the trace"
        if isinstance(owner, (dict, list)):
            owner[attr] = current
        else:
            setattr(owner, attr, current)
    for t in swapped["tensors"]:
        before, now = swapped["grads"][id(t)], t._grad
        if now is before:
            continue
        if now is None:
            writes.append((t, "_grad", None))
        elif now.grad_fn is None and isinstance(now._data, TracedArray) and trace.vid(
                now._data) is not None:
            writes.append((t, "_grad", trace.vid(now._data)))
            now._data = plain(now._data)
        else:
            problem = problem or "a .grad was set to a tensor the compiler cannot follow"
    trace.graph.writebacks = writes
    return writes, problem


def _write(target: Any, attr: Any, vid: int | None, swapped: dict, names: dict) -> str:
    """The replay's statement for one state write (``A[0]._grad = _wrap(v9)``, ...)."""
    owner = swapped["owners"].get(id(target))
    if owner is None:
        owner = f"W{len(names)}"
        names[owner] = target
    value = "None" if vid is None else f"v{vid}"
    if attr == "_grad":
        return f"{owner}._grad = {'None' if vid is None else f'_wrap({value})'}"
    if isinstance(target, (dict, list)):
        key = f"W{len(names)}"
        names[key] = attr
        return f"{owner}[{key}] = {value}"
    return f"{owner}.{attr} = {value}"


def _output_template(result: Any, walk: StateWalk, args: list[TensorBase], trace: Trace
                     ) -> tuple[Any, str | None]:
    """The return value as a template: computed tensors as ``("T", Ref)``, others as is."""
    known = {id(t) for t, _ in walk.tensors}
    if isinstance(result, TensorBase):
        for i, t in enumerate(args):  # an argument: the replay returns that call's argument
            if t is result:
                return ("arg", i), None
            if t._grad is result:
                return ("arg grad", i), None
        if id(result) in known:
            return ("same", result), None
        owner = next((t for t, _ in walk.tensors if t._grad is result), None)
        if owner is not None:  # a .grad the call set: the replay returns the one it sets
            return ("grad", owner), None
        if result.grad_fn is not None and not result.grad_fn._released:
            return None, (_AUTOGRAD_AFTER + " (the backward runs outside the compiled function: "
                          "compile the whole training step)")
        data = result._data
        if isinstance(data, TracedArray) and trace.vid(data) is not None:
            return ("T", Ref(int(trace.vid(data)))), None
        return None, "it returns a tensor the compiler cannot follow"
    if type(result) in (tuple, list):
        items = [_output_template(r, walk, args, trace) for r in result]
        problem = next((p for _, p in items if p), None)
        return (type(result).__name__, [t for t, _ in items]), problem
    if type(result) is dict:
        items2 = {k: _output_template(v, walk, args, trace) for k, v in result.items()}
        problem = next((p for _, p in items2.values() if p), None)
        return ("dict", {k: t for k, (t, _) in items2.items()}), problem
    if result is None or type(result) in (bool, int, float, str):
        return ("py", result), None
    if isinstance(result, np.ndarray):
        return None, "it returns a NumPy array (return tensors)"
    return None, f"it returns a {type(result).__name__}"


def _render_output(template: Any, names: dict) -> str:
    kind, value = template
    if kind == "T":
        return f"_wrap(v{value.vid})"
    if kind == "same":
        name = f"R{len(names)}"
        names[name] = value
        return name
    if kind == "arg":
        return f"A[{value}]"
    if kind == "arg grad":
        return f"A[{value}]._grad"
    if kind == "grad":
        name = f"R{len(names)}"
        names[name] = value
        return f"{name}._grad"
    if kind == "py":
        name = f"R{len(names)}"
        names[name] = value
        return name
    if kind == "dict":
        return "{" + ", ".join(f"{k!r}: {_render_output(v, names)}" for k, v in value.items()) \
            + "}"
    inner = ", ".join(_render_output(v, names) for v in value)
    return f"[{inner}]" if kind == "list" else f"({inner}{',' if len(value) == 1 else ''})"


def _untrace(result: Any) -> Any:
    """Give the caller tensors over plain arrays (the traced views were for the trace only)."""
    if isinstance(result, TensorBase):
        if isinstance(result._data, TracedArray):
            result._data = plain(result._data)
    elif isinstance(result, TracedArray):  # (a learning rate read per call, say)
        return plain(result).item() if result.ndim == 0 else plain(result)
    elif type(result) in (tuple, list):
        return type(result)(_untrace(r) for r in result)
    elif type(result) is dict:
        for key, r in result.items():
            result[key] = _untrace(r)
    return result


def _always(tensors: Any, grads: bool = True) -> bool:
    """The guard of an eager fallback that no state change should retrace."""
    return True


def _make_guard(walk: StateWalk) -> Callable[..., bool]:
    source = f"def guard(A, grads=True):\n    return {walk.guard_source()}\n"
    env = dict(walk.env)
    exec(builtins.compile(source, "<tl.compile guard>", "exec"), env)  # noqa: S102
    return env["guard"]


def _changed_state(walk: StateWalk, guard: Callable[..., bool]) -> str | None:
    """The first guard expression the traced call itself made false (gradients aside)."""
    try:  # the compiled guard first: compiling the checks one by one costs milliseconds
        if guard((), False):
            return None
    except Exception:  # noqa: BLE001 (a container shrank, an attribute went away)
        pass
    env = dict(walk.env)
    for check in (c for c in walk.checks if "._grad" not in c):
        if not _evaluates_true(check, env):
            return _readable(check, walk)
    return None


def _evaluates_true(expression: str, env: dict) -> bool:
    """Whether one of our guard expressions holds (False where it cannot be evaluated: a
    container shrank, an attribute went away)."""
    try:
        return bool(eval(expression, env))  # noqa: S307 (our own guard expressions)
    except Exception:  # noqa: BLE001
        return False


def _readable(check: str, walk: StateWalk) -> str:
    """A guard expression with the walk's names (``K12``) replaced by what they are
    (``opt.state``) where known."""
    def name(match: re.Match) -> str:
        obj = walk.env.get(match.group(0))
        if isinstance(obj, (bool, int, float, str)):
            return repr(obj)
        label = walk.labels.get(id(obj)) if obj is not None else None
        return label or (type(obj).__name__ if obj is not None else match.group(0))
    return re.sub(r"\bK\d+\b", name, check)
