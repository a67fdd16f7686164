"""``torch.profiler``: profile a block or a training loop, op by op (see
``tinygrad_lite.autograd.profiler`` for what becomes an event).

``profile`` takes PyTorch's arguments: ``activities`` (CPU is what there is), a ``schedule``
(``wait``/``warmup``/``active`` steps, ``repeat``, ``skip_first``) advanced by ``step()``, and
``on_trace_ready``, called with the profiler at the end of each active cycle (e.g.
``tensorboard_trace_handler(dir)``, which writes a Chrome trace TensorBoard's profiler plugin
and Perfetto read). Results: ``key_averages().table(sort_by=..., row_limit=...)``,
``events()``, ``export_chrome_trace(path)``.
"""

from __future__ import annotations

import enum
import gzip
import os
import shutil
import socket
import time
from collections.abc import Callable, Iterable
from typing import Any

from .._core.warnings import warn
from ..autograd.profiler import ProfileResults, _Recorder, record_function
from ..autograd.profiler_util import EventList

__all__ = ["profile", "record_function", "schedule", "ProfilerActivity", "ProfilerAction",
           "tensorboard_trace_handler", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """What a profiler records: CPU (the other kinds name devices this package has none of)."""

    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5


class ProfilerAction(enum.Enum):
    """What a schedule says to do at a step."""

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def supported_activities() -> set[ProfilerActivity]:
    """The activities that can be recorded here: CPU."""
    return {ProfilerActivity.CPU}


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0,
             skip_first_wait: int = 0) -> Callable[[int], ProfilerAction]:
    """A schedule: after ``skip_first`` steps, cycles of ``wait`` idle steps, ``warmup``
    steps and ``active`` recorded ones (the last saves), ``repeat`` times (0: for ever);
    ``skip_first_wait`` skips the first cycle's wait."""
    if warmup < 0 or active <= 0 or wait < 0 or repeat < 0 or skip_first < 0:
        raise ValueError("Invalid profiler schedule arguments")
    if warmup == 0:
        warn("Profiler won't be using warmup, this can skew profiler results")

    def schedule_fn(step: int) -> ProfilerAction:
        if step < 0:
            raise ValueError(f"Invalid profiler step: {step}")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait
        cycle = wait + warmup + active
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        within = step % cycle
        if within < wait:
            return ProfilerAction.NONE
        if within < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if within < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None,
                              use_gzip: bool = False) -> Callable[[profile], None]:
    """An ``on_trace_ready`` handler writing each cycle's trace into ``dir_name`` as
    ``<worker>.<ms>.pt.trace.json`` (gzipped with ``use_gzip``), where TensorBoard looks."""
    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        worker = worker_name or f"{socket.gethostname()}_{os.getpid()}"
        name = f"{worker}.{time.time_ns() // 1_000_000}.pt.trace.json"
        path = os.path.join(dir_name, name)
        prof.export_chrome_trace(path)
        if use_gzip:
            with open(path, "rb") as src, gzip.open(path + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
            os.remove(path)
    return handler


class profile(ProfileResults):  # noqa: N801 - PyTorch's name
    """``torch.profiler.profile``: a context manager (or ``start()``/``stop()``) recording
    the ops run inside it, step by step under a ``schedule``."""

    def __init__(self, *, activities: Iterable[ProfilerActivity] | None = None,
                 schedule: Callable[[int], ProfilerAction] | None = None,
                 on_trace_ready: Callable[[profile], Any] | None = None,
                 record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False,
                 with_modules: bool = False, experimental_config: Any = None,
                 execution_trace_observer: Any = None, acc_events: bool = False,
                 use_cuda: bool | None = None, custom_trace_id_callback: Any = None) -> None:
        self.activities = set(activities) if activities is not None else supported_activities()
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory = record_shapes, profile_memory
        self.with_stack, self.with_flops, self.with_modules = with_stack, with_flops, with_modules
        self.step_num = 0
        self.current_action = ProfilerAction.NONE
        self._recorder: _Recorder | None = None
        self._saved: EventList | None = None

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        """Begin at step 0 of the schedule."""
        self.current_action = self.schedule(self.step_num)
        if self.current_action in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE,
                                   ProfilerAction.WARMUP):
            self._begin()

    def stop(self) -> None:
        """End; a cycle being recorded is saved (``on_trace_ready``)."""
        recording = self.current_action in (ProfilerAction.RECORD,
                                            ProfilerAction.RECORD_AND_SAVE)
        self._finish(save=recording)
        self.current_action = ProfilerAction.NONE

    def step(self) -> None:
        """The training loop moved on one step: follow the schedule (a cycle's last active
        step ends its recording and saves it)."""
        previous = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        active = (ProfilerAction.WARMUP, ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE)
        if previous == ProfilerAction.RECORD_AND_SAVE:
            self._finish(save=True)
        elif previous == ProfilerAction.WARMUP and self.current_action == ProfilerAction.NONE:
            self._finish(save=False)
        elif previous == ProfilerAction.WARMUP and self.current_action in (
                ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            self._finish(save=False)  # warm-up events are discarded, as in PyTorch
        if self.current_action in active and self._recorder is None:
            self._begin()

    def _begin(self) -> None:
        self._recorder = _Recorder(self.record_shapes)
        self._recorder.begin()

    def _finish(self, save: bool) -> None:
        if self._recorder is None:
            return
        events = self._recorder.end()
        self._recorder = None
        if save:
            self._saved = events
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)

    def _events(self) -> EventList:  # (the last recorded cycle's)
        if self._saved is None:
            raise RuntimeError("Profiler didn't finish running (no recorded cycle yet)")
        return self._saved
