"""``Rprop``: resilient backpropagation, a step size per element adapted to the gradient's
sign, as PyTorch's single-tensor update."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._update_inputs import check_hyperparameters, check_implementation_flags, descent_gradient
from .optimizer import Optimizer, bump_step, state_like, state_scalar

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """Resilient backpropagation: a step size per element, grown by ``etas[1]`` while the
    gradient keeps its sign and shrunk by ``etas[0]`` when it flips; only the sign is used."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2,
                 etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: Any = None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_hyperparameters(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, etas=tuple(etas), step_sizes=tuple(step_sizes),
                                      foreach=foreach, maximize=maximize,
                                      differentiable=differentiable, capturable=capturable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = descent_gradient(grad, group)
        (eta_minus, eta_plus), (step_min, step_max) = group["etas"], group["step_sizes"]
        if not state:
            state.update(step=state_scalar(0.0), prev=state_like(p),
                         step_size=state_like(p, group["lr"]))
        bump_step(state, traceable=True)  # (the count itself is not used here)
        prev = state["prev"]._data
        sign = np.sign(g * prev)
        factor = np.where(sign > 0, eta_plus, np.where(sign < 0, eta_minus, 1.0))
        step_size = state["step_size"]._data
        np.clip(step_size * factor, step_min, step_max, out=step_size)
        g = np.where(sign < 0, 0.0, g).astype(p._data.dtype)
        p._data -= np.sign(g) * step_size
        np.copyto(prev, g)
