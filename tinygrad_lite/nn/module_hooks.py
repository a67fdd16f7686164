"""Module hooks: forward pre-hooks, forward hooks and full backward (pre-)hooks, per module and
global, with PyTorch's signatures and order (global hooks first, then the module's own)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from .._core.grad_mode import grad_state
from .._core.graph import RemovableHandle
from . import _hooks

__all__ = ["ModuleHooks", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_full_backward_hook"]

# Global hooks, run for every module before the module's own hooks (as in PyTorch).
_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_backward_pre_hooks: OrderedDict = OrderedDict()
_global_backward_hooks: OrderedDict = OrderedDict()


def _add_hook(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, args)`` before every module's forward."""
    return _add_hook(_global_forward_pre_hooks, hook)


def register_module_forward_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, args, output)`` after every module's forward."""
    return _add_hook(_global_forward_hooks, hook)


def register_module_full_backward_pre_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, grad_output)`` for every module when its output gradients are known."""
    return _add_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook: Callable) -> RemovableHandle:
    """Run ``hook(module, grad_input, grad_output)`` for every module in backward."""
    return _add_hook(_global_backward_hooks, hook)



class ModuleHooks:
    """The hook half of ``Module``: registration, and ``__call__`` running the hooks around
    ``forward`` (with a fast path when no hook is registered anywhere)."""

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args)`` (or ``hook(module, args, kwargs)`` with ``with_kwargs``)
        before forward; a non-None result replaces the arguments."""
        handle = _add_hook(self._forward_pre_hooks, hook, prepend)
        if with_kwargs:
            self._forward_pre_hooks_with_kwargs[handle.id] = True
        return handle

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False,
                              with_kwargs: bool = False) -> RemovableHandle:
        """Run ``hook(module, args, output)`` (or ``hook(module, args, kwargs, output)``) after
        forward; a non-None result replaces the output."""
        handle = _add_hook(self._forward_hooks, hook, prepend)
        if with_kwargs:
            self._forward_hooks_with_kwargs[handle.id] = True
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False
                                        ) -> RemovableHandle:
        """Run ``hook(module, grad_output)`` when the gradients of the outputs are known; a
        non-None result replaces them."""
        return _add_hook(self._backward_pre_hooks, hook, prepend)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False
                                    ) -> RemovableHandle:
        """Run ``hook(module, grad_input, grad_output)`` when the gradients of the inputs are
        known; a non-None result replaces ``grad_input``."""
        return _add_hook(self._backward_hooks, hook, prepend)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_pre_hooks
                or self._backward_hooks or _global_forward_pre_hooks or _global_forward_hooks
                or _global_backward_pre_hooks or _global_backward_hooks):
            return self.forward(*args, **kwargs)  # fast path: no hooks anywhere
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict) -> Any:
        for hook_id, hook in [*_global_forward_pre_hooks.items(),
                              *self._forward_pre_hooks.items()]:
            if self._forward_pre_hooks_with_kwargs.get(hook_id):
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, "
                            f"new_kwargs), but got {result!r}."
                        )
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward = (self._backward_hooks or self._backward_pre_hooks or _global_backward_hooks
                    or _global_backward_pre_hooks) and grad_state.enabled
        state = None
        if backward:
            state = _hooks.BackwardHookState(self)
            args = state.wrap_inputs(args)
        output = self.forward(*args, **kwargs)
        for hook_id, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]:
            if self._forward_hooks_with_kwargs.get(hook_id):
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        if state is not None:
            output = state.wrap_outputs(output)
        return output

    def _backward_hook_lists(self) -> tuple[list, list]:
        """The full backward pre-hooks and hooks to run now (global ones first)."""
        return ([*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()],
                [*_global_backward_hooks.values(), *self._backward_hooks.values()])

