"""A context manager that sets an object's switches and puts them back on exit (the
``flags(...)`` of ``backends.cudnn`` and ``backends.mkldnn``, ``tl._dynamo.config.patch``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def set_flags(owner: Any, **values: Any) -> Iterator[None]:
    """Within the block, ``owner.<name> = value`` for each given (non-None) value."""
    wanted = {name: value for name, value in values.items() if value is not None}
    before = {name: getattr(owner, name) for name in wanted}
    for name, value in wanted.items():
        setattr(owner, name, value)
    try:
        yield
    finally:
        for name, value in before.items():
            setattr(owner, name, value)
