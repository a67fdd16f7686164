"""A context manager that sets a backend module's switches and puts them back on exit (the
``flags(...)`` of ``cudnn`` and ``mkldnn``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any


@contextlib.contextmanager
def set_flags(module: ModuleType, **values: Any) -> Iterator[None]:
    """Within the block, ``module.<name> = value`` for each given (non-None) value."""
    wanted = {name: value for name, value in values.items() if value is not None}
    before = {name: getattr(module, name) for name in wanted}
    for name, value in wanted.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(module, name, value)
