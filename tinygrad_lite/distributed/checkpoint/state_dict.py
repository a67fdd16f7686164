"""``get_model_state_dict`` and ``set_model_state_dict`` (``torch.distributed.checkpoint
.state_dict``'s names): a model's state dict, either each rank's shards (what
``model.state_dict()`` gives) or full, every ``fully_shard``-sharded parameter gathered whole
(``StateDictOptions(full_state_dict=True)``). The full forms run collectives: every rank calls
them, in the same order.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...nn.modules.module import Module
from ..collectives import broadcast_object_list
from ..fsdp._fsdp_state_dict import full_tensors, local_rows_of
from ..process_group import default_group

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]


@dataclass
class StateDictOptions:
    """``full_state_dict``: whole tensors instead of this rank's shards; ``cpu_offload``: with
    a full state dict, only rank 0 keeps it (the others get an empty dict);
    ``ignore_frozen_params``: leave out parameters that do not require grad;
    ``broadcast_from_rank0``: when setting, only rank 0's state dict is read (the others may
    pass an empty one); ``strict`` as in ``load_state_dict``."""

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False


def get_model_state_dict(model: Module, *, submodules: Any = None,
                         options: StateDictOptions | None = None) -> dict[str, Any]:
    """``model``'s state dict: this rank's shards, or with ``full_state_dict`` every sharded
    parameter all-gathered whole (a collective: call it on every rank)."""
    options = options or StateDictOptions()
    if submodules is not None:
        raise NotImplementedError("get_model_state_dict: submodules is not supported")
    full = full_tensors(model) if options.full_state_dict else {}
    result = dict(model.state_dict())
    result.update((k, v) for k, v in full.items() if k in result)
    if options.ignore_frozen_params:
        frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
        result = {k: v for k, v in result.items() if k not in frozen}
    if options.full_state_dict and options.cpu_offload and default_group().rank() != 0:
        return {}
    return result


def set_model_state_dict(model: Module, model_state_dict: Mapping[str, Any], *,
                         options: StateDictOptions | None = None) -> Any:
    """Load ``model_state_dict`` into ``model``: shards as ``model.state_dict()`` gives them,
    or with ``full_state_dict`` whole tensors, of which each rank keeps its own rows. Returns
    ``load_state_dict``'s missing and unexpected keys."""
    options = options or StateDictOptions()
    state = dict(model_state_dict)
    if options.broadcast_from_rank0:
        carrier = [state if default_group().rank() == 0 else None]
        broadcast_object_list(carrier, src=0)
        state = carrier[0] or {}
    if options.full_state_dict:
        state = local_rows_of(model, state)
    return model.load_state_dict(state, strict=options.strict)
