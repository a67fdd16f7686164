"""PyTorch's ``torch.nn.utils``: gradient clipping, parameters as one vector, and ``rnn``
(``pad_sequence``)."""

from . import clip_grad, convert_parameters, rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad", "convert_parameters", "rnn", "clip_grad_norm_", "clip_grad_value_",
           "parameters_to_vector", "vector_to_parameters"]
