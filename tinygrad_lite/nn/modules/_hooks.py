"""The machinery behind module hooks: the global hook tables, hooked calls, and the identity
nodes that give full backward hooks their gradients.

``Module.__call__`` passes the module's tensor inputs, and later its tensor outputs, through an
identity node each (PyTorch calls it ``BackwardHookFunctionBackward``). The output node sees the
gradients with respect to the outputs (and runs the backward pre-hooks); the input node, which
runs after every op of the module, sees the gradients with respect to the inputs and runs the
full backward hooks with both. Because the gradients are taken at the module's boundary, ops
inside the module (in-place ones included) cannot change what the hooks see.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from ..._core.grad_mode import grad_state
from ..._core.graph import Node, RemovableHandle
from ..._core.warnings import warn
from ...tensor import Tensor

__all__ = ["global_forward_pre_hooks", "global_forward_hooks", "global_backward_pre_hooks",
           "global_backward_hooks", "global_forward_hooks_with_kwargs",
           "global_forward_hooks_always_called", "add_hook", "call_with_hooks",
           "HookRegistrationMixin", "register_module_forward_pre_hook",
           "register_module_forward_hook", "register_module_full_backward_pre_hook",
           "register_module_full_backward_hook"]

# Global hooks (``register_module_*_hook`` in module.py), run for every module before the
# module's own hooks, as in PyTorch. Only ever mutated in place.
global_forward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
global_forward_hooks: OrderedDict[int, Callable] = OrderedDict()
global_backward_pre_hooks: OrderedDict[int, Callable] = OrderedDict()
global_backward_hooks: OrderedDict[int, Callable] = OrderedDict()
global_forward_hooks_with_kwargs: dict[int, bool] = {}
global_forward_hooks_always_called: dict[int, bool] = {}


def add_hook(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    """Store ``hook`` in ``hooks`` (first with ``prepend``); the handle removes it."""
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's forward."""
    return add_hook(global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """Run ``hook(module, args, output)`` (``hook(module, args, kwargs, output)`` with
    ``with_kwargs``) after every module's forward; ``always_call`` runs it even if forward
    raised."""
    handle = add_hook(global_forward_hooks, hook)
    if with_kwargs:
        global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` for every module when its output gradients are known."""
    return add_hook(global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` for every module in backward."""
    return add_hook(global_backward_hooks, hook)


class HookRegistrationMixin:
    """``Module``'s hook registration methods (PyTorch's names and signatures)."""

    __dict__: dict[str, Any]
    _forward_pre_hooks: OrderedDict[int, Callable]
    _forward_pre_hooks_with_kwargs: dict[int, bool]
    _forward_hooks: OrderedDict[int, Callable]
    _forward_hooks_with_kwargs: dict[int, bool]
    _backward_pre_hooks: OrderedDict[int, Callable]
    _backward_hooks: OrderedDict[int, Callable]

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``)
        before forward; a non-None result replaces the arguments."""
        handle = add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False, always_call: bool = False
                              ) -> RemovableHandle:
        """Run ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after
        forward; a non-None result replaces the output; ``always_call`` runs it (with output
        None) even when forward raises."""
        handle = add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        if always_call:
            self.__dict__.setdefault("_forward_hooks_always_called", {})[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False
                                        ) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` when the gradients of the outputs are known; a
        non-None result replaces them."""
        return add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False
                                    ) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` when the gradients of the inputs are
        known; a non-None result replaces ``grad_input``."""
        if self.__dict__.get("_is_full_backward_hook") is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        self.__dict__["_is_full_backward_hook"] = True
        return add_hook(self._backward_hooks, hook, prepend)

    def register_backward_hook(self, hook: Callable) -> RemovableHandle:
        """Deprecated (warns): ``register_full_backward_hook`` semantics, which PyTorch's
        non-full hook only approximates."""
        if self.__dict__.get("_is_full_backward_hook") is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks "
                               "on a single Module. Please use only one of them.")
        warn("register_backward_hook is deprecated and will be removed in future "
             "versions; use register_full_backward_hook, whose behaviour this hook "
             "gets.", FutureWarning)
        self.__dict__["_is_full_backward_hook"] = False
        return add_hook(self._backward_hooks, hook)


def call_with_hooks(module: Any, args: tuple, kwargs: dict) -> Any:
    """``module.forward(*args, **kwargs)`` with the forward (pre-)hooks around it and, when
    backward hooks are registered, its tensors routed through the identity nodes."""
    always = module.__dict__.get("_forward_hooks_always_called") or {}
    hooks = [*global_forward_hooks.items(), *module._forward_hooks.items()]
    called: set = set()
    state = None
    try:  # as PyTorch's: an error in a pre-hook also runs the always_call hooks
        for hook_id, hook in [*global_forward_pre_hooks.items(),
                              *module._forward_pre_hooks.items()]:
            if module._forward_pre_hooks_with_kwargs.get(hook_id):
                result = hook(module, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {result!r}.")
                    args, kwargs = result
            else:
                result = hook(module, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        if grad_state.enabled and (module._backward_hooks or module._backward_pre_hooks
                                   or global_backward_hooks or global_backward_pre_hooks):
            state = BackwardHookState(module)
            args = state.wrap_inputs(args)
        output = module.forward(*args, **kwargs)
        for hook_id, hook in hooks:
            called.add(hook_id)
            result = _run_forward_hook(module, hook_id, hook, args, kwargs, output)
            if result is not None:
                output = result
    except Exception:
        # hooks registered with always_call run even when forward (or a hook) raised
        for hook_id, hook in hooks:
            if hook_id in called or not (always.get(hook_id)
                                         or global_forward_hooks_always_called.get(hook_id)):
                continue
            try:
                _run_forward_hook(module, hook_id, hook, args, kwargs, None)
            except Exception as exc:  # the original error wins, as in PyTorch
                warn("forward hook with ``always_call=True`` raised an exception that "
                     f"was silenced as another error was raised in forward: {exc}")
        raise
    if state is not None:
        output = state.wrap_outputs(output)
    return output


def _run_forward_hook(module: Any, hook_id: int, hook: Callable, args: tuple, kwargs: dict,
                      output: Any) -> Any:
    if (module._forward_hooks_with_kwargs.get(hook_id)
            or global_forward_hooks_with_kwargs.get(hook_id)):
        return hook(module, args, kwargs, output)
    return hook(module, args, output)


def _as_tensors(grads: tuple) -> tuple:
    return tuple(g if g is None or isinstance(g, Tensor) else Tensor._wrap(g) for g in grads)


def _like_incoming(new: Any, incoming: tuple, what: str, module: Any) -> tuple:
    """Hook results back in the engine's currency (arrays in a plain backward), checked."""
    name = type(module).__name__
    if not isinstance(new, (tuple, list)) or len(new) != len(incoming):
        got = len(new) if isinstance(new, (tuple, list)) else type(new).__name__
        raise RuntimeError(f"backward hook of {name} returned {got} values for {what}, "
                           f"expected a tuple of {len(incoming)}")
    out = []
    for g_new, g_old in zip(new, incoming):
        if g_new is not None and g_old is not None and tuple(g_new.shape) != tuple(g_old.shape):
            raise RuntimeError(
                f"backward hook of {name} returned a gradient of shape {tuple(g_new.shape)} "
                f"for {what}, expected {tuple(g_old.shape)}"
            )
        plain = g_old is not None and not isinstance(g_old, Tensor)
        out.append(g_new._data if plain and isinstance(g_new, Tensor) else g_new)
    return tuple(out)


