"""The probs-or-logits parameterisation of the discrete distributions: exactly one of the two
given (the modules take logits of probabilities with ``utils.probs_to_logits``, which clamps
them to ``[eps, 1 - eps]`` of their dtype, as PyTorch)."""

from __future__ import annotations

from typing import Any

from .distribution import broadcast_all

__all__ = ["probs_or_logits"]


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
