"""``nn.utils``: gradient clipping and flattening parameters to one vector."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .._core.grad_mode import no_grad
from ..tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _as_list(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale all gradients in place so that their joint ``norm_type`` norm is at most
    ``max_norm``; returns the total norm (before clipping) as a tensor."""
    grads = [p.grad._data for p in _as_list(parameters) if p._grad is not None]
    if not grads:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    dtype = grads[0].dtype
    if math.isinf(norm_type):
        total = max(float(np.abs(g).max()) if g.size else 0.0 for g in grads)
    else:
        total = float(sum(float((np.abs(g) ** norm_type).sum()) for g in grads)
                      ) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coef = max_norm / (total + 1e-6)
    if coef < 1.0:
        with no_grad():
            for p in _as_list(parameters):
                if p._grad is not None:
                    p._grad._data *= np.asarray(coef, p._grad._data.dtype)
                    p._grad._version_counter[0] += 1
    return Tensor._wrap(np.asarray(total, dtype))


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    for p in _as_list(parameters):
        if p._grad is not None:
            np.clip(p._grad._data, -clip_value, clip_value, out=p._grad._data)
            p._grad._version_counter[0] += 1


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
