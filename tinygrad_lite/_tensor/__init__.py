"""The Tensor's surface beyond ``tensor.py``, one concept per module.

Each module holds the methods of one concept as functions taking the tensor first, and exports
them as ``METHODS`` (name -> function) and ``PROPERTIES`` (name -> ``property``); ``tensor.py``
binds every module's two dicts onto ``Tensor`` in one loop. ``format`` (``repr``), ``storage``,
``dlpack`` and ``legacy`` also hold the package-level names of their concept
(``set_printoptions``, ``UntypedStorage``, ``from_dlpack``, ``FloatTensor`` ...).
"""

from __future__ import annotations

from typing import Any

__all__ = ["constant"]


def constant(value: Any) -> property:
    """A read-only attribute that is always ``value`` (``is_cuda``, ``layout``, ...)."""
    return property(lambda self: value)
