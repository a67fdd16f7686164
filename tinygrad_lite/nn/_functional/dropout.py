"""Dropout of ``nn.functional``."""

from __future__ import annotations

import numpy as np

from ..._core.tensor_base import TensorBase, wrap
from ..._core.warnings import warn
from ...functions import creation

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]


def dropout(input: TensorBase, p: float = 0.5, training: bool = True, inplace: bool = False
            ) -> TensorBase:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``; with
    ``inplace=True`` the input itself is multiplied (and returned)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    keep = creation.default_rng().keep_mask(input.shape, p)
    scale = wrap(_mask_scale(keep, 1.0 / (1.0 - p), input._data.dtype))
    return input.mul_(scale) if inplace else input * scale


def _mask_scale(keep: np.ndarray, scale: float, dtype: np.dtype) -> np.ndarray:
    """``keep * scale`` in ``dtype``, one pass: the scale rounded once to the dtype, so the
    values are those of ``(keep / (1 - p)).astype(dtype)`` (1 * s and 0 * s are exact) without
    its float64 temporary (a compiled kernel gains nothing more here: this is one pass at
    memory speed, and the random draw is most of dropout's time)."""
    return np.multiply(keep, np.dtype(dtype).type(scale), dtype=dtype)


def _feature_mask_shape(input: TensorBase, batched_ndim: int, op: str) -> tuple[int, ...]:
    """One mask entry per channel: (N, C, 1, ...) batched, (C, 1, ...) unbatched (except 3-D
    input to dropout2d: (N, C, L), as PyTorch, with its warning). dropout2d
    and dropout3d take other ranks of 2 dims or more with PyTorch's deprecation warning,
    zeroing each (N, C) entry's elements together."""
    if input.ndim not in (batched_ndim - 1, batched_ndim) and batched_ndim > 3 and \
            input.ndim >= 2:
        spatial = batched_ndim - 2
        warn(f"{op}: Received a {input.ndim}-D input to {op}, which is deprecated and will "
             "result in an error in a future release. To retain the behavior and silence this "
             f"warning, please use dropout instead. Note that {op} exists to provide channel-"
             f"wise dropout on inputs with {spatial} spatial dimensions, a channel dimension, "
             f"and an optional batch dimension (i.e. {batched_ndim - 1}D or {batched_ndim}D "
             "inputs).")
        return tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    if batched_ndim == 4 and input.ndim == 3:
        # PyTorch still reads 3-D input to dropout2d as (N, C, L), not as unbatched (C, H, W)
        warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
             "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
             "the channel dim. This behavior will change in a future release to interpret the "
             "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
             "channel-wise dropout behavior, please switch to using dropout1d instead.")
        return tuple(input.shape[:2]) + (1,)
    if input.ndim not in (batched_ndim - 1, batched_ndim):
        raise RuntimeError(f"{op}: expected {batched_ndim - 1}D (unbatched) or {batched_ndim}D "
                           f"(batched) input, got input of shape {tuple(input.shape)}")
    lead = 2 if input.ndim == batched_ndim else 1
    return tuple(input.shape[:lead]) + (1,) * (input.ndim - lead)


def _feature_dropout(input: TensorBase, p: float, training: bool, inplace: bool,
                     batched_ndim: int, op: str) -> TensorBase:
    """Zero whole channels with probability ``p``, scaling the kept ones by 1 / (1 - p)."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    shape = _feature_mask_shape(input, batched_ndim, op)
    if not training or p == 0.0:
        return input
    keep = creation.default_rng().keep_mask(shape, p)
    scale = wrap(_mask_scale(keep, 1.0 / (1.0 - p) if p < 1.0 else 0.0, input._data.dtype))
    return input.mul_(scale) if inplace else input * scale


def dropout1d(input: TensorBase, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> TensorBase:
    """Channel-wise dropout of (N, C, L) or (C, L) input."""
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


def dropout2d(input: TensorBase, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> TensorBase:
    """Channel-wise dropout of (N, C, H, W) or (C, H, W) input."""
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


def dropout3d(input: TensorBase, p: float = 0.5, training: bool = True, inplace: bool = False
              ) -> TensorBase:
    """Channel-wise dropout of (N, C, D, H, W) or (C, D, H, W) input."""
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


# SELU's negative saturation value -lambda * alpha: dropped units are set to it, so alpha
# dropout keeps a self-normalising network's mean and variance
_SELU_SATURATION = -1.7580993408473766


def _alpha_dropout(input: TensorBase, p: float, training: bool, mask_shape: tuple) -> TensorBase:
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input * 0.0
    keep = creation.default_rng().keep_mask(mask_shape, p).astype(input._data.dtype)
    a = ((1.0 - p) * (1.0 + p * _SELU_SATURATION ** 2)) ** -0.5
    b = -a * _SELU_SATURATION * p
    dropped_value = wrap(((1.0 - keep) * _SELU_SATURATION * a + b).astype(input._data.dtype))
    return input * wrap((keep * a).astype(input._data.dtype)) + dropped_value


def alpha_dropout(input: TensorBase, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> TensorBase:
    """Dropout for SELU networks: dropped units take SELU's saturation value and an affine map
    keeps the mean and variance (``inplace`` is accepted; the result is a new tensor)."""
    return _alpha_dropout(input, p, training, tuple(input.shape))


def feature_alpha_dropout(input: TensorBase, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> TensorBase:
    """Alpha dropout of whole channels (dim 1)."""
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha_dropout(input, p, training, shape)
