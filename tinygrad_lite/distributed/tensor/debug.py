"""``CommDebugMode``: counts the collectives that redistributions (the parallel styles'
communication) run while it is active, as ``torch.distributed.tensor.debug.CommDebugMode``
does; the counts are keyed by the ``tl.distributed`` collective functions
(``comm_mode.get_comm_counts()[dist.all_reduce]``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

__all__ = ["CommDebugMode", "record"]

_active: list[CommDebugMode] = []


def record(collective: Callable) -> None:
    """Count one call of ``collective`` in every active CommDebugMode."""
    for mode in _active:
        mode.comm_counts[collective] += 1


class CommDebugMode:
    """A context manager: ``with CommDebugMode() as comm_mode: ...`` then
    ``comm_mode.get_total_counts()`` / ``get_comm_counts()``."""

    def __init__(self) -> None:
        self.comm_counts: Counter = Counter()

    def __enter__(self) -> CommDebugMode:
        self.comm_counts.clear()
        _active.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _active.remove(self)

    def get_total_counts(self) -> int:
        """How many collectives ran."""
        return sum(self.comm_counts.values())

    def get_comm_counts(self) -> dict[Callable, int]:
        """How many of each collective ran."""
        return dict(self.comm_counts)