class BackwardHookFunctionBackward(Node):
    """Identity on several tensors; reports their gradients to the hook state."""

    state: BackwardHookState
    kind: str

    def backward(self, *grads: Any) -> tuple:
        """The gradients, possibly replaced by the module's hooks."""
        return self.state.on_grads(self.kind, grads)


class BackwardHookState:
    """Per call of a module: collects grad_output, then fires the hooks with grad_input."""

    def __init__(self, module: Any) -> None:
        self.module = module
        self.n_inputs = 0
        self.has_input_node = False
        self.grad_output: tuple | None = None
        # (shape, dtype) of the tensor inputs that need no gradient, by position among the
        # tensor inputs: the hooks see zeros for them, as PyTorch's (non-differentiable)
        # identity node materialises them
        self.constant_inputs: dict[int, tuple] = {}

    def _wrap(self, tensors: list, kind: str) -> list:
        """Route the tensors that require grad through one identity node."""
        if not any(t._requires_grad for t in tensors):
            return tensors
        node = BackwardHookFunctionBackward(*tensors)
        node.n_outputs = len(tensors)
        node._direct = False  # the engine passes several output gradients
        node.state, node.kind = self, kind
        out = []
        for i, t in enumerate(tensors):
            w = Tensor._wrap(t._data, node if t._requires_grad else None)
            w._version_counter = t._version_counter
            w._output_nr = i
            out.append(w)
        return out

    def wrap_inputs(self, args: tuple) -> tuple:
        """The positional arguments with tensors replaced by identity-node outputs."""
        positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(positions)
        tensors = [args[i] for i in positions]
        wrapped = self._wrap(tensors, "input")
        self.has_input_node = any(w.grad_fn is not None for w in wrapped)
        if self.has_input_node:
            self.constant_inputs = {j: (t._data.shape, t._data.dtype)
                                    for j, t in enumerate(tensors) if not t._requires_grad}
        new = list(args)
        for i, w in zip(positions, wrapped):
            new[i] = w
        return tuple(new)

    def wrap_outputs(self, output: Any) -> Any:
        """The output (a tensor or a tuple/list of them) through the output identity node."""
        if isinstance(output, Tensor):
            return self._wrap([output], "output")[0]
        if isinstance(output, (tuple, list)):
            positions = [i for i, o in enumerate(output) if isinstance(o, Tensor)]
            wrapped = self._wrap([output[i] for i in positions], "output")
            new = list(output)
            for i, w in zip(positions, wrapped):
                new[i] = w
            return type(output)(new) if isinstance(output, tuple) else new
        return output

    def on_grads(self, kind: str, grads: tuple) -> tuple:
        """Called by the identity nodes in backward (outputs first, then inputs)."""
        module = self.module
        pre_hooks = [*global_backward_pre_hooks.values(), *module._backward_pre_hooks.values()]
        hooks = [*global_backward_hooks.values(), *module._backward_hooks.values()]
        if kind == "output":
            for hook in pre_hooks:
                result = hook(module, _as_tensors(grads))
                if result is not None:
                    grads = _like_incoming(tuple(result), grads, "grad_output", module)
            self.grad_output = _as_tensors(grads)
            if not self.has_input_node:  # no input needs a gradient: fire now, as PyTorch does
                for hook in hooks:
                    hook(module, (None,) * max(self.n_inputs, 1), self.grad_output)
            return grads
        grad_output = self.grad_output if self.grad_output is not None else ()
        constant = self.constant_inputs
        for hook in hooks:
            shown = _as_tensors(grads)
            if constant:
                shown = tuple(Tensor._wrap(np.zeros(*constant[j])) if j in constant else g
                              for j, g in enumerate(shown))
            result = hook(module, shown, grad_output)
            if result is not None:
                grads = _like_incoming(tuple(result), grads, "grad_input", module)
        if constant:  # inputs that need no gradient get none, whatever a hook returned
            grads = tuple(None if j in constant else g for j, g in enumerate(grads))
        return grads
