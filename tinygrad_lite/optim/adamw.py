"""``AdamW``: Adam with decoupled weight decay (``p *= 1 - lr * wd`` before the Adam step),
as ``torch.optim.adamw``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p *= 1 - lr * wd`` before the Adam step
    (weight_decay 0.01 by default)."""

    _decoupled = True

    def __init__(self, params: Iterable[Any], lr: float = 1e-3,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False,
                 foreach: bool | None = None, capturable: bool = False,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize,
                         foreach=foreach, capturable=capturable, differentiable=differentiable,
                         fused=fused, decoupled_weight_decay=True)
