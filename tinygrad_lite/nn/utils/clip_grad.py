"""PyTorch's ``torch.nn.utils.clip_grad``: clip gradients in place, by their joint norm or by
value."""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..._core.grad_mode import no_grad
from ...tensor import Tensor

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


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
    grads = [p._grad._data for p in params]
    if not grads:
        return Tensor._wrap(np.asarray(0.0, np.float32))
    dtype = grads[0].dtype
    norm_type = float(norm_type)
    if math.isinf(norm_type):
        total = max(float(np.abs(g).max()) if g.size else 0.0 for g in grads)
    else:
        total = float(sum(float((np.abs(g) ** norm_type).sum()) for g in grads)
                      ) ** (1.0 / norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the gradients "
            "by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    coef = max_norm / (total + 1e-6)
    if coef < 1.0:
        with no_grad():
            for p in params:
                p._grad._data *= np.asarray(coef, p._grad._data.dtype)
                p._grad._version_counter[0] += 1
    return Tensor._wrap(np.asarray(total, dtype))


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    for p in _with_grads(parameters):
        np.clip(p._grad._data, -clip_value, clip_value, out=p._grad._data)
        p._grad._version_counter[0] += 1
