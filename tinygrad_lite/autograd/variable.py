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
        t = data if isinstance(data, Tensor) else Tensor(data)
        if requires_grad:
            t = (t.detach() if t.grad_fn is not None else t).requires_grad_(True)
        return t


class Variable(metaclass=_VariableMeta):
    """``Variable(tensor, requires_grad=...)``: the tensor itself (``isinstance`` of any
    tensor is True), as in PyTorch since 0.4."""
