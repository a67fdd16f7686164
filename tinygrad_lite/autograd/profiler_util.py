"""What a profiler run records and how it is summarised, as ``torch.autograd.profiler_util``:
``FunctionEvent`` (one timed call), ``EventList`` (a run's events: ``key_averages``, ``table``,
``export_chrome_trace``) and ``FunctionEventAvg`` (the events of one name, summed).

Times are microseconds, as PyTorch reports them. An event's self time is its total less the
totals of the events directly inside it (same thread, nested in time).
"""

from __future__ import annotations

import json
import os
from typing import Any

__all__ = ["FunctionEvent", "FunctionEventAvg", "EventList"]

_SORT_KEYS = ("cpu_time_total", "self_cpu_time_total", "cpu_time", "self_cpu_time", "count",
              "cpu_memory_usage", "self_cpu_memory_usage")


class FunctionEvent:
    """One recorded call: its name, start and end (ns since the run began), thread, input
    shapes (with ``record_shapes``) and the events directly inside it."""

    def __init__(self, name: str, start_ns: int, end_ns: int, thread: int,
                 input_shapes: list | None = None, kind: str = "op") -> None:
        self.name, self.thread, self.kind = name, thread, kind
        self.start_ns, self.end_ns = start_ns, end_ns
        self.input_shapes = input_shapes or []
        self.cpu_children: list[FunctionEvent] = []
        self.cpu_parent: FunctionEvent | None = None
        self.id = 0

    key = property(lambda self: self.name, doc="The name events are grouped by.")
    count = property(lambda self: 1, doc="1: one call.")

    @property
    def cpu_time_total(self) -> float:
        """Wall time of the call, in microseconds."""
        return (self.end_ns - self.start_ns) / 1e3

    @property
    def self_cpu_time_total(self) -> float:
        """Wall time not spent in the events directly inside it, in microseconds."""
        return self.cpu_time_total - sum(c.cpu_time_total for c in self.cpu_children)

    cpu_time = cpu_time_total
    self_cpu_time = self_cpu_time_total
    device_time_total = cuda_time_total = property(lambda self: 0.0, doc="0: no device.")
    self_device_time_total = self_cuda_time_total = device_time_total
    cpu_memory_usage = self_cpu_memory_usage = property(lambda self: 0, doc="Not recorded.")

    @property
    def time_range(self) -> tuple[float, float]:
        """(start, end) in microseconds since the run began."""
        return self.start_ns / 1e3, self.end_ns / 1e3

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={self.cpu_time_total:.3f}"
                f"us self_cpu_time={self.self_cpu_time_total:.3f}us thread={self.thread} "
                f"input_shapes={self.input_shapes}>")


class FunctionEventAvg:
    """The events of one key (name, and input shapes when grouped by them), summed."""

    def __init__(self, key: str, input_shapes: Any = None) -> None:
        self.key, self.input_shapes = key, input_shapes
        self.count = 0
        self.cpu_time_total = self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = self.self_cpu_memory_usage = 0
        self.device_time_total = self.cuda_time_total = 0.0
        self.self_device_time_total = self.self_cuda_time_total = 0.0

    def add(self, event: Any) -> FunctionEventAvg:
        """Add one event (or another average) in."""
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        """Average wall time per call, in microseconds."""
        return self.cpu_time_total / max(self.count, 1)

    @property
    def self_cpu_time(self) -> float:
        """Average self time per call, in microseconds."""
        return self.self_cpu_time_total / max(self.count, 1)

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}"
                f"us cpu_time={self.cpu_time_total:.3f}us count={self.count} "
                f"input_shapes={self.input_shapes}>")


