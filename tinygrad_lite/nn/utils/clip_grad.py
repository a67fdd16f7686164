"""PyTorch's ``torch.nn.utils.clip_grad``: clip gradients in place, by their joint norm or by
value."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..._core.grad_mode import no_grad
from ..._core.warnings import warn
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _with_grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    """The parameters that have a gradient (an iterator such as ``model.parameters()`` is read
    once)."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in params if p._grad is not None]


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale all gradients in place so that their joint ``norm_type`` norm is at most
    ``max_norm``; returns the total norm (before clipping) as a tensor."""
    params = _with_grads(parameters)
    if not params:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    total = get_total_norm([p._grad for p in params], norm_type, error_if_nonfinite)
    clip_grads_with_norm_(params, max_norm, total)
    return total


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float,
                   norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_`` (warns)."""
    warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
         "`torch.nn.utils.clip_grad_norm_`.", FutureWarning)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type`` norm of all ``tensors`` together (as if concatenated): the norm of
    their norms, each summed in float64 and rounded to the tensors' dtype, as PyTorch's CPU
    kernels accumulate. Array operations throughout (no Python float), so ``tl.compile``
    replays it."""
    arrays = [t._data for t in ([tensors] if isinstance(tensors, Tensor) else tensors)
              if t is not None]
    if not arrays:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    dtype = arrays[0].dtype
    norms = np.stack([_vector_norm(g, float(norm_type)).astype(dtype) for g in arrays])
    total = _vector_norm(norms, float(norm_type)).astype(dtype)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._wrap(total)


def _vector_norm(g: np.ndarray, p: float) -> np.ndarray:
    """The ``p``-norm of all of ``g`` as a 0-d float64 array."""
    if g.size == 0:
        return np.zeros((), np.float64)
    if math.isinf(p):
        return np.abs(g).max().astype(np.float64) if p > 0 else \
            np.abs(g).min().astype(np.float64)
    if p == 0:
        return np.asarray(np.count_nonzero(g), np.float64)
    if p == 1:
        return np.add.reduce(np.abs(g, dtype=np.float64), axis=None)
    if p == 2:
        return np.sqrt(np.add.reduce(np.square(g, dtype=np.float64), axis=None))
    return np.add.reduce(np.abs(g, dtype=np.float64) ** p, axis=None) ** (1.0 / p)


def clip_grads_with_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                          total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale the gradients in place by ``min(max_norm / (total_norm + 1e-6), 1)`` (every
    gradient is multiplied, as in PyTorch: no decision on the data)."""
    total = np.asarray(total_norm._data)
    coef = np.minimum(np.divide(max_norm, total + 1e-6), 1.0)
    with no_grad():
        for p in _with_grads(parameters):
            p._grad._data *= coef.astype(p._grad._data.dtype)
            p._grad._version_counter[0] += 1


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    for p in _with_grads(parameters):
        np.clip(p._grad._data, -clip_value, clip_value, out=p._grad._data)
        p._grad._version_counter[0] += 1
