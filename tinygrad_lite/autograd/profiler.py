"""``torch.autograd.profiler``: time what a block of code runs, op by op.

While a ``profile`` is active, Python's profiling hook (``sys.setprofile``, this thread) sees
every function call, and these become events:
- a call from the user's code into the package (``Tensor.__matmul__``, ``SGD.step``, ...);
- a call of a primitive (a public function of ``tinygrad_lite.ops``: ``ops::linear``,
  ``ops::relu``) from outside the ops layer;
- every module call, ``nn.Module: Linear``, at any depth;
- every node the backward engine runs (``AddmmBackward0``; an engine observer);
- every ``record_function(name)`` block.
Events nest by time, so each has a total and a self time; ``key_averages().table()`` sums them
per name. The hook costs a Python call per function call: profiled code runs slower than
unprofiled code, but evenly, so the shares are what to read.
"""

from __future__ import annotations

import inspect
import sys
import threading
import time
from contextlib import ContextDecorator
from typing import Any

from .._core.observers import EngineObserver, add_observer, remove_observer
from .._core.tensor_base import TensorBase
from .profiler_util import EventList, FunctionEvent

__all__ = ["profile", "record_function", "EventList", "FunctionEvent"]

_PACKAGE = "tinygrad_lite"
_QUIET = ("tinygrad_lite.autograd.profiler", "tinygrad_lite.profiler", "tinygrad_lite.ops.common")


