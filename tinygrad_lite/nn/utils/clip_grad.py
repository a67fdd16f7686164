"""PyTorch's ``torch.nn.utils.clip_grad``: clip gradients in place, by their joint norm or by
value."""

from __future__ import annotations

import math
import types
from collections.abc import Iterable

import numpy as np

from ..._core.grad_mode import no_grad
from ..._core.warnings import warn
from ...dtypes import result_type
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_"]


def _with_grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    """The parameters that have a gradient (an iterator such as ``model.parameters()`` is read
    once)."""
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in params if p._grad is not None]


def _opmath(dtype: np.dtype) -> type:
    """The type PyTorch's CPU kernels compute a dtype's arithmetic in: float32 for the 16-bit
    floats (their Python-scalar operands stay float32, not rounded to 16 bits first)."""
    return np.float32 if dtype.itemsize < 4 else dtype.type


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float,
                    norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Scale all gradients in place so that their joint ``norm_type`` norm is at most
    ``max_norm``; returns the total norm (before clipping) as a tensor."""
    if isinstance(parameters, types.GeneratorType):
        parameters = list(parameters)
        if not parameters:
            warn("`parameters` is an empty generator, no gradient clipping will occur.")
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
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    for i, t in enumerate(tensors):
        if t is None:  # (PyTorch's foreach kernels reject a missing gradient in the list)
            raise RuntimeError("Tensors of the first list of nested Tensor lists are supposed "
                               f"to be defined but the {i}-th Tensor is not.")
    arrays = [t._data for t in tensors]
    if not arrays:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    # each norm in its tensor's dtype; stacking them promotes (float16 and float64 gradients
    # give a float64 total), as torch.stack does
    dtype = result_type(*(np.empty(1, a.dtype) for a in arrays))
    norms = np.stack([_vector_norm(g, float(norm_type)).astype(g.dtype).astype(dtype)
                      for g in arrays])
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
    gradient is multiplied, as in PyTorch: no decision on the data). The coefficient is
    computed as PyTorch's tensor arithmetic does, each step rounded to the norm's dtype."""
    total = np.asarray(total_norm._data)
    work = _opmath(total.dtype)
    denominator = (total.astype(work) + work(1e-6)).astype(total.dtype)
    coef = np.minimum((work(float(max_norm)) / denominator.astype(work)).astype(total.dtype),
                      total.dtype.type(1.0))
    with no_grad():
        for p in _with_grads(parameters):
            p._grad._data *= coef.astype(p._grad._data.dtype)
            p._grad._version_counter[0] += 1


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    for p in _with_grads(parameters):
        np.clip(p._grad._data, -clip_value, clip_value, out=p._grad._data)
        p._grad._version_counter[0] += 1
