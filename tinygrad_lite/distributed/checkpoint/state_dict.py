"""``get_model_state_dict`` and ``set_model_state_dict`` (``torch.distributed.checkpoint
.state_dict``'s names): a model's state dict, either each rank's shards (what
``model.state_dict()`` gives) or full (``StateDictOptions(full_state_dict=True)``): every
``fully_shard``-sharded parameter and every tensor-parallel one (a parameter carrying a
``DTensorSpec``, as ``parallelize_module`` leaves them) gathered whole under its original name.
The full forms run collectives: every rank calls them, in the same order. The ``module.``
prefix of a DistributedDataParallel wrapper is left out of the names, as in PyTorch.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...nn.modules.module import Module
from ...nn.parallel.distributed import DistributedDataParallel
from ...tensor import Tensor
from ..collectives import broadcast_object_list
from ..fsdp._fsdp_state_dict import full_tensors, local_rows_of
from ..process_group import default_group
from ..tensor._dtensor_spec import DTensorSpec, spec_of
from ..tensor._redistribute import convert
from ..tensor.placement_types import Replicate

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]


@dataclass
class StateDictOptions:
    """``full_state_dict``: whole tensors instead of this rank's shards; ``cpu_offload``: with
    a full state dict, only rank 0 keeps it (the others get an empty dict);
    ``ignore_frozen_params``: leave out parameters that do not require grad;
    ``keep_submodule_prefixes``: with ``submodules``, whether names keep the submodule's prefix;
    ``broadcast_from_rank0``: when setting, only rank 0's state dict is read (the others may
    pass an empty one); ``strict`` as in ``load_state_dict``."""

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False


def _unwrapped(model: Module) -> Module:
    return model.module if isinstance(model, DistributedDataParallel) else model


def _tensor_parallel(model: Module) -> dict[str, DTensorSpec]:
    """State-dict name -> spec of every tensor-parallel parameter of ``model``."""
    found = {}
    for name, param in model.named_parameters(remove_duplicate=False):
        spec = spec_of(param)
        if spec is not None:
            found[name] = spec
    return found


def _array(value: Any) -> np.ndarray:
    return np.asarray(value._data if isinstance(value, Tensor) else value)


def get_model_state_dict(model: Module, *, submodules: set[Module] | None = None,
                         options: StateDictOptions | None = None) -> dict[str, Any]:
    """``model``'s state dict: this rank's shards, or with ``full_state_dict`` every sharded
    parameter all-gathered whole (a collective: call it on every rank). ``submodules``: only
    their entries."""
    options = options or StateDictOptions()
    model = _unwrapped(model)
    full = full_tensors(model) if options.full_state_dict else {}
    result = dict(model.state_dict())
    if options.full_state_dict:
        for name, spec in _tensor_parallel(model).items():
            if name in result:
                whole = convert(_array(result[name]), spec.mesh.get_group(), spec.placement,
                                Replicate())
                full[name] = Tensor._wrap(np.array(whole, copy=True))
    result.update((k, v) for k, v in full.items() if k in result)
    if options.ignore_frozen_params:
        frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
        result = {k: v for k, v in result.items() if k not in frozen}
    if submodules:
        prefixes = [n + "." for n, m in model.named_modules() if any(m is s for s in submodules)]
        result = {(k if options.keep_submodule_prefixes else k[len(p):]): v
                  for k, v in result.items() for p in prefixes if k.startswith(p)}
    if options.full_state_dict and options.cpu_offload and default_group().rank() != 0:
        return {}
    return result


def set_model_state_dict(model: Module, model_state_dict: Mapping[str, Any], *,
                         options: StateDictOptions | None = None) -> Any:
    """Load ``model_state_dict`` into ``model``: shards as ``model.state_dict()`` gives them,
    or with ``full_state_dict`` whole tensors, of which each rank keeps its own shard. Returns
    ``load_state_dict``'s missing and unexpected keys."""
    options = options or StateDictOptions()
    model = _unwrapped(model)
    state = dict(model_state_dict)
    if options.broadcast_from_rank0:
        carrier = [state if default_group().rank() == 0 else None]
        broadcast_object_list(carrier, src=0)
        state = carrier[0] or {}
    if options.full_state_dict:
        state = local_rows_of(model, state)
        for name, spec in _tensor_parallel(model).items():
            if name not in state:
                continue
            whole = _array(state[name])
            if tuple(whole.shape) != spec.shape:
                raise RuntimeError(f"set_model_state_dict: {name} has shape {whole.shape}, "
                                   f"expected the unsharded shape {spec.shape}")
            state[name] = Tensor._wrap(np.array(convert(whole, spec.mesh.get_group(),
                                                        Replicate(), spec.placement), copy=True))
    return model.load_state_dict(state, strict=options.strict)
