"""``tl.distributed.checkpoint``: model state dicts of sharded (``fully_shard``) and
tensor-parallel (``parallelize_module``) models, full or sharded, through
``get_model_state_dict`` / ``set_model_state_dict`` (PyTorch's
``torch.distributed.checkpoint.state_dict`` names)."""

from .state_dict import StateDictOptions, get_model_state_dict, set_model_state_dict

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]
