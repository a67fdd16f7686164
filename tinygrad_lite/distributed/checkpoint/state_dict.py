"""Model state dicts of parallelized models (``torch.distributed.checkpoint.state_dict``'s
names): ``get_model_state_dict(model, options=StateDictOptions(full_state_dict=True))``
gathers every sharded parameter (one carrying a ``DTensorSpec``, as tensor parallelism leaves
them) to its unsharded shape under its original name, on every rank;
``set_model_state_dict`` loads such a full state dict back into the shards. Without
``full_state_dict`` both work on each rank's local shards (``model.state_dict()``). The
``module.`` prefix of a DistributedDataParallel wrapper is left out, as in PyTorch."""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...nn.modules.module import Module
from ...nn.parallel.distributed import DistributedDataParallel
from ...tensor import Tensor
from ..collectives import broadcast_object_list
from ..process_group import default_group
from ..tensor._dtensor_spec import DTensorSpec, spec_of
from ..tensor._redistribute import convert
from ..tensor.placement_types import Replicate

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]


@dataclass
class StateDictOptions:
    """What the state dict functions return or expect: ``full_state_dict`` (unsharded
    tensors), ``cpu_offload`` (a no-op: tensors live on the CPU), ``ignore_frozen_params``
    (leave out parameters that do not require grad), ``keep_submodule_prefixes`` (with
    ``submodules``), ``strict`` (loading), ``broadcast_from_rank0`` (loading: only rank 0's
    state dict is read; the other ranks may pass an empty one)."""

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False
    dsd_fqn_modifiers: str = "_fqn_modifiers"


def _unwrapped(model: Module) -> Module:
    return model.module if isinstance(model, DistributedDataParallel) else model


def _specs(model: Module) -> dict[str, tuple[DTensorSpec, bool]]:
    """Each sharded parameter's spec and whether it requires grad, by name."""
    found = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        spec = spec_of(param)
        found[name] = (spec, param.requires_grad)
    return found  # type: ignore[return-value]


def _full(local: Any, spec: DTensorSpec) -> Tensor:
    data = np.asarray(local._data if isinstance(local, Tensor) else local)
    whole = convert(data, spec.mesh.get_group(), spec.placement, Replicate())
    return Tensor._wrap(np.array(whole, copy=True))


def get_model_state_dict(model: Module, *, submodules: set[Module] | None = None,
                         options: StateDictOptions | None = None) -> dict[str, Any]:
    """The model's state dict; with ``options.full_state_dict`` sharded parameters are gathered
    to their whole tensors (a collective: every rank of their mesh calls it)."""
    opts = options or StateDictOptions()
    inner = _unwrapped(model)
    specs = _specs(inner)
    result: dict[str, Any] = OrderedDict()
    for name, value in inner.state_dict().items():
        spec, trainable = specs.get(name, (None, True))
        if opts.ignore_frozen_params and name in specs and not trainable:
            continue
        result[name] = _full(value, spec) if opts.full_state_dict and spec is not None \
            else value
    if submodules:
        prefixes = [n for n, m in inner.named_modules() if any(m is s for s in submodules)]
        kept: dict[str, Any] = OrderedDict()
        for name, value in result.items():
            for prefix in prefixes:
                if name.startswith(prefix + "."):
                    kept[name if opts.keep_submodule_prefixes else name[len(prefix) + 1:]] = \
                        value
        result = kept
    return result


def set_model_state_dict(model: Module, model_state_dict: dict[str, Any], *,
                         options: StateDictOptions | None = None) -> Any:
    """Load ``model_state_dict`` (names without a DistributedDataParallel prefix); with
    ``options.full_state_dict`` its sharded parameters are given whole and each rank keeps its
    shard. Returns ``load_state_dict``'s missing and unexpected keys."""
    opts = options or StateDictOptions()
    inner = _unwrapped(model)
    state = model_state_dict
    if opts.broadcast_from_rank0:
        carrier = [dict(state) if default_group().rank() == 0 else None]
        broadcast_object_list(carrier, src=0)
        state = carrier[0] or {}
    specs = _specs(inner)
    local: dict[str, Any] = OrderedDict()
    for name, value in state.items():
        spec = specs.get(name, (None, True))[0]
        if opts.full_state_dict and spec is not None:
            data = np.asarray(value._data if isinstance(value, Tensor) else value)
            if tuple(data.shape) != spec.shape:
                raise RuntimeError(f"set_model_state_dict: {name} has shape {tuple(data.shape)}"
                                   f", expected the unsharded shape {spec.shape}")
            value = Tensor._wrap(np.array(convert(data, spec.mesh.get_group(), Replicate(),
                                                  spec.placement), copy=True))
        local[name] = value
    return inner.load_state_dict(local, strict=opts.strict)
