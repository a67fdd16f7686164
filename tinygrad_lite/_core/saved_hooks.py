"""Saved-tensor hooks: ``pack`` runs when an op saves a tensor for backward, ``unpack`` when the
backward needs it back (PyTorch's ``torch.autograd.graph.saved_tensors_hooks``).

With no hooks active an op saves its tensors as before (one thread-local read extra). Inside
``with saved_tensors_hooks(pack, unpack):`` each op stores ``pack(tensor)`` instead of the tensor
and calls ``unpack`` on it in backward: what activation checkpointing (drop now, recompute in
backward), offloading or compressing activations are built on. Hooks are thread-local and nest;
the innermost pair applies. Tensors saved by custom ``autograd.Function``s are kept as they are.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["saved_tensors_hooks", "save_on_cpu", "hook_state", "Packed"]


class _HookState(threading.local):
    stack: tuple = ()  # (pack, unpack) pairs, innermost last; a class default for new threads


hook_state = _HookState()


class Packed(tuple):
    """What a node holds instead of its saved tensors while hooks are active: ``(unpack,
    packed)`` per tensor (None stays None), plus the packed output (``out``), if it saved one."""

    out: tuple | None = None


class saved_tensors_hooks:  # noqa: N801 - PyTorch's name
    """Context manager: inside it, tensors saved for backward go through ``pack_hook(tensor)``
    and come back through ``unpack_hook(packed)`` when backward uses them."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook, self.unpack_hook = pack_hook, unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        hook_state.stack = (*hook_state.stack, (self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: object) -> None:
        hook_state.stack = hook_state.stack[:-1]


class save_on_cpu(saved_tensors_hooks):  # noqa: N801 - PyTorch's name
    """PyTorch moves saved tensors to (pinned) CPU memory with this; tensors here already live in
    CPU memory, so the pair keeps them as they are (accepted for portability)."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t, lambda t: t)
