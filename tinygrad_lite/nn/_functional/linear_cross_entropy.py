"""PyTorch's ``F.linear_cross_entropy`` and ``nn.LinearCrossEntropyOptions``: cross entropy of
``linear(input, linear_weight, linear_bias)`` against a target, with PyTorch's argument checks.

PyTorch's ``options`` select a chunked custom op that never materialises the full logits. Here
``options`` is accepted and validated with PyTorch's rules (and PyTorch's warning is raised
where PyTorch would fall back to the reference path), but the loss is always computed on the
reference path ``cross_entropy(linear(...))``: the values and gradients are the same, the
memory saving is not reproduced."""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from ... import dtypes
from ..._core.tensor_base import TensorBase
from ..._core.warnings import warn
from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy", "LinearCrossEntropyOptions"]

_ACC_POLICIES = {"auto", "accurate", "balanced", "compact"}


@dataclasses.dataclass(slots=True, frozen=True)
class LinearCrossEntropyOptions:
    """Chunking options of ``linear_cross_entropy`` (validated as in PyTorch; see module doc)."""

    allow_retain_graph: bool = False
    batch_chunk_size: int | None = None
    chunking_method: str | None = "auto"
    acc_policy: Literal["accurate", "balanced", "compact", "auto"] = "auto"
    acc_dtype: Any = None

    def __post_init__(self) -> None:
        """PyTorch's validation of the fields (``ValueError`` on a bad value)."""
        if self.acc_policy not in _ACC_POLICIES:
            raise ValueError(f"invalid acc_policy: {self.acc_policy!r}")
        if self.chunking_method is not None and self.chunking_method != "auto":
            name, sep, factor = self.chunking_method.partition(":")
            if not sep:
                factor = "1"
            if not (name == "aspect_ratio" and factor.isdigit() and int(factor) > 0):
                raise ValueError(f"invalid chunking_method: {self.chunking_method!r}")
        if not (self.batch_chunk_size is None or (isinstance(self.batch_chunk_size, int)
                                                  and self.batch_chunk_size > 0)):
            raise ValueError("batch_chunk_size must be positive int or None, got "
                             f"{self.batch_chunk_size!r}")
        supported = {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}
        if self.acc_dtype is not None and self.acc_dtype not in supported:
            raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                             f"torch.float32, torch.float64}}, got {self.acc_dtype!r}. Pass "
                             "acc_dtype=None to let the op pick automatically.")


def linear_cross_entropy(input: TensorBase, linear_weight: TensorBase, target: TensorBase, *,
                         linear_bias: TensorBase | None = None,
                         weight: TensorBase | None = None, reduction: str = "mean",
                         ignore_index: int | None = None, label_smoothing: float = 0.0,
                         options: LinearCrossEntropyOptions | None = None) -> TensorBase:
    """``cross_entropy(linear(input, linear_weight, linear_bias), target, ...)``; a weight of
    shape ``(C, d_1, ..., d_K, in)`` gives the K-dimensional loss (``ignore_index=None`` means
    -100, and is an error with a probability target)."""
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.ndim}")
    num_batches = tuple(input.shape[:-1])
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {input.shape[-1]} and "
                           f"{linear_weight.shape[-1]}, respectively")
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (num_classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(num_classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not num_batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = (*num_batches, num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and (out_features or reduction not in {"mean", "sum", "none"}
                                or label_smoothing != 0.0 or target.dtype != dtypes.int64):
        bias_shape = tuple(linear_bias.shape) if linear_bias is not None else None
        warn("linear_cross_entropy: ``options`` ignored; chunked path needs "
             "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
             f" == int64, out_features == (). Got reduction={reduction!r}, "
             f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
             f"out_features={out_features}, tracing=False, "
             f"linear_bias.shape={bias_shape}.")
    if out_features:
        flat = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape(flat, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)
