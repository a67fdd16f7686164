"""``get_model_state_dict`` and ``set_model_state_dict``: a ``fully_shard`` model's state dict,
either as this rank's shards (what ``model.state_dict()`` gives) or full, every parameter
gathered whole (``StateDictOptions(full_state_dict=True)``). Every rank of the model's shard
groups must call them together, in the same order: the full forms run collectives.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._core.grad_mode import no_grad
from ...nn.modules.module import Module
from ...tensor import Tensor
from ..fsdp._fsdp_param_group import FSDPParam, FSDPParamGroup
from ..fsdp._fsdp_state import state_of
from ..process_group import mpi

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]


@dataclass
class StateDictOptions:
    """``full_state_dict``: whole tensors instead of this rank's shards; ``cpu_offload``: with
    a full state dict, only rank 0 keeps it (the others get an empty dict);
    ``broadcast_from_rank0``: when setting a full state dict, only rank 0's values count (the
    others may pass an empty dict); ``strict`` as in ``load_state_dict``."""

    full_state_dict: bool = False
    cpu_offload: bool = False
    ignore_frozen_params: bool = False
    keep_submodule_prefixes: bool = True
    strict: bool = True
    broadcast_from_rank0: bool = False
    flatten_optimizer_state_dict: bool = False


def _sharded_params(model: Module) -> dict[str, tuple[FSDPParam, FSDPParamGroup]]:
    """State-dict key -> (sharded parameter, its group), for every ``fully_shard`` module."""
    owner: dict[int, tuple[FSDPParam, FSDPParamGroup]] = {}
    for module in model.modules():
        state = state_of(module)
        if state is not None and state.param_group is not None:
            state.param_group.reshard()
            for fp in state.param_group.fsdp_params:
                owner[id(fp.sharded_param)] = (fp, state.param_group)
    return {name: owner[id(p)] for name, p in model.named_parameters(remove_duplicate=False)
            if id(p) in owner}


def get_model_state_dict(model: Module, *, submodules: Any = None,
                         options: StateDictOptions | None = None) -> dict[str, Tensor]:
    """``model``'s state dict: this rank's shards, or with ``full_state_dict`` every parameter
    all-gathered whole (a collective: call it on every rank)."""
    options = options or StateDictOptions()
    if submodules is not None:
        raise NotImplementedError("get_model_state_dict: submodules is not supported")
    sharded = _sharded_params(model)
    result = dict(model.state_dict())
    if options.ignore_frozen_params:
        frozen = {n for n, p in model.named_parameters() if not p.requires_grad}
        result = {k: v for k, v in result.items() if k not in frozen}
    if not options.full_state_dict:
        return result
    for name in list(result):
        if name not in sharded:
            continue
        fp, group = sharded[name]
        comm = group.shard_group.comm
        full = np.empty((comm.Get_size() * fp.chunk, *fp.rest), fp.dtype)
        comm.Allgather(fp.send_buffer(), full)
        result[name] = Tensor._wrap(np.array(fp.full_tensor(full)))
    if options.cpu_offload and mpi().COMM_WORLD.Get_rank() != 0:
        return {}
    return result


def set_model_state_dict(model: Module, model_state_dict: Mapping[str, Any], *,
                         options: StateDictOptions | None = None) -> Any:
    """Load ``model_state_dict`` into ``model``: shards as ``model.state_dict()`` gives them,
    or with ``full_state_dict`` whole tensors, of which each rank keeps its own rows (with
    ``broadcast_from_rank0``, rank 0's values are sent to every rank first). Returns
    ``load_state_dict``'s missing and unexpected keys."""
    options = options or StateDictOptions()
    if not options.full_state_dict:
        return model.load_state_dict(dict(model_state_dict), strict=options.strict)
    sharded = _sharded_params(model)
    values = dict(model_state_dict)
    if options.broadcast_from_rank0:
        world = mpi().COMM_WORLD
        keys = world.bcast(sorted(values) if world.Get_rank() == 0 else None, root=0)
        local = dict(model.state_dict())
        for key in keys:
            like = local.get(key)
            if key in sharded:
                fp = sharded[key][0]
                buf = np.empty(fp.shape, fp.dtype)
            elif like is not None:
                buf = np.empty(like._data.shape, like._data.dtype)
            else:
                buf = None
            if buf is None:
                continue
            if world.Get_rank() == 0:
                v = values[key]
                buf[...] = v._data if isinstance(v, Tensor) else np.asarray(v)
            world.Bcast(buf, root=0)
            values[key] = Tensor._wrap(buf)
    with no_grad():
        for key, (fp, group) in sharded.items():
            if key not in values:
                continue
            v = values[key]
            whole = (v._data if isinstance(v, Tensor) else np.asarray(v)).reshape(fp.rows,
                                                                                  *fp.rest)
            rank = group.shard_group.rank()
            start = min(rank * fp.chunk, fp.rows)
            values[key] = Tensor._wrap(np.array(whole[start:start + fp.local_rows]))
    return model.load_state_dict(values, strict=options.strict)
