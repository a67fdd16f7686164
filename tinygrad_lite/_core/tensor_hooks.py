"""Gradient hooks on tensors (``register_hook``, ``retain_grad``) as the engine runs them.

A hook sees the tensor's complete gradient, always as a Tensor, and may return a replacement.
Hooks run in registration order with ``retain_grad`` last, as in PyTorch, so ``.grad`` of a
retained non-leaf holds what the other hooks made of the gradient.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from .graph import Node, RetainGradHook
from .observers import active_observers
from .tensor_base import TensorBase, wrap

__all__ = ["run_tensor_hooks", "apply_hooks"]


def _as_tensor(grad: Any) -> TensorBase:
    return grad if isinstance(grad, TensorBase) else wrap(grad)


def run_tensor_hooks(node: Node, tensor_hooks: dict[int, OrderedDict], grads: list) -> list:
    """Run the hooks registered on the node's output tensors (``node._tensor_hooks``) on their
    (complete) gradients."""
    grads = list(grads)
    for idx, hooks in tensor_hooks.items():
        if grads[idx] is not None and hooks:
            grads[idx] = apply_hooks(hooks.values(), grads[idx], node)
    return grads


def apply_hooks(hooks, grad: Any, owner: Any) -> Any:
    """Call ``hook(grad)`` in registration order (retain_grad last, as in PyTorch); a tensor
    returned by a hook replaces the gradient. Hooks always see Tensors. ``owner``: the node
    whose output gradient this is, or the leaf tensor."""
    hooks = sorted(hooks, key=lambda h: isinstance(h, RetainGradHook))
    was_array = not isinstance(grad, TensorBase)
    grad = _as_tensor(grad)
    for hook in hooks:
        result = hook(grad)
        for obs in active_observers():
            obs.hook_ran(owner, hook, grad, result)
        if result is not None:
            if tuple(result.shape) != tuple(grad.shape):
                where = owner.name() if isinstance(owner, Node) else "a leaf tensor"
                raise RuntimeError(
                    f"hook {getattr(hook, '__name__', hook)!r} on the gradient of {where} "
                    f"returned shape {tuple(result.shape)}, expected {tuple(grad.shape)}"
                )
            grad = _as_tensor(result)
    return grad._data if was_array else grad
