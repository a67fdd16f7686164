"""Pairwise distances between the rows of two batched matrices: cdist (the primitive of
ops/linalg/distance.py, or matmul's expansion for p=2 as PyTorch chooses)."""

from __future__ import annotations

from ..._core.tensor_base import TensorBase
from ...dtypes import is_float_dtype
from ...ops.linalg.distance import cdist_direct
from ...ops.linalg.inverse import torch_dtype_name

__all__ = ["cdist"]


def cdist(x1: TensorBase, x2: TensorBase, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> TensorBase:
    """The p-norm distance between each row of ``x1`` and each row of ``x2`` (batched).

    For p = 2 with more than 25 rows on either side (or ``compute_mode='use_mm_for_euclid_
    dist'``), as PyTorch: ``sqrt(|a|^2 + |b|^2 - 2 a.b)`` through one matrix product instead of
    the (P, R, M) differences (clamped at 1e-30, where the gradient is 0)."""
    if compute_mode not in ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                            "donot_use_mm_for_euclid_dist"):
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    for name, x in (("X1", x1), ("X2", x2)):
        if not is_float_dtype(x._data.dtype):
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{torch_dtype_name(x._data.dtype)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"cdist: X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    use_mm = compute_mode == "use_mm_for_euclid_dist" or (
        compute_mode == "use_mm_for_euclid_dist_if_necessary"
        and (x1.shape[-2] > 25 or x2.shape[-2] > 25))
    if p == 2 and use_mm:
        square1 = (x1 * x1).sum(-1, keepdim=True)  # (..., P, 1)
        square2 = (x2 * x2).sum(-1, keepdim=True)  # (..., R, 1)
        d2 = square1 - 2.0 * (x1 @ x2.mT) + square2.mT
        return d2.clamp_min(1e-30).sqrt()
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {p}")
    return cdist_direct(x1, x2, p)
