"""The probs-or-logits parameterisation of the discrete distributions: exactly one of the two
given, and the epsilon probabilities are clamped by before their logits are taken."""

from __future__ import annotations

from typing import Any

from .distribution import broadcast_all

__all__ = ["PROBS_EPS", "probs_or_logits"]


PROBS_EPS = 1e-12


def probs_or_logits(probs: Any, logits: Any, binary: bool) -> tuple:
    """``(probs, None)`` or ``(None, logits)``, broadcast as tensors; PyTorch's ValueError
    unless exactly one is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")
    if probs is not None:
        (p,) = broadcast_all(probs)
        return p, None
    (lg,) = broadcast_all(logits)
    return None, lg
