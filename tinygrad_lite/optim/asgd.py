"""``ASGD``: averaged SGD, keeping the average of the iterates from step ``t0`` on; ``eta``
and ``mu`` are 0-d state Tensors in PyTorch's float32 scalar dtype."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._update_inputs import check_hyperparameters, check_implementation_flags, descent_gradient
from .optimizer import Optimizer, bump_step, scalar_dtype, state_like, state_scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying step ``eta`` whose average over the iterates
    (``state["ax"]``) is kept, starting at step ``t0``."""

    def __init__(self, params: Iterable[Any], lr: float = 1e-2, lambd: float = 1e-4,
                 alpha: float = 0.75, t0: float = 1e6, weight_decay: float = 0,
                 foreach: Any = None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_hyperparameters(lr, 0.0, weight_decay)
        check_implementation_flags(foreach, None, differentiable)
        super().__init__(params, dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0,
                                      weight_decay=weight_decay, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable,
                                      capturable=capturable))

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = descent_gradient(grad, group)
        lr = group["lr"]  # (a Tensor lr arrives as a float32 NumPy scalar: the schedule of eta
        # is then computed in float32, as PyTorch computes it on the 0-d Tensor)
        if not state:
            state.update(step=state_scalar(0.0), eta=state_scalar(lr),
                         mu=state_scalar(1.0), ax=state_like(p))
        step = bump_step(state)
        if group["weight_decay"]:
            g += group["weight_decay"] * p._data
        eta, mu, ax = state["eta"]._data, state["mu"]._data, state["ax"]._data
        p._data *= 1 - group["lambd"] * eta.item()
        p._data -= eta.item() * g
        if mu.item() != 1:
            ax += (p._data - ax) * mu.item()
        else:
            np.copyto(ax, p._data)
        # rounded to the scalar dtype (PyTorch makes them with as_tensor) whatever the dtype of
        # the Tensors they are written into (a loaded state dict's may be the parameter's)
        rounding = scalar_dtype()
        eta[...] = rounding(lr / (1 + group["lambd"] * lr * step) ** group["alpha"])
        mu[...] = rounding(1 / max(1, step - group["t0"]))
