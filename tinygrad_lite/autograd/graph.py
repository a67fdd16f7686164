"""``torch.autograd.graph``'s path: ``Node``, the class of every ``grad_fn`` (with its pre- and
post-hooks), the saved-tensor hooks (both live in ``_core``), and hooks over several tensors'
gradients (``register_multi_grad_hook``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .._core.backward_scope import queue_callback
from .._core.graph import Node, RemovableHandle
from .._core.saved_hooks import save_on_cpu, saved_tensors_hooks
from .._core.tensor_base import TensorBase

__all__ = ["Node", "saved_tensors_hooks", "save_on_cpu", "register_multi_grad_hook"]


class _MultiHandle:
    """Removes the hook from every tensor at once."""

    def __init__(self, handles: list[RemovableHandle]) -> None:
        self.handles = handles

    def remove(self) -> None:
        for handle in self.handles:
            handle.remove()

    def __enter__(self) -> _MultiHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


def register_multi_grad_hook(tensors: Sequence[TensorBase], fn: Callable, *,
                             mode: str = "all") -> _MultiHandle:
    """Call ``fn`` once per backward that reaches any of ``tensors``.

    ``mode="all"``: ``fn(grads)`` with one entry per tensor (None for a tensor the backward did
    not reach), once their gradients are all computed; it runs as the backward finishes.
    ``mode="any"``: ``fn(grad)`` with the first of their gradients computed in that backward.
    The gradients themselves are not changed by ``fn``."""
    if mode not in ("all", "any"):
        raise ValueError(f"register_multi_grad_hook: mode must be 'all' or 'any', got {mode!r}")
    tensors = list(tensors)
    for t in tensors:
        if not isinstance(t, TensorBase) or not t.requires_grad:
            raise RuntimeError("register_multi_grad_hook: every tensor must require grad (got "
                               f"{type(t).__name__}"
                               f"{'' if not isinstance(t, TensorBase) else ' without grad'})")
    pending: dict[str, Any] = {"grads": None}

    def deliver() -> None:
        grads, pending["grads"] = pending["grads"], None
        if mode == "all" and grads is not None:
            fn(grads)

    def seen(index: int) -> Callable:
        def hook(grad: TensorBase) -> None:
            first = pending["grads"] is None
            if first:
                pending["grads"] = [None] * len(tensors)
                queue_callback(deliver)  # the end of this backward: every gradient is in
            if mode == "any":
                if first:
                    fn(grad)
                return
            pending["grads"][index] = grad
        return hook

    return _MultiHandle([t.register_hook(seen(i)) for i, t in enumerate(tensors)])
