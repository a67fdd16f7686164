"""``tinygrad_lite.nn.functional``: stateless layers with PyTorch's signatures, composed from the
primitive ops (their gradients come for free). ``import tinygrad_lite.nn.functional as F`` gives
everything; the implementation lives in the private package ``nn._functional``, one module per
theme; ``pad`` (constant, reflect, replicate, circular) is the functions layer's."""

from __future__ import annotations

from ..functions.shape import pad
from ..overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
)
from ._functional import activation as _activation
from ._functional import conv as _conv
from ._functional import distance as _distance
from ._functional import loss_margin as _loss_margin
from ._functional import pooling as _pooling
from ._functional import pooling_adaptive as _pooling_adaptive
from ._functional import pooling_fractional as _pooling_fractional
from ._functional import unpool as _unpool
from ._functional import vision as _vision
from ._functional.activation import *  # noqa: F403
from ._functional.attention import (
    _canonical_mask,  # noqa: F401 - PyTorch's private F._canonical_mask (transformer layers)
    _none_or_dtype,  # noqa: F401
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from ._functional.conv import *  # noqa: F403
from ._functional.ctc_loss import ctc_loss
from ._functional.distance import *  # noqa: F403
from ._functional.dropout import (
    alpha_dropout,
    dropout,
    dropout1d,
    dropout2d,
    dropout3d,
    feature_alpha_dropout,
)
from ._functional.grid import affine_grid, grid_sample
from ._functional.linear import bilinear, linear
from ._functional.linear_cross_entropy import linear_cross_entropy
from ._functional.loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    gaussian_nll_loss,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    poisson_nll_loss,
    smooth_l1_loss,
)
from ._functional.loss_margin import *  # noqa: F403
from ._functional.normalization import (
    batch_norm,
    group_norm,
    instance_norm,
    layer_norm,
    local_response_norm,
    normalize,
    rms_norm,
)
from ._functional.pooling import *  # noqa: F403
from ._functional.pooling_adaptive import *  # noqa: F403
from ._functional.pooling_fractional import *  # noqa: F403
from ._functional.sparse import embedding, embedding_bag, one_hot
from ._functional.unpool import *  # noqa: F403
from ._functional.vision import *  # noqa: F403

__all__ = [
    "linear", "bilinear", *_activation.__all__, "dropout", "embedding", "batch_norm", "layer_norm",
    "group_norm", "rms_norm", "normalize", "one_hot", "pad", *_conv.__all__, *_pooling.__all__,
    *_pooling_adaptive.__all__, *_unpool.__all__, *_pooling_fractional.__all__, "mse_loss",
    "l1_loss", "huber_loss", "smooth_l1_loss", "cross_entropy", "nll_loss",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "poisson_nll_loss",
    "gaussian_nll_loss", *_loss_margin.__all__, *_distance.__all__,
    "scaled_dot_product_attention", "multi_head_attention_forward", *_vision.__all__,
    "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "feature_alpha_dropout",
    "instance_norm", "local_response_norm", "ctc_loss", "embedding_bag", "affine_grid",
    "grid_sample", "linear_cross_entropy", "handle_torch_function", "has_torch_function",
    "has_torch_function_unary", "has_torch_function_variadic",
]
