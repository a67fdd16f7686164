"""``tl.distributed.checkpoint``: saving and loading parallelized models; here the state dict
functions of ``torch.distributed.checkpoint.state_dict``."""

from .state_dict import StateDictOptions, get_model_state_dict, set_model_state_dict

__all__ = ["StateDictOptions", "get_model_state_dict", "set_model_state_dict"]
