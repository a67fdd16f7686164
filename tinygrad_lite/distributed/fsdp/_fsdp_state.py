"""When a ``fully_shard`` module gathers and frees its parameters: the forward hooks, the
gradient hooks that run during backward, and the root's end-of-backward callback.

- forward pre-hook: the first state to run forward becomes the root (every ``fully_shard``
  module below it is not); the group all-gathers and registers the unsharded parameters.
- forward hook: the group reshards when ``reshard_after_forward`` (by default every module but
  the root; always without grad mode, since no backward follows), and a hook on each output
  that requires grad gathers the parameters again when backward reaches the module.
- a post-accumulate-grad hook on each unsharded parameter: once all of a group's gradients are
  in (backward finishes each parameter's gradient as soon as it is complete while a
  ``fully_shard`` module exists), the group frees its unsharded parameters and reduce-scatters.
- the root's callback at the end of backward does the same for groups some of whose
  parameters got no gradient, and reshards every group.
- prefetching (``set_modules_to_forward_prefetch`` / ``..._backward_prefetch``) gathers other
  groups as soon as this one's forward or backward starts.

Collectives must run in the same order on every rank: forward runs the modules in program
order and backward in the reverse of the recorded graph, the same on every rank, as long as
every rank runs the same modules and uses the same parameters (as in PyTorch).
"""

from __future__ import annotations

import weakref
from typing import Any

from ..._core.accumulate_grad import enable_eager_leaf_finish
from ..._core.backward_scope import queue_callback
from ..._core.grad_mode import grad_state
from ...nn.modules.module import Module
from ...tensor import Tensor
from ._fsdp_param_group import FSDPParamGroup

__all__ = ["FSDPState", "FSDPStateContext", "state_of"]

IDLE, FORWARD, PRE_BACKWARD = "idle", "forward", "pre_backward"


class FSDPStateContext:
    """What the states under one root share."""

    def __init__(self) -> None:
        self.all_states: list[FSDPState] = []
        self.callback_queued = False
        self.is_last_backward = True


def state_of(module: Module) -> FSDPState | None:
    """The ``fully_shard`` state of ``module`` (None when it has none)."""
    state = module.__dict__.get("_fsdp_state")
    return state if isinstance(state, FSDPState) else None


def _grad_tensors(obj: Any, found: list[Tensor]) -> list[Tensor]:
    """The tensors inside ``obj`` (nested lists, tuples, dicts) that require grad."""
    if isinstance(obj, Tensor):
        if obj.requires_grad:
            found.append(obj)
    elif isinstance(obj, dict):
        for value in obj.values():
            _grad_tensors(value, found)
    elif isinstance(obj, (list, tuple)):
        for value in obj:
            _grad_tensors(value, found)
    return found


class FSDPState:
    """The hooks of one ``fully_shard`` module and its parameter group (None when it has no
    parameters of its own)."""

    def __init__(self, module: Module, group: FSDPParamGroup | None,
                 reshard_after_forward: bool | None) -> None:
        self.module = module
        self.param_group = group
        self.auto_reshard_after_forward = reshard_after_forward is None
        self.reshard_after_forward = True if reshard_after_forward is None \
            else bool(reshard_after_forward)
        self.is_root: bool | None = None
        self.training_state = IDLE
        self.ctx = FSDPStateContext()
        # states to gather early: when this one's forward / backward starts
        self.forward_prefetch: list[FSDPState] = []
        self.backward_prefetch: list[FSDPState] = []
        self._handles = [
            module.register_forward_pre_hook(self._pre_forward, prepend=True, with_kwargs=True),
            module.register_forward_hook(self._post_forward),
        ]
        if group is not None:
            for fp in group.fsdp_params:
                if fp.unsharded_param.requires_grad:
                    self._handles.append(fp.unsharded_param.register_post_accumulate_grad_hook(
                        self._grad_ready))

    # -- root ----------------------------------------------------------------------------------
    def lazy_init(self) -> None:
        """The first state to run forward is the root: it collects the states below it."""
        if self.is_root is not None:
            return
        self.is_root = True
        seen: set[int] = set()
        for name, module in self.module.named_modules():
            state = state_of(module)
            if state is None or id(state) in seen:
                continue
            seen.add(id(state))
            if state is not self:
                if state.is_root is not None:
                    raise RuntimeError(
                        f"FSDP state has already been lazily initialized for {name}\nFSDP "
                        "requires running forward through the root module first")
                state.is_root = False
            state.ctx = self.ctx
            self.ctx.all_states.append(state)
        if self.auto_reshard_after_forward:  # the root is needed again at once by backward
            self.reshard_after_forward = False
        enable_eager_leaf_finish(True)
        weakref.finalize(self, enable_eager_leaf_finish, False)

    # -- forward -------------------------------------------------------------------------------
    def _pre_forward(self, module: Module, args: tuple, kwargs: dict) -> None:
        if self.training_state == PRE_BACKWARD:  # recomputation inside backward (checkpoint)
            if self.param_group is not None:
                self.param_group.unshard()
            return None
        self.lazy_init()
        self.training_state = FORWARD
        if self.param_group is not None:
            self.param_group.unshard()
        for other in self.forward_prefetch:
            if other.param_group is not None:
                other.param_group.unshard()
        return None

    def _post_forward(self, module: Module, args: tuple, output: Any) -> Any:
        if self.training_state == PRE_BACKWARD:
            return None
        self.training_state = IDLE
        if self.param_group is None:
            return None
        if not grad_state.enabled:
            self.param_group.reshard()  # no backward will need them: free them, root too
            return None
        if self.reshard_after_forward:
            self.param_group.reshard()
        for t in _grad_tensors(output, []):
            t.register_hook(self._pre_backward)
        return None

    # -- backward ------------------------------------------------------------------------------
    def _queue_final_callback(self) -> None:
        if not self.ctx.callback_queued:
            self.ctx.callback_queued = True
            queue_callback(self._root_final_callback)

    def _pre_backward(self, grad: Tensor) -> None:
        self._queue_final_callback()
        if self.training_state != PRE_BACKWARD:
            self.training_state = PRE_BACKWARD
            if self.param_group is not None:
                self.param_group.unshard()
            for other in self.backward_prefetch:
                if other.param_group is not None:
                    other.param_group.unshard()
        return None

    def _grad_ready(self, param: Tensor) -> None:
        self._queue_final_callback()
        group = self.param_group
        if group is not None and group.grad_ready(param):
            group.post_backward()

    def _root_final_callback(self) -> None:
        """End of backward: reduce what is left, reshard everything, reset the states."""
        self.ctx.callback_queued = False
        for state in reversed(self.ctx.all_states):
            group = state.param_group
            if group is not None:
                if group._sharded_grads_pending():
                    group.post_backward()
                group._ready = set()
                group.reshard()
            state.training_state = IDLE
