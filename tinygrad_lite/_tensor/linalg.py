"""Linear-algebra methods whose results differ from their function's: ``Tensor.lu`` returns a
plain tuple where ``tl.lu`` returns a named one."""

from __future__ import annotations

from typing import Any

from .. import functions
from .._core.tensor_base import TensorBase

__all__ = ["METHODS", "PROPERTIES"]


def lu(self: TensorBase, pivot: bool = True, get_infos: bool = False) -> tuple:
    """``tl.lu`` of this tensor as a plain tuple (PyTorch's method unpacks the named tuple its
    function returns)."""
    return tuple(functions.lu(self, pivot=pivot, get_infos=get_infos))


METHODS: dict[str, Any] = {"lu": lu}
PROPERTIES: dict[str, property] = {}
