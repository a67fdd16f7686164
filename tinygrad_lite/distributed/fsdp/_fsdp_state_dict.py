"""Full (unsharded) state dicts of ``fully_shard`` models: what
``tl.distributed.checkpoint.get_model_state_dict`` / ``set_model_state_dict`` with
``full_state_dict=True`` use for the parameters that ``fully_shard`` sharded.
``model.state_dict()`` itself gives each rank's shards (the sharded parameters, local rows).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ...nn.modules.module import Module
from ...tensor import Tensor
from ._fsdp_param_group import FSDPParam, FSDPParamGroup
from ._fsdp_state import state_of

__all__ = ["sharded_parameters", "full_tensors", "local_rows_of"]


def sharded_parameters(model: Module) -> dict[str, tuple[FSDPParam, FSDPParamGroup]]:
    """State-dict name -> (sharded parameter, its group) for every parameter a ``fully_shard``
    call in ``model`` sharded (the groups are resharded first, so the names find the sharded
    parameters)."""
    owner: dict[int, tuple[FSDPParam, FSDPParamGroup]] = {}
    for module in model.modules():
        state = state_of(module)
        if state is not None and state.param_group is not None:
            state.param_group.reshard()
            for fp in state.param_group.fsdp_params:
                owner[id(fp.sharded_param)] = (fp, state.param_group)
    return {name: owner[id(p)] for name, p in model.named_parameters(remove_duplicate=False)
            if id(p) in owner}


def full_tensors(model: Module) -> dict[str, Tensor]:
    """Every sharded parameter of ``model`` all-gathered whole, by state-dict name (a
    collective over each shard group: every rank calls it)."""
    result = {}
    for name, (fp, group) in sharded_parameters(model).items():
        comm = group.shard_group.comm
        gathered = np.empty((comm.Get_size() * fp.chunk, *fp.rest), fp.dtype)
        comm.Allgather(fp.send_buffer(), gathered)
        result[name] = Tensor._wrap(np.array(fp.full_tensor(gathered)))
    return result


def local_rows_of(model: Module, state: Mapping[str, Any]) -> dict[str, Any]:
    """``state`` with the whole tensors of ``model``'s sharded parameters replaced by this
    rank's rows of them (what ``model.load_state_dict`` then takes); other entries as they
    are."""
    result = dict(state)
    for name, (fp, group) in sharded_parameters(model).items():
        if name not in result:
            continue
        value = result[name]
        whole = np.asarray(value._data if isinstance(value, Tensor) else value)
        if whole.shape != fp.shape:
            raise RuntimeError(f"set_model_state_dict: {name} has shape {whole.shape}, expected "
                               f"the unsharded shape {fp.shape}")
        start = min(group.shard_group.rank() * fp.chunk, fp.rows)
        rows = whole.reshape(fp.rows, *fp.rest)[start:start + fp.local_rows]
        result[name] = Tensor._wrap(np.array(rows))
    return result
