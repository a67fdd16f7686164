"""``tl.functional``: the module path of PyTorch's ``torch.functional`` (``from torch.functional
import einsum``), holding the same package functions as ``tl.*``. ``stft``/``istft`` are left
out with the complex dtypes (tests/data/api_out_of_scope.json)."""

from __future__ import annotations

from .functions import (
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    cartesian_prod,
    cdist,
    chain_matmul,
    einsum,
    lu,
    meshgrid,
    norm,
    pca_lowrank,
    split,
    svd_lowrank,
    tensordot,
    unique,
    unique_consecutive,
    unravel_index,
)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "lu", "norm",
           "meshgrid", "pca_lowrank", "split", "svd_lowrank", "tensordot", "unique",
           "unique_consecutive", "unravel_index"]
