"""Queues that send tensors as shared memory, and a context whose queues are these.

``put`` pickles the object at once, in the caller's thread, inside ``reductions.sharing()``:
every tensor in it moves to shared memory before ``put`` returns (no race with the standard
queue's feeder thread), and the receiver gets tensors over the same memory. As in PyTorch, the
sending process must stay alive until the receiver has taken the item (the receiver fetches
the file descriptors from it).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.queues
from multiprocessing import reduction
from typing import Any

from .reductions import sharing

__all__ = ["Queue", "SimpleQueue", "JoinableQueue", "Context", "get_context"]


class _Packed:
    """An object pickled ahead of time (with its tensors shared); unpickles to the object."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload

    def __reduce__(self) -> tuple:
        return (_unpack, (self.payload,))


def _unpack(payload: bytes) -> Any:
    """Unpickling a ``_Packed``: the original object."""
    return reduction.ForkingPickler.loads(payload)


def _pack(obj: Any) -> _Packed:
    with sharing():
        return _Packed(bytes(reduction.ForkingPickler.dumps(obj)))


def _context(ctx: Any) -> Any:
    return multiprocessing.get_context() if ctx is None else getattr(ctx, "_base", ctx)


class Queue(multiprocessing.queues.Queue):
    """``multiprocessing.Queue`` whose tensors travel as shared memory."""

    def __init__(self, maxsize: int = 0, *, ctx: Any = None) -> None:
        super().__init__(maxsize, ctx=_context(ctx))

    def put(self, obj: Any, block: bool = True, timeout: float | None = None) -> None:
        """Put ``obj`` (its tensors moved to shared memory) on the queue."""
        super().put(_pack(obj), block, timeout)


class JoinableQueue(multiprocessing.queues.JoinableQueue):
    """``multiprocessing.JoinableQueue`` whose tensors travel as shared memory."""

    def __init__(self, maxsize: int = 0, *, ctx: Any = None) -> None:
        super().__init__(maxsize, ctx=_context(ctx))

    def put(self, obj: Any, block: bool = True, timeout: float | None = None) -> None:
        """Put ``obj`` (its tensors moved to shared memory) on the queue."""
        super().put(_pack(obj), block, timeout)


class SimpleQueue(multiprocessing.queues.SimpleQueue):
    """``multiprocessing.SimpleQueue`` whose tensors travel as shared memory."""

    def __init__(self, *, ctx: Any = None) -> None:
        super().__init__(ctx=_context(ctx))

    def put(self, obj: Any) -> None:
        """Put ``obj`` (its tensors moved to shared memory) on the queue."""
        super().put(_pack(obj))


class Context:
    """A standard-library multiprocessing context (``get_context("spawn")``, ...) whose
    ``Queue``, ``SimpleQueue`` and ``JoinableQueue`` are the tensor-sharing ones above; every
    other attribute is the standard context's."""

    def __init__(self, base: Any) -> None:
        self._base = base

    def __getattr__(self, name: str) -> Any:
        return getattr(self._base, name)

    def __repr__(self) -> str:
        return f"tinygrad_lite.multiprocessing.Context({self._base.get_start_method()!r})"

    def Queue(self, maxsize: int = 0) -> Queue:  # noqa: N802 - multiprocessing's name
        """A tensor-sharing ``Queue`` of this context."""
        return Queue(maxsize, ctx=self._base)

    def JoinableQueue(self, maxsize: int = 0) -> JoinableQueue:  # noqa: N802
        """A tensor-sharing ``JoinableQueue`` of this context."""
        return JoinableQueue(maxsize, ctx=self._base)

    def SimpleQueue(self) -> SimpleQueue:  # noqa: N802
        """A tensor-sharing ``SimpleQueue`` of this context."""
        return SimpleQueue(ctx=self._base)

    def get_context(self, method: str | None = None) -> Context:
        """Another start method's context (tensor-sharing too)."""
        return get_context(method)


def get_context(method: str | None = None) -> Context:
    """The context of start method ``method`` ("fork", "spawn", "forkserver"; None: the
    current default), with tensor-sharing queues."""
    return Context(multiprocessing.get_context(method))
