"""``tl.autograd.Variable``: PyTorch's pre-0.4 wrapper, which since then just returns a
tensor; old tutorials still write ``Variable(x, requires_grad=True)``."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)

    def __call__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        # a new leaf sharing the data (PyTorch's Variable(t) is t.detach()): the caller's
        # tensor keeps its own requires_grad and may still be changed in place
        t = data.detach() if isinstance(data, Tensor) else Tensor(data)
        return t.requires_grad_(True) if requires_grad else t


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=...)``: a new leaf tensor sharing the data
    (``isinstance`` of any tensor is True), as in PyTorch since 0.4."""
