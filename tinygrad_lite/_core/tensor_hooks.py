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

__all__ = ["run_tensor_hooks", "apply_hooks", "run_node_prehooks", "run_node_posthooks"]


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


def _hook_result(hook: Any, result: Any, given: tuple, node: Node, what: str) -> tuple:
    """A node hook's replacement for ``given``, checked: one entry per gradient, same shapes."""
    if result is None:
        return given
    result = tuple(result)
    if len(result) != len(given):
        raise RuntimeError(f"hook {getattr(hook, '__name__', hook)!r} on {node.name()} returned "
                           f"{len(result)} {what}, expected {len(given)}")
    for new, old in zip(result, given):
        if new is not None and old is not None and tuple(new.shape) != tuple(old.shape):
            raise RuntimeError(f"hook {getattr(hook, '__name__', hook)!r} on {node.name()} "
                               f"returned a gradient of shape {tuple(new.shape)}, expected "
                               f"{tuple(old.shape)}")
    return result


def _as_tensors(grads: Any) -> tuple:
    return tuple(None if g is None else _as_tensor(g) for g in grads)


def _like(grads: tuple, arrays: bool) -> list:
    """Back to what the engine passes around: arrays in a plain backward, else Tensors."""
    if not arrays:
        return list(grads)
    return [None if g is None else (g._data if isinstance(g, TensorBase) else g) for g in grads]


def run_node_prehooks(node: Node, grads: list, arrays: bool) -> list:
    """``Node.register_prehook`` hooks on the node's output gradients, in registration order."""
    assert node._node_hooks is not None
    given = _as_tensors(grads)
    for hook in list(node._node_hooks[0].values()):
        given = _hook_result(hook, hook(given), given, node, "output gradients")
    return _like(given, arrays)


def run_node_posthooks(node: Node, input_grads: Any, grads: list, arrays: bool) -> tuple:
    """``Node.register_hook`` hooks on the gradients the node computed for its inputs."""
    assert node._node_hooks is not None
    outputs = _as_tensors(grads)
    computed = _as_tensors(input_grads)
    for hook in list(node._node_hooks[1].values()):
        computed = _hook_result(hook, hook(computed, outputs), computed, node, "input gradients")
    return tuple(_like(computed, arrays))
