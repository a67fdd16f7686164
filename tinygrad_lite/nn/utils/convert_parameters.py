"""PyTorch's ``torch.nn.utils.convert_parameters``: parameters to one vector and back."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..._core.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened into one 1-D tensor (a copy, outside the graph)."""
    params = list(parameters)
    if not params:
        return Tensor._wrap(np.zeros(0, np.float32))
    return Tensor._wrap(np.concatenate([p._data.reshape(-1) for p in params]))


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of the 1-D ``vec`` into the parameters, in place."""
    if not isinstance(vec, Tensor) or vec.ndim != 1:
        raise TypeError(f"expected vec to be a 1-D Tensor, but got {type(vec).__name__}"
                        + (f" of shape {tuple(vec.shape)}" if isinstance(vec, Tensor) else ""))
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if vec.numel() != total:
        raise RuntimeError(f"vector_to_parameters: vec has {vec.numel()} elements, the "
                           f"parameters {total}")
    offset = 0
    with no_grad():
        for p in params:
            n = p.numel()
            np.copyto(p._data, vec._data[offset:offset + n].reshape(p.shape), casting="unsafe")
            p._version_counter[0] += 1
            offset += n
