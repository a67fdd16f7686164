"""``tl.amp.custom_fwd`` / ``custom_bwd``: decorators for the ``forward`` and ``backward`` of a
custom ``tl.autograd.Function`` under autocast, as PyTorch's: the backward runs in the autocast
state the forward ran in, and ``cast_inputs`` runs the forward on inputs cast to one dtype with
autocast off."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from .._core.tensor_base import TensorBase
from .autocast_mode import autocast, get_autocast_dtype, is_autocast_enabled

__all__ = ["custom_fwd", "custom_bwd", "is_autocast_available"]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast works for ``device_type``: only the CPU here."""
    return device_type == "cpu"


def _cast(value: Any, dtype: Any) -> Any:
    """Floating tensors (also inside lists, tuples and dicts) cast to ``dtype``."""
    if isinstance(value, TensorBase):
        return value.to(dtype) if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_cast(v, dtype) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, dtype) for k, v in value.items()}
    return value


def custom_fwd(fwd: Callable | None = None, *, device_type: str,
               cast_inputs: Any = None) -> Any:
    """Decorate a Function's ``forward``: remember the autocast state for ``custom_bwd``; with
    ``cast_inputs``, inside an autocast region, run on inputs cast to it with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        ctx._dtype = get_autocast_dtype(device_type)
        enabled = is_autocast_enabled(device_type)
        if cast_inputs is None or not enabled:
            ctx._fwd_used_autocast = enabled and cast_inputs is None
            return fwd(ctx, *args, **kwargs)
        ctx._fwd_used_autocast = False
        with autocast(device_type=device_type, enabled=False):
            return fwd(ctx, *_cast(args, cast_inputs), **_cast(kwargs, cast_inputs))

    return forward


def custom_bwd(bwd: Callable | None = None, *, device_type: str) -> Any:
    """Decorate a Function's ``backward``: run it in the autocast state its forward ran in."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def backward(ctx: Any, *grads: Any) -> Any:
        with autocast(device_type=device_type, enabled=getattr(ctx, "_fwd_used_autocast", False),
                      dtype=getattr(ctx, "_dtype", None)):
            return bwd(ctx, *grads)

    return backward
