"""The policies ``fully_shard`` takes, PyTorch's names: ``MixedPrecisionPolicy`` and
``OffloadPolicy`` / ``CPUOffloadPolicy``. Parameters already live in host memory here, so either
offload policy is accepted and changes nothing; the gathered parameters and reduced gradients
keep the parameters' dtype, so a ``MixedPrecisionPolicy`` that casts raises NotImplementedError
in ``fully_shard``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["MixedPrecisionPolicy", "OffloadPolicy", "CPUOffloadPolicy"]


@dataclass(frozen=True)
class MixedPrecisionPolicy:
    """Dtypes of the gathered parameters (``param_dtype``), of the gradient reduction
    (``reduce_dtype``) and of the module's outputs (``output_dtype``); None keeps the
    parameters' own dtype."""

    param_dtype: Any = None
    reduce_dtype: Any = None
    output_dtype: Any = None
    cast_forward_inputs: bool = True


@dataclass
class OffloadPolicy:
    """No offloading (the default)."""


@dataclass
class CPUOffloadPolicy(OffloadPolicy):
    """Keep sharded parameters, gradients and optimizer state in host memory: where they
    already are here."""

    pin_memory: bool = True
