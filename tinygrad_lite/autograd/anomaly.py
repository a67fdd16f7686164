"""Anomaly mode: find the line of your code behind a NaN, or behind an error raised in backward.

While it is on, every new graph node records the stack of user code that created it (the frames
outside tinygrad_lite), and every backward step checks its results for NaN and Inf. Errors raised
from backward (freed graph, modified saved tensor, wrong gradient shape, NaN) then name the op and
the file:line that created it. It costs time, so it is off by default; when it is off, nothing of
it runs: node creation is untouched and the engine's loop is not instrumented.
"""

from __future__ import annotations

import functools
import os
import sys
import traceback
from collections.abc import Callable
from types import FrameType
from typing import Any, TypeVar

import numpy as np

from .._core.graph import Node, trace_node_creation
from .._core.observers import EngineObserver, add_observer, remove_observer
from .._core.warnings import warn
from ..dtypes import is_float_dtype

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "AnomalyError"]

F = TypeVar("F", bound=Callable[..., Any])
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class AnomalyError(RuntimeError):
    """A NaN or Inf was produced by a backward step while anomaly mode was on."""


class _AnomalyState:
    enabled = False
    check_nan = True


_state = _AnomalyState()
def user_stack(limit: int = 8) -> list:
    """The innermost ``limit`` frames of the caller's stack that lie outside tinygrad_lite."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return list(traceback.extract_stack(frame, limit=limit))


def record_creation(node: Node) -> None:
    """Remember on ``node`` where the user's code created it (anomaly mode only)."""
    node._creation_trace = user_stack()


def is_anomaly_enabled() -> bool:
    """Whether anomaly mode is on."""
    return _state.enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly mode checks (or, while it is off, would check) backward results for NaN
    and Inf: the ``check_nan`` it was last set with, True by default, as in PyTorch."""
    return _state.check_nan


class _NanChecker(EngineObserver):
    """The engine observer of anomaly mode: checks every backward step's results."""

    def after_node(self, node: Node, input_grads: tuple) -> None:
        """Raise if the node returned a NaN or Inf gradient."""
        if not _state.check_nan:
            return
        for i, g in enumerate(input_grads):
            if g is None:
                continue
            arr = np.asarray(g._data if hasattr(g, "grad_fn") else g)
            if (arr.dtype.kind == "c" or is_float_dtype(arr.dtype)) and not np.isfinite(arr).all():
                kind = "nan" if np.isnan(arr).any() else "inf"
                raise AnomalyError(
                    f"Function '{node.name()}' returned {kind} values in its {i}th output. "
                    f"(It is the gradient for input {i}, shape {arr.shape}.)\n"
                    f"{_creation_report(node)}"
                )


def _creation_report(node: Node) -> str:
    trace = node._creation_trace
    if trace is None:
        return (f"{node.name()} was created before anomaly mode was turned on, so its creation "
                "point is unknown; enable anomaly mode before running the forward pass.")
    lines = "".join(traceback.format_list(trace)).rstrip()
    return (f"{node.name()} was created at {trace[-1].filename}:{trace[-1].lineno} "
            f"(most recent call last):\n{lines}")


_checker = _NanChecker()


def _set(enabled: bool, check_nan: bool) -> None:
    _state.enabled, _state.check_nan = enabled, check_nan
    # Swap the recording in and out, so that anomaly mode costs nothing when it is off.
    trace_node_creation(record_creation if enabled else None)
    if enabled:
        add_observer(_checker)
    else:
        remove_observer(_checker)


class set_detect_anomaly:  # noqa: N801 - PyTorch's name
    """Turn anomaly mode on or off now; as a ``with`` block, restore the previous mode after."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = (_state.enabled, _state.check_nan)
        _set(bool(mode), bool(check_nan))

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        _set(*self._prev)


class detect_anomaly:  # noqa: N801 - PyTorch's name
    """Context manager (or decorator) that turns anomaly mode on inside it; see module docs."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
             "should only be enabled for debugging.")

    def __enter__(self) -> None:
        self._prev = (_state.enabled, _state.check_nan)
        _set(True, self.check_nan)

    def __exit__(self, *exc: object) -> None:
        _set(*self._prev)

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with detect_anomaly(self.check_nan):
                return func(*args, **kwargs)

        return wrapper  # type: ignore[return-value]
