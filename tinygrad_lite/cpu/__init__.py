"""``tl.cpu``: PyTorch's ``torch.cpu``, the CPU's side of the device-generic API (always
available, one device, streams and events that are no-ops since every op here runs
synchronously), so code written against ``torch.cpu`` / ``torch.get_device_module`` runs."""

from __future__ import annotations

from typing import Any

from . import amp

__all__ = ["amp", "is_available", "is_initialized", "synchronize", "current_device",
           "current_stream", "stream", "set_device", "device_count", "Stream", "StreamContext",
           "Event"]


def is_available() -> bool:
    """True: the CPU is always there."""
    return True


def is_initialized() -> bool:
    """True: there is nothing to initialise."""
    return True


def synchronize(device: Any = None) -> None:
    """Nothing to wait for: every op has finished when it returns."""


def current_device() -> str:
    """``"cpu"``, as PyTorch's."""
    return "cpu"


def set_device(device: Any) -> None:
    """Accepted (there is one CPU device)."""


def device_count() -> int:
    """1."""
    return 1


class Stream:
    """A CPU stream: work runs in order as it is issued, so waiting is immediate."""

    def __init__(self, priority: int = -1) -> None:
        self.priority = priority

    def wait_stream(self, stream: Stream) -> None:
        """Nothing to wait for."""

    def wait_event(self, event: Event) -> None:
        """Nothing to wait for."""

    def record_event(self, event: Event | None = None) -> Event:
        """An event marking this point (already reached)."""
        return Event() if event is None else event

    def query(self) -> bool:
        """True: all work is done."""
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""


class Event:
    """A CPU event: reached as soon as it is recorded."""

    def __init__(self, enable_timing: bool = False) -> None:
        self.enable_timing = enable_timing

    def record(self, stream: Stream | None = None) -> None:
        """Mark this point (already reached)."""

    def wait(self, stream: Stream | None = None) -> None:
        """Nothing to wait for."""

    def query(self) -> bool:
        """True: reached."""
        return True

    def synchronize(self) -> None:
        """Nothing to wait for."""


_DEFAULT_STREAM = Stream()


def current_stream(device: Any = None) -> Stream:
    """The (only) CPU stream."""
    return _DEFAULT_STREAM


class StreamContext:
    """``with tl.cpu.stream(s):``: runs its body as usual (CPU work is synchronous)."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass


def stream(stream: Stream | None) -> StreamContext:
    """A context selecting ``stream`` (a no-op on the CPU)."""
    return StreamContext(stream)
