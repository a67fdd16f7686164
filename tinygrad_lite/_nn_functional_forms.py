"""The ``torch.*`` forms of ``nn.functional`` (``torch.conv2d``, ``torch.dropout``,
``torch.batch_norm``, ``torch.embedding``, the losses ...), with PyTorch's signatures for these
forms, which often differ from the functional ones: ``torch.dropout(input, p, train)``,
``torch.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
cudnn_enabled)``, ``torch.embedding(weight, indices)``, losses taking ``reduction`` as PyTorch's
enum (0 none, 1 mean, 2 sum; the names are accepted too), pooling's ``stride=()`` meaning the
kernel size. Each delegates to ``nn.functional``; ``cudnn_enabled`` and the like are accepted
and ignored. The ``*_`` forms write the result into ``input``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ._core.tensor_base import TensorBase, wrap
from .functions.creation import default_rng
from .nn import functional as F  # noqa: N812 - PyTorch's conventional alias
from .ops import inplace

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "convolution", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_dropout",
    "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_", "batch_norm",
    "layer_norm", "group_norm", "instance_norm", "rms_norm", "embedding", "embedding_bag",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "pixel_shuffle", "pixel_unshuffle",
    "channel_shuffle", "rrelu", "rrelu_", "selu", "selu_", "celu", "celu_", "threshold",
    "threshold_", "bilinear", "cosine_similarity", "pairwise_distance", "pdist", "kl_div",
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss",
    "margin_ranking_loss", "triplet_margin_loss", "poisson_nll_loss", "ctc_loss",
]

# the same signatures as nn.functional's
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d = F.conv_transpose1d, F.conv_transpose2d
conv_transpose3d = F.conv_transpose3d
rms_norm, adaptive_avg_pool1d = F.rms_norm, F.adaptive_avg_pool1d
pixel_shuffle, pixel_unshuffle, channel_shuffle = F.pixel_shuffle, F.pixel_unshuffle, \
    F.channel_shuffle
bilinear, cosine_similarity, pairwise_distance, pdist = F.bilinear, F.cosine_similarity, \
    F.pairwise_distance, F.pdist

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(reduction: Any) -> str:
    """PyTorch's reduction enum (0, 1, 2) as nn.functional's name; names pass through."""
    if isinstance(reduction, str):
        return reduction
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction (0: none, 1: mean, "
                         "2: sum)")
    return _REDUCTIONS[reduction]


def _written_into(input: TensorBase, name: str, fn: Callable[[TensorBase], TensorBase]
                  ) -> TensorBase:
    """``fn(input)`` stored in ``input`` (the in-place forms)."""
    return inplace.apply(input, name, fn)


def convolution(input: TensorBase, weight: TensorBase, bias: TensorBase | None, stride: Any,
                padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                groups: int) -> TensorBase:
    """A 1-, 2- or 3-d convolution (by ``weight``'s dims), transposed on request."""
    n = weight.ndim - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a weight of 3, 4 or 5 dims, got shape "
                           f"{tuple(weight.shape)}")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return (F.conv1d, F.conv2d, F.conv3d)[n - 1](input, weight, bias, stride, padding, dilation,
                                                 groups)


def dropout(input: TensorBase, p: float, train: bool) -> TensorBase:
    """Zero elements with probability ``p`` while ``train``, scaling the rest by 1 / (1 - p)."""
    return F.dropout(input, p, train)


def dropout_(input: TensorBase, p: float, train: bool) -> TensorBase:
    """In place: ``dropout``."""
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input: TensorBase, p: float, train: bool) -> TensorBase:
    """SELU-preserving dropout (``nn.functional.alpha_dropout``)."""
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input: TensorBase, p: float, train: bool) -> TensorBase:
    """In place: ``alpha_dropout``."""
    return _written_into(input, "alpha_dropout_", lambda s: F.alpha_dropout(s, p, train))


def feature_dropout(input: TensorBase, p: float, train: bool) -> TensorBase:
    """Zero whole channels (dim 1 of an input with at least 2 dims) with probability ``p``,
    scaling the kept ones by 1 / (1 - p)."""
    if input.ndim < 2:
        raise RuntimeError(f"Feature dropout requires at least 2 dimensions in the input, got "
                           f"shape {tuple(input.shape)}")
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not train or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    keep = default_rng().keep_mask(shape, p)
    scale = keep / (1.0 - p) if p < 1.0 else keep * 0.0
    return input * wrap(scale.astype(input._data.dtype))


def feature_dropout_(input: TensorBase, p: float, train: bool) -> TensorBase:
    """In place: ``feature_dropout``."""
    return _written_into(input, "feature_dropout_", lambda s: feature_dropout(s, p, train))


