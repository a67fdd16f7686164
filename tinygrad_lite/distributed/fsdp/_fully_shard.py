"""``fully_shard`` (PyTorch's FSDP2): shard a module's parameters across the data-parallel
ranks, gather them only while the module runs, and reduce-scatter their gradients.

Applied bottom-up, as in PyTorch (``for layer in model.layers: fully_shard(layer)`` then
``fully_shard(model)``): each call groups the parameters of the module and of the submodules not
already sharded by an earlier call, and gathers them with one round of collectives. The module's
class becomes ``FSDP<Class>``, a subclass of ``FSDPModule`` and of its own class.

Differences from PyTorch, here where there is no DTensor: the sharded parameters (what
``module.parameters()`` and ``state_dict()`` give outside forward, what the optimizer updates)
are plain ``Parameter`` s holding this rank's rows, so their shape is the local shard's, not the
global one; ``get_model_state_dict`` / ``set_model_state_dict`` in this package give and take
the full (unsharded) state dict. Every rank must build the same initial parameters (seed them
alike), as PyTorch also expects; gradient clipping over sharded gradients needs the norm summed
across ranks (``clip_grad_norm_`` sees only this rank's shard).

``mesh``: a 1-D ``DeviceMesh`` shards over its ranks (FSDP; None: all ranks); a 2-D mesh
``(replicate, shard)`` shards along dim 1 and replicates along dim 0 (HSDP): gradients are
reduce-scattered within the shard group, then all-reduced across the replicate group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from ...nn.modules.module import Module
from ...tensor import Tensor
from ..device_mesh import DeviceMesh
from ..process_group import ProcessGroup, default_group, init_process_group, is_initialized
from ._fsdp_api import MixedPrecisionPolicy, OffloadPolicy
from ._fsdp_param_group import FSDPParam, FSDPParamGroup
from ._fsdp_state import FSDPState, state_of

__all__ = ["fully_shard", "FSDPModule", "UnshardHandle", "register_fsdp_forward_method"]

_fsdp_classes: dict[type, type] = {}
_DEFAULT_MP_POLICY = MixedPrecisionPolicy()
_DEFAULT_OFFLOAD_POLICY = OffloadPolicy()


def _unimplemented_deepcopy(*args: Any, **kwargs: Any) -> NoReturn:
    raise AssertionError("FSDP does not support deepcopy. Please use state dict for "
                         "serialization.")


class UnshardHandle:
    """What ``unshard(async_op=True)`` returns; the gather is already complete here (MPI's
    all-gathers are waited on inside ``unshard``), so ``wait()`` returns at once."""

    def wait(self) -> None:
        """Wait for the unshard (already done)."""


class FSDPModule:
    """Mixed into the class of every module ``fully_shard`` was applied to."""

    _orig_cls_mro_index = 2  # FSDP<Orig>, FSDPModule, Orig, ...

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        """A new instance of an ``FSDP<Class>`` (a container indexing itself, for example) is
        a plain instance of the original class."""
        orig: Any = cls.__mro__[cls._orig_cls_mro_index]
        self = orig.__new__(orig)
        self.__init__(*args, **kwargs)
        return self

    def _get_fsdp_state(self) -> FSDPState:
        state = state_of(self) if isinstance(self, Module) else None
        if state is None:
            raise AssertionError(f"No FSDP state found on {self!r}")
        return state

    def reshard(self) -> None:
        """Free the unsharded parameters and register the sharded ones (this module only)."""
        group = self._get_fsdp_state().param_group
        if group is not None:
            group.reshard()

    def unshard(self, async_op: bool = False) -> UnshardHandle | None:
        """All-gather this module's parameters and register the unsharded ones (this module
        only); with ``async_op``, returns a handle to wait on."""
        group = self._get_fsdp_state().param_group
        if group is not None:
            group.unshard()
        return UnshardHandle() if async_op else None

    def _groups(self, recurse: bool) -> list[FSDPParamGroup]:
        modules = list(self.modules()) if recurse else [self]  # type: ignore[attr-defined]
        groups = []
        for module in modules:
            state = state_of(module) if isinstance(module, Module) else None
            if state is not None and state.param_group is not None:
                groups.append(state.param_group)
        return groups

    def set_requires_gradient_sync(self, requires_gradient_sync: bool, *,
                                   recurse: bool = True) -> None:
        """Whether backward reduces the gradients (False: they accumulate unsharded on each
        rank, without communication, until a backward with sync on; FSDP1's ``no_sync``)."""
        for group in self._groups(recurse):
            group.reduce_grads = requires_gradient_sync
            group.all_reduce_grads = requires_gradient_sync

    def set_requires_all_reduce(self, requires_all_reduce: bool, *,
                                recurse: bool = True) -> None:
        """HSDP: whether backward all-reduces across the replicate group (False: the
        reduce-scattered gradients accumulate until a backward that does)."""
        for group in self._groups(recurse):
            group.all_reduce_grads = requires_all_reduce

    def set_reshard_after_forward(self, reshard_after_forward: bool, recurse: bool = True
                                  ) -> None:
        """Whether the parameters are freed after forward (and gathered again in backward)."""
        modules = list(self.modules()) if recurse else [self]  # type: ignore[attr-defined]
        for module in modules:
            state = state_of(module) if isinstance(module, Module) else None
            if state is not None:
                state.reshard_after_forward = bool(reshard_after_forward)
                state.auto_reshard_after_forward = False

    def set_reshard_after_backward(self, reshard_after_backward: bool, *,
                                   recurse: bool = True) -> None:
        """Whether the parameters are freed after backward (else kept for the next
        forward)."""
        for group in self._groups(recurse):
            group.reshard_after_backward = reshard_after_backward

    def _states_of(self, modules: list, what: str) -> list[FSDPState]:
        states = []
        for module in modules:
            state = state_of(module) if isinstance(module, Module) else None
            if state is None:
                raise ValueError(f"{what}: expects FSDPModules, got {type(module).__name__}")
            states.append(state)
        return states

    def set_modules_to_forward_prefetch(self, modules: list) -> None:
        """Gather ``modules``' parameters as soon as this module's forward starts (instead of
        when theirs does), e.g. the next layer's; every rank must set the same."""
        self._get_fsdp_state().forward_prefetch = self._states_of(
            list(modules), "set_modules_to_forward_prefetch")

    def set_modules_to_backward_prefetch(self, modules: list) -> None:
        """Gather ``modules``' parameters as soon as backward reaches this module, e.g. the
        previous layer's; every rank must set the same."""
        self._get_fsdp_state().backward_prefetch = self._states_of(
            list(modules), "set_modules_to_backward_prefetch")

    def set_is_last_backward(self, is_last_backward: bool) -> None:
        """Recorded for PyTorch compatibility; every backward finishes its reductions here."""
        self._get_fsdp_state().ctx.is_last_backward = is_last_backward

    def set_gradient_divide_factor(self, factor: float) -> None:
        """Divide the summed gradients by ``factor`` instead of the data-parallel size."""
        for group in self._groups(recurse=True):
            group.gradient_divide_factor = float(factor)

    def reset_iter_state(self) -> None:
        """Forget the state of an iteration cut short (e.g. by an exception in forward)."""
        state = self._get_fsdp_state()
        for other in state.ctx.all_states or [state]:
            other.training_state = "idle"
            if other.param_group is not None:
                other.param_group._ready = set()
                other.param_group.reshard()
        state.ctx.callback_queued = False


def register_fsdp_forward_method(module: Module, method_name: str) -> None:
    """Make ``module.<method_name>()`` gather and free the parameters like ``forward``."""
    state = state_of(module)
    if state is None:
        return
    method = getattr(module, method_name)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        state._pre_forward(module, args, kwargs)
        out = method(*args, **kwargs)
        state._post_forward(module, args, out)
        return out

    object.__setattr__(module, method_name, wrapped)


def _groups_of(mesh: DeviceMesh | None) -> tuple[ProcessGroup, ProcessGroup | None]:
    """(shard group, replicate group or None) for ``mesh``."""
    if mesh is None:
        if not is_initialized():
            init_process_group("mpi")
        return default_group(), None
    if not isinstance(mesh, DeviceMesh):
        raise ValueError(f"fully_shard: mesh must be a DeviceMesh, got {type(mesh).__name__}")
    if mesh.ndim == 1:
        return mesh.get_group(0), None
    if mesh.ndim == 2:
        return mesh.get_group(1), mesh.get_group(0)
    raise ValueError(f"fully_shard expects a 1D or 2D DeviceMesh but got {mesh}")


def _managed_params(module: Module) -> list[tuple[Tensor, list[tuple[Module, str]]]]:
    """The parameters of ``module`` and of its submodules not below another ``fully_shard``
    module, each once, with every (module, name) that registers it."""
    found: dict[int, tuple[Tensor, list[tuple[Module, str]]]] = {}
    stack = [module]
    while stack:
        m = stack.pop(0)
        for name, p in m._parameters.items():
            if p is None:
                continue
            if id(p) not in found:
                found[id(p)] = (p, [])
            found[id(p)][1].append((m, name))
        for child in m._modules.values():
            if child is not None and state_of(child) is None:
                stack.append(child)
    return list(found.values())


def fully_shard(module: Module, *, mesh: DeviceMesh | None = None,
                reshard_after_forward: bool | int | None = None,
                shard_placement_fn: Callable | None = None,
                mp_policy: MixedPrecisionPolicy = _DEFAULT_MP_POLICY,
                offload_policy: OffloadPolicy = _DEFAULT_OFFLOAD_POLICY,
                ignored_params: set | None = None) -> Module:
    """Shard ``module``'s parameters along dim 0 across ``mesh`` (see the module docstring);
    returns ``module``, whose class is now an ``FSDPModule`` subclass.

    ``reshard_after_forward``: True frees the gathered parameters after forward and gathers
    them again in backward; False keeps them until backward is done; None (the default) is
    True for every module but the root (the first to run forward). ``ignored_params`` stay
    whole and unsynchronized. Sharding on another dim than 0 (``shard_placement_fn``), casting
    (``mp_policy``) and an integer ``reshard_after_forward`` are not supported.
    """
    if isinstance(module, (list, tuple)):
        raise NotImplementedError("fully_shard: a list of modules sharing one group is not "
                                  "supported; call fully_shard on each module")
    if not isinstance(module, Module):
        raise ValueError(f"fully_shard does not support containers or non-Module types: "
                         f"{type(module).__name__}")
    if state_of(module) is not None:
        raise RuntimeError(f"fully_shard: {type(module).__name__} is already sharded")
    if shard_placement_fn is not None:
        raise NotImplementedError("fully_shard: shard_placement_fn is not supported; "
                                  "parameters are sharded on dim 0")
    if any(d is not None for d in (mp_policy.param_dtype, mp_policy.reduce_dtype,
                                   mp_policy.output_dtype)):
        raise NotImplementedError("fully_shard: mixed precision (mp_policy) is not supported; "
                                  "parameters are gathered and reduced in their own dtype")
    if reshard_after_forward is not None and not isinstance(reshard_after_forward, bool):
        raise NotImplementedError("fully_shard: an integer reshard_after_forward (resharding "
                                  "to a smaller world) is not supported; use True or False")
    shard_group, replicate_group = _groups_of(mesh)
    ignored = {id(p) for p in ignored_params or ()}
    params = [(p, uses) for p, uses in _managed_params(module) if id(p) not in ignored]
    rank, world = shard_group.rank(), shard_group.size()
    group = None
    if params:
        fsdp_params = [FSDPParam(p, uses, rank, world) for p, uses in params]
        for fp in fsdp_params:
            fp.register(sharded=True)
        group = FSDPParamGroup(fsdp_params, shard_group, replicate_group)
    module.__dict__["_fsdp_state"] = FSDPState(module, group, reshard_after_forward)
    if group is not None:  # state_dict() and load_state_dict() see the sharded parameters
        module.register_state_dict_pre_hook(lambda *args, **kwargs: group.reshard())
        module.register_load_state_dict_pre_hook(lambda *args, **kwargs: group.reshard())
    cls = type(module)
    fsdp_cls = _fsdp_classes.get(cls)
    if fsdp_cls is None:
        fsdp_cls = type(f"FSDP{cls.__name__}", (FSDPModule, cls),
                        {"__deepcopy__": _unimplemented_deepcopy})
        _fsdp_classes[cls] = fsdp_cls
    module.__class__ = fsdp_cls
    return module
