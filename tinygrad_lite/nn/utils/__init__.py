"""PyTorch's ``torch.nn.utils``: gradient clipping, parameters as one vector, ``rnn``
(``pad_sequence``...), ``parametrize`` and ``parametrizations`` (weight and spectral norm), and
the older hook-based ``weight_norm`` / ``spectral_norm``, BatchNorm ``fusion``,
``stateless.functional_call``, ``skip_init``, ``prune`` and the convolution weights'
``memory_format`` conversions."""

from . import (
    clip_grad,
    convert_parameters,
    fusion,
    memory_format,
    parametrizations,
    parametrize,
    prune,
    rnn,
    stateless,
)
from .clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (
    fuse_conv_bn_eval,
    fuse_conv_bn_weights,
    fuse_linear_bn_eval,
    fuse_linear_bn_weights,
)
from .init import skip_init
from .memory_format import convert_conv2d_weight_memory_format, convert_conv3d_weight_memory_format
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad", "convert_parameters", "rnn", "clip_grad_norm_", "clip_grad_value_",
           "parameters_to_vector", "vector_to_parameters", "parametrize", "parametrizations",
           "weight_norm", "remove_weight_norm", "spectral_norm", "remove_spectral_norm",
           "fusion", "stateless", "clip_grad_norm", "get_total_norm", "clip_grads_with_norm_",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "skip_init", "prune", "memory_format",
           "convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]