def feature_alpha_dropout(input: TensorBase, p: float, train: bool) -> TensorBase:
    """Alpha dropout of whole channels (``nn.functional.feature_alpha_dropout``)."""
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input: TensorBase, p: float, train: bool) -> TensorBase:
    """In place: ``feature_alpha_dropout``."""
    return _written_into(input, "feature_alpha_dropout_",
                         lambda s: F.feature_alpha_dropout(s, p, train))


def batch_norm(input: TensorBase, weight: TensorBase | None, bias: TensorBase | None,
               running_mean: TensorBase | None, running_var: TensorBase | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> TensorBase:
    """Batch normalisation, in PyTorch's ``torch.batch_norm`` argument order."""
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: TensorBase, weight: TensorBase | None, bias: TensorBase | None,
                  running_mean: TensorBase | None, running_var: TensorBase | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> TensorBase:
    """Instance normalisation, in PyTorch's ``torch.instance_norm`` argument order."""
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def layer_norm(input: TensorBase, normalized_shape: Any, weight: TensorBase | None = None,
               bias: TensorBase | None = None, eps: float = 1e-5,
               cudnn_enable: bool = True) -> TensorBase:
    """Layer normalisation over the trailing ``normalized_shape`` dims."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: TensorBase, num_groups: int, weight: TensorBase | None = None,
               bias: TensorBase | None = None, eps: float = 1e-5,
               cudnn_enabled: bool = True) -> TensorBase:
    """Group normalisation of ``num_groups`` channel groups."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def embedding(weight: TensorBase, indices: TensorBase, padding_idx: int = -1,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> TensorBase:
    """Rows of ``weight`` at ``indices`` (weight first, as ``torch.embedding``; a negative
    ``padding_idx`` means none)."""
    return F.embedding(indices, weight, padding_idx if padding_idx >= 0 else None,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


_BAG_MODES = {0: "sum", 1: "mean", 2: "max"}  # PyTorch's mode enum (names are accepted too)


def embedding_bag(weight: TensorBase, indices: TensorBase, offsets: TensorBase,
                  scale_grad_by_freq: bool = False, mode: int = 0, sparse: bool = False,
                  per_sample_weights: TensorBase | None = None,
                  include_last_offset: bool = False, padding_idx: int | None = None) -> tuple:
    """``torch.embedding_bag``: ``(output, offset2bag, bag_size, max_indices)`` for the flat
    ``indices`` cut at ``offsets``; ``mode`` 0 sum, 1 mean, 2 max. The auxiliary tensors follow
    PyTorch's CPU kernel (its general, not its float32 fast path): each index's bag, each
    bag's size without padding (zeros for sum), and the winning rows of max (the bag sizes
    again for mean, zeros for sum)."""
    name = _BAG_MODES[mode] if isinstance(mode, int) else str(mode)
    out = F.embedding_bag(indices, weight, offsets, scale_grad_by_freq=scale_grad_by_freq,
                          mode=name, sparse=sparse, per_sample_weights=per_sample_weights,
                          include_last_offset=include_last_offset, padding_idx=padding_idx)
    flat = indices._data.reshape(-1).astype(np.int64)
    starts = offsets._data.reshape(-1).astype(np.int64)
    bags = len(starts) - 1 if include_last_offset else len(starts)
    bag_of = (np.searchsorted(starts, np.arange(flat.size), side="right") - 1).astype(np.int64)
    if name == "sum":
        return out, wrap(bag_of), wrap(np.zeros(bags, np.int64)), wrap(np.zeros(bags, np.int64))
    keep = np.ones(flat.size, bool) if padding_idx is None else flat != padding_idx
    sizes = np.bincount(bag_of[keep], minlength=bags)[:bags].astype(np.int64)
    if name == "mean":
        return out, wrap(bag_of), wrap(sizes), wrap(sizes.copy())
    rows = weight._data[flat]
    winners = np.zeros((bags, weight.shape[1]), np.int64)
    for b in range(bags):
        members = np.nonzero((bag_of == b) & keep)[0]
        if members.size:
            winners[b] = flat[members[np.argmax(rows[members], axis=0)]]
    return out, wrap(bag_of), wrap(sizes), wrap(winners)


def _stride(stride: Any) -> Any:
    """PyTorch's empty stride (``()``/``[]``) means the kernel size: nn.functional's None."""
    return None if isinstance(stride, (tuple, list)) and not stride else stride


def max_pool1d(input: TensorBase, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> TensorBase:
    """1-d max pooling (values only)."""
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool2d(input: TensorBase, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> TensorBase:
    """2-d max pooling (values only)."""
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input: TensorBase, kernel_size: Any, stride: Any = (), padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False) -> TensorBase:
    """3-d max pooling (values only)."""
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input: TensorBase, kernel_size: Any, stride: Any = (),
                            padding: Any = 0, dilation: Any = 1,
                            ceil_mode: bool = False) -> tuple:
    """1-d max pooling: ``(values, indices)``."""
    return F.max_pool1d_with_indices(input, kernel_size, _stride(stride), padding, dilation,
                                     ceil_mode)


def avg_pool1d(input: TensorBase, kernel_size: Any, stride: Any = (), padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> TensorBase:
    """1-d average pooling."""
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                        count_include_pad)


def adaptive_max_pool1d(input: TensorBase, output_size: Any) -> tuple:
    """Adaptive 1-d max pooling: ``(values, indices)``."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def rrelu(input: TensorBase, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator: Any = None) -> TensorBase:
    """Randomised leaky ReLU (slopes from the package's generator; another ``generator`` is
    refused)."""
    if generator is not None:
        raise NotImplementedError("rrelu: generator= is not supported; seed the default "
                                  "generator with tl.manual_seed instead")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input: TensorBase, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False, generator: Any = None) -> TensorBase:
    """In place: ``rrelu``."""
    if generator is not None:
        raise NotImplementedError("rrelu_: generator= is not supported; seed the default "
                                  "generator with tl.manual_seed instead")
    return F.rrelu_(input, lower, upper, training)


def selu(input: TensorBase) -> TensorBase:
    """SELU: ``scale * elu(x, alpha)`` with its self-normalising constants."""
    return F.selu(input)


def selu_(input: TensorBase) -> TensorBase:
    """In place: ``selu``."""
    return F.selu_(input)


def celu(input: TensorBase, alpha: float = 1.0) -> TensorBase:
    """CELU: ``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return F.celu(input, alpha)


def celu_(input: TensorBase, alpha: float = 1.0) -> TensorBase:
    """In place: ``celu``."""
    return F.celu_(input, alpha)


def threshold(input: TensorBase, threshold: float, value: float) -> TensorBase:
    """``x`` where ``x > threshold``, else ``value``."""
    return F.threshold(input, threshold, value)


def threshold_(input: TensorBase, threshold: float, value: float) -> TensorBase:
    """In place: ``threshold``."""
    return F.threshold_(input, threshold, value)


def kl_div(input: TensorBase, target: TensorBase, reduction: Any = 1, *,
           log_target: bool = False) -> TensorBase:
    """The Kullback-Leibler divergence of log-probabilities ``input`` from ``target``. Unlike
    ``nn.functional.kl_div``, PyTorch's op form gives no warning for its default ``'mean'``."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "reduction: 'mean' divides", UserWarning)
        return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input: TensorBase, target: TensorBase,
                                     weight: TensorBase | None = None,
                                     pos_weight: TensorBase | None = None,
                                     reduction: Any = 1) -> TensorBase:
    """Binary cross entropy of logits (``pos_weight`` before ``reduction``, as PyTorch's
    torch.* form)."""
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1: TensorBase, input2: TensorBase, target: TensorBase,
                          margin: float = 0.0, reduction: Any = 1) -> TensorBase:
    """``1 - cos`` for target 1, ``max(0, cos - margin)`` for target -1."""
    return F.cosine_embedding_loss(input1, input2, target, margin,
                                   reduction=_reduction(reduction))


def hinge_embedding_loss(input: TensorBase, target: TensorBase, margin: float = 1.0,
                         reduction: Any = 1) -> TensorBase:
    """``x`` for target 1, ``max(0, margin - x)`` for target -1."""
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1: TensorBase, input2: TensorBase, target: TensorBase,
                        margin: float = 0.0, reduction: Any = 1) -> TensorBase:
    """``max(0, -target * (input1 - input2) + margin)``."""
    return F.margin_ranking_loss(input1, input2, target, margin,
                                 reduction=_reduction(reduction))


def triplet_margin_loss(anchor: TensorBase, positive: TensorBase, negative: TensorBase,
                        margin: float = 1.0, p: float = 2.0, eps: float = 1e-6,
                        swap: bool = False, reduction: Any = 1) -> TensorBase:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with p-norm distances."""
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


def poisson_nll_loss(input: TensorBase, target: TensorBase, log_input: bool, full: bool,
                     eps: float, reduction: Any) -> TensorBase:
    """The Poisson negative log likelihood (every argument required, as in ``torch.*``)."""
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


def ctc_loss(log_probs: TensorBase, targets: Any, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: Any = 1, zero_infinity: bool = False) -> TensorBase:
    """The connectionist temporal classification loss."""
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction), zero_infinity)
