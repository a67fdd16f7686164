"""Linear maps of ``nn.functional``: ``linear`` (one recorded op) and ``bilinear``."""

from __future__ import annotations

from ... import ops
from ..._core.tensor_base import TensorBase

__all__ = ["linear", "bilinear"]


def linear(input: TensorBase, weight: TensorBase, bias: TensorBase | None = None) -> TensorBase:
    """``input @ weight.T + bias``, recorded as one op."""
    return ops.linear(input, weight, bias)


def bilinear(input1: TensorBase, input2: TensorBase, weight: TensorBase,
             bias: TensorBase | None = None) -> TensorBase:
    """``y_k = x1^T W_k x2 + b_k`` with weight of shape (out, in1, in2)."""
    o, n1, n2 = weight.shape
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, 1, 1, n1)  # (B, 1, 1, in1)
    x2 = input2.reshape(-1, 1, n2, 1)  # (B, 1, in2, 1)
    out = (x1 @ weight.unsqueeze(0) @ x2).reshape(*lead, o)  # (B, out, 1, 1) -> (..., out)
    return out if bias is None else out + bias
