"""The inputs of the single-tensor update rules (Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD),
checked and prepared: hyperparameter validation with PyTorch's messages, and the gradient to
descend along."""

from __future__ import annotations

import numpy as np

__all__ = ["check_hyperparameters", "descent_gradient"]


def check_hyperparameters(lr: float, eps: float = 0.0, weight_decay: float = 0) -> None:
    """PyTorch's ValueErrors for a negative learning rate, epsilon or weight decay."""
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps < 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def descent_gradient(grad: np.ndarray, group: dict) -> np.ndarray:
    """The gradient to descend along (negated with ``maximize``), as a fresh array."""
    return -grad if group.get("maximize") else grad.copy()