class _Recorder(EngineObserver):
    """Collects the events of one profiling run (see the module docstring)."""

    active: _Recorder | None = None

    def __init__(self, record_shapes: bool) -> None:
        self.record_shapes = record_shapes
        self.events: list[FunctionEvent] = []
        self._open: list[tuple[Any, FunctionEvent]] = []  # (frame or marker, its event)
        self._t0 = time.perf_counter_ns()
        self._thread = threading.get_ident()
        self._previous: Any = None

    def begin(self) -> None:
        """Begin recording (one recorder at a time)."""
        if _Recorder.active is not None:
            raise RuntimeError("Profiler is already enabled on this thread")
        _Recorder.active = self
        self._previous = sys.getprofile()
        sys.setprofile(self._on_event)
        add_observer(self)

    def end(self) -> EventList:
        """Stop recording; the events, in start order."""
        sys.setprofile(self._previous)
        remove_observer(self)
        _Recorder.active = None
        now = time.perf_counter_ns() - self._t0
        while self._open:  # blocks still open (the profile's own exit): end them now
            self._open.pop()[1].end_ns = now
        events = EventList(sorted(self.events, key=lambda e: e.start_ns))
        for i, event in enumerate(events):
            event.id = i
        return events

    # -- events --------------------------------------------------------------------------------
    def open(self, marker: Any, name: str, kind: str, shapes: list | None = None) -> None:
        """An event starts; ``marker`` identifies where it ends."""
        event = FunctionEvent(name, time.perf_counter_ns() - self._t0, 0, self._thread,
                              shapes, kind)
        if self._open:
            event.cpu_parent = self._open[-1][1]
            event.cpu_parent.cpu_children.append(event)
        self._open.append((marker, event))
        self.events.append(event)

    def close(self, marker: Any, keep: bool = True) -> None:
        """The event opened with ``marker`` ends (with any left open inside it); with
        ``keep`` false it is dropped (its children move up to its parent)."""
        if not any(m is marker for m, _ in self._open):
            return
        now = time.perf_counter_ns() - self._t0
        while self._open:
            m, event = self._open.pop()
            event.end_ns = now
            if m is marker:
                if not keep:
                    self._drop(event)
                return

    def _drop(self, event: FunctionEvent) -> None:
        self.events.remove(event)
        parent = event.cpu_parent
        for child in event.cpu_children:
            child.cpu_parent = parent
        if parent is not None:
            parent.cpu_children.remove(event)
            parent.cpu_children.extend(event.cpu_children)

    def _on_event(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            name = _event_name(frame)
            if name is not None:
                self.open(frame, name, "op", _shapes(frame) if self.record_shapes else None)
        elif event == "return" and self._open and self._open[-1][0] is frame:
            # a primitive is a call into the ops layer that returns tensors (not a helper)
            primitive = self._open[-1][1].name.startswith("ops::")
            self.close(frame, not primitive or _tensors(arg))

    # -- the backward engine's nodes (EngineObserver) ------------------------------------------
    def before_node(self, node: Any, grads: list) -> None:
        """A node's backward starts."""
        self.open(node, node.name(), "backward")

    def after_node(self, node: Any, input_grads: tuple) -> None:
        """A node's backward ended."""
        self.close(node)


def _event_name(frame: Any) -> str | None:
    """The event a function call opens, or None (see the module docstring)."""
    module = frame.f_globals.get("__name__", "")
    if not module.startswith(_PACKAGE) or module.startswith(_QUIET):
        return None
    code = frame.f_code
    if code.co_name == "__call__" and module == "tinygrad_lite.nn.modules.module":
        owner = frame.f_locals.get("self")
        return f"nn.Module: {type(owner).__name__}" if owner is not None else None
    caller = frame.f_back
    caller_module = caller.f_globals.get("__name__", "") if caller is not None else ""
    if not caller_module.startswith(_PACKAGE):  # called by the user's code
        if code.co_name.startswith("_") and not code.co_name.endswith("__"):
            return None
        return _display_name(frame)
    if module.startswith("tinygrad_lite.ops.") and not caller_module.startswith(
            "tinygrad_lite.ops") and not code.co_name.startswith(("_", "<")):
        return f"ops::{_display_name(frame).rsplit('.', 1)[-1]}"
    return None


def _display_name(frame: Any) -> str:
    """A function's qualified name; for a wrapper made by a decorator, the wrapped
    function's (found among the wrapper's free variables)."""
    code = frame.f_code
    qualname = getattr(code, "co_qualname", code.co_name)
    if "<locals>" in qualname:
        for name in code.co_freevars:
            inner = frame.f_locals.get(name)
            inner_name = getattr(inner, "__qualname__", "")
            if callable(inner) and inner_name and "<locals>" not in inner_name:
                return inner_name
    return qualname


def _tensors(value: Any) -> bool:
    """Whether a return value is a tensor (or a tuple or list holding one)."""
    if isinstance(value, (tuple, list)):
        return any(isinstance(v, TensorBase) for v in value)
    return isinstance(value, TensorBase)


def _shapes(frame: Any) -> list:
    """The shapes of a call's arguments, as PyTorch records them: a tensor's shape, [] for
    anything else (a method's non-tensor ``self`` left out, ``*args`` spread)."""
    code = frame.f_code
    names = list(code.co_varnames[:code.co_argcount + code.co_kwonlyargcount])
    values = [frame.f_locals.get(n) for n in names]
    if code.co_flags & inspect.CO_VARARGS:
        values[code.co_argcount:code.co_argcount] = list(
            frame.f_locals.get(code.co_varnames[len(names)], ()))
    if names[:1] == ["self"] and not isinstance(values[0], TensorBase):
        values = values[1:]
    return [list(v.shape) if isinstance(v, TensorBase) else [] for v in values]


class record_function(ContextDecorator):  # noqa: N801 - PyTorch's name
    """A named block (context manager or decorator) that shows as one event in the profile
    (nothing happens while no profiler runs)."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args
        self._recorder: _Recorder | None = None

    def __enter__(self) -> record_function:
        recorder = _Recorder.active
        if recorder is not None:
            self._recorder = recorder
            recorder.open(self, self.name, "user_annotation")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._recorder is not None:
            self._recorder.close(self)
            self._recorder = None


class ProfileResults:
    """What both profilers answer from their recorded events (``_events()``)."""

    def _events(self) -> EventList:
        raise NotImplementedError

    def events(self) -> EventList:
        """Every recorded event."""
        return self._events()

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """The events summed per name (and per input shapes when asked)."""
        return self._events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path: str) -> None:
        """Write the events as a Chrome trace (JSON)."""
        self._events().export_chrome_trace(path)


class profile(ProfileResults):  # noqa: N801 - PyTorch's name
    """``torch.autograd.profiler.profile``: records the events of the block it manages
    (``enabled=False``: records nothing). Device, memory, stack and FLOP options are accepted;
    only CPU time is recorded."""

    def __init__(self, enabled: bool = True, *, use_cuda: bool = False,
                 use_device: str | None = None, record_shapes: bool = False,
                 with_flops: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_modules: bool = False, use_kineto: bool = False,
                 use_cpu: bool = True, experimental_config: Any = None,
                 acc_events: bool = False, custom_trace_id_callback: Any = None) -> None:
        self.enabled, self.record_shapes = enabled, record_shapes
        self.profile_memory, self.with_stack = profile_memory, with_stack
        self.function_events: EventList | None = None
        self._recorder: _Recorder | None = None

    def __enter__(self) -> profile:
        if self.enabled:
            self._recorder = _Recorder(self.record_shapes)
            self._recorder.begin()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._recorder is not None:
            self.function_events = self._recorder.end()
            self._recorder = None

    def _events(self) -> EventList:
        if self.function_events is None:
            raise RuntimeError("Profiler didn't finish running")
        return self.function_events

    def table(self, sort_by: str | None = None, row_limit: int = 100, **kwargs: Any) -> str:
        """The events' table (see ``EventList.table``)."""
        return self._events().table(sort_by=sort_by, row_limit=row_limit, **kwargs)

    def total_average(self) -> Any:
        """All events summed into one."""
        return self._events().total_average()

    @property
    def self_cpu_time_total(self) -> float:
        """The run's CPU time, in microseconds."""
        return self._events().self_cpu_time_total

    def __str__(self) -> str:
        return self.table() if self.function_events is not None else "<unfinished profile>"