class EventList(list):
    """A run's events (or their averages), with PyTorch's summaries."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args)

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0,
                     group_by_overload_name: bool = False) -> EventList:
        """One ``FunctionEventAvg`` per name (and per input shapes when asked), in order of
        first appearance."""
        groups: dict[Any, FunctionEventAvg] = {}
        for event in self:
            shapes = str(event.input_shapes) if group_by_input_shape else None
            key = (event.key, shapes)
            if key not in groups:
                groups[key] = FunctionEventAvg(event.key, event.input_shapes
                                               if group_by_input_shape else None)
            groups[key].add(event)
        return EventList(groups.values())

    def total_average(self) -> FunctionEventAvg:
        """All events summed into one."""
        total = FunctionEventAvg("Total")
        for event in self:
            total.add(event)
        return total

    @property
    def self_cpu_time_total(self) -> float:
        """The run's time: the sum of every event's self time, in microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def table(self, sort_by: str | None = None, row_limit: int = 100,
              max_src_column_width: int = 75, max_name_column_width: int = 55,
              max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False, time_unit: str | None = None) -> str:
        """The events as PyTorch's text table: name, self and total CPU time with their share
        of the run, average time, call count (and input shapes when recorded)."""
        events = list(self)
        if top_level_events_only:
            events = [e for e in events if getattr(e, "cpu_parent", None) is None]
        if sort_by is not None:
            if sort_by not in _SORT_KEYS and not sort_by.startswith(("cuda", "device",
                                                                     "self_cuda",
                                                                     "self_device", "xpu")):
                raise AttributeError(f"sort_by: unknown key {sort_by!r}; one of "
                                     f"{', '.join(_SORT_KEYS)}")
            events.sort(key=lambda e: getattr(e, sort_by, 0), reverse=True)
        if row_limit is not None and row_limit >= 0:
            events = events[:row_limit]
        total = max(sum(e.self_cpu_time_total for e in self), 1e-9)
        shapes = any(getattr(e, "input_shapes", None) for e in events)
        names = [e.key[:max_name_column_width] for e in events]
        width = max([len("Name"), *map(len, names)]) + 2
        columns = ["Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                   "# of Calls"] + (["Input Shapes"] if shapes else [])
        rows = []
        for name, e in zip(names, events):
            row = [f"{100 * e.self_cpu_time_total / total:.2f}%", _time(e.self_cpu_time_total,
                                                                          time_unit),
                   f"{100 * e.cpu_time_total / total:.2f}%", _time(e.cpu_time_total, time_unit),
                   _time(e.cpu_time, time_unit), str(e.count)]
            if shapes:
                row.append(str(e.input_shapes)[:max_shapes_column_width])
            rows.append((name, row))
        widths = [max(len(c), *(len(r[1][i]) for r in rows)) + 2 if rows else len(c) + 2
                  for i, c in enumerate(columns)]
        rule = "-" * width + "".join(" " + "-" * (w - 1) for w in widths)
        lines = [header] if header else []
        lines += [rule, "Name".ljust(width) + "".join(c.rjust(w) for c, w in zip(columns, widths)),
                  rule]
        lines += [name.ljust(width) + "".join(v.rjust(w) for v, w in zip(row, widths))
                  for name, row in rows]
        lines += [rule, f"Self CPU time total: {_time(total, time_unit)}", ""]
        return "\n".join(lines)

    def export_chrome_trace(self, path: str | os.PathLike) -> None:
        """Write the events as a Chrome trace (``chrome://tracing``, Perfetto): one complete
        event each, microseconds."""
        trace = {"traceEvents": [
            {"name": e.name, "ph": "X", "cat": e.kind, "ts": e.start_ns / 1e3,
             "dur": (e.end_ns - e.start_ns) / 1e3, "pid": os.getpid(), "tid": e.thread,
             "args": {"Input Dims": e.input_shapes} if e.input_shapes else {}}
            for e in self if isinstance(e, FunctionEvent)],
            "displayTimeUnit": "ms"}
        with open(path, "w") as f:
            json.dump(trace, f)


def _time(us: float, unit: str | None = None) -> str:
    """A duration as PyTorch prints it (us, ms or s)."""
    if unit == "s" or (unit is None and us >= 1e6):
        return f"{us / 1e6:.3f}s"
    if unit == "ms" or (unit is None and us >= 1e3):
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"
