"""The inputs of the optimizers' update rules, checked and prepared: hyperparameter validation
with PyTorch's messages (and PyTorch's comparisons: ``not 0.0 <= x`` rejects NaN too), and the
gradient to descend along."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = ["check_lr", "check_hyperparameters", "check_betas", "check_implementation_flags",
           "descent_gradient"]


def check_lr(lr: Any, allow_nan: bool = False) -> None:
    """PyTorch's ValueErrors for a learning rate: a Tensor of more than one element, or a
    negative one (NaN too, except with ``allow_nan``: SGD and LBFGS test ``lr < 0.0``)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if (lr < 0.0) if allow_nan else not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def check_hyperparameters(lr: Any, eps: float = 0.0, weight_decay: float = 0) -> None:
    """PyTorch's ValueErrors for a bad learning rate, epsilon or weight decay (NaN included)."""
    check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def check_betas(betas: Any) -> None:
    """PyTorch's ValueError for a beta outside [0, 1)."""
    for i, b in enumerate(betas):
        if not 0.0 <= b < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {b}")


def check_implementation_flags(foreach: bool | None = None, fused: bool | None = None,
                               differentiable: bool = False) -> None:
    """PyTorch's choice-of-kernel flags, which each optimizer keeps in its param groups as
    PyTorch does. Every update here is already one fused NumPy pass per parameter, so
    foreach/fused/capturable change nothing; a differentiable step (through the update
    itself) is not supported."""
    if foreach and fused:
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    if differentiable:
        raise NotImplementedError("differentiable=True is not supported: tinygrad_lite's "
                                  "optimizers update the parameters' arrays in place, outside "
                                  "the autograd graph")


def descent_gradient(grad: np.ndarray, group: dict) -> np.ndarray:
    """The gradient to descend along (negated with ``maximize``), as a fresh array."""
    return -grad if group.get("maximize") else grad.copy()
