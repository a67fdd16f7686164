"""``tl.amp.GradScaler``: dynamic loss scaling for low-precision training (PyTorch's semantics).

Gradients of small losses underflow in float16 (its smallest subnormal is 6e-8). The scaler
multiplies the loss by a large factor before ``backward`` so the gradients stay representable,
divides them back before the optimizer uses them (``unscale_``, also callable by hand so that
gradient clipping sees true values), skips the step when any gradient is inf or NaN (the scale
was too large), and adapts the scale: halve it after an overflow, double it after
``growth_interval`` clean steps. The documented sequence works unchanged::

    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)          # optional, e.g. before clip_grad_norm_
    scaler.step(optimizer)
    scaler.update()
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import Enum
from typing import Any

import numpy as np

from .._core.grad_mode import no_grad
from .._core.warnings import warn
from ..tensor import Tensor

__all__ = ["GradScaler", "OptState"]


class OptState(Enum):
    """Where an optimizer is in the scale-unscale-step cycle since the last ``update``."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


class GradScaler:
    """Scale the loss, unscale the gradients, skip steps with inf/NaN, adapt the scale.

    ``device`` defaults to "cuda" as in PyTorch, where a machine without a GPU gets a warning
    and a disabled scaler (its calls pass through); ``GradScaler("cpu")`` scales."""

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if not 0.0 < backoff_factor < 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._device = device
        self._enabled = bool(enabled)
        if device != "cpu" and self._enabled:  # PyTorch on a machine without that device
            warn(f"torch.{device}.amp.GradScaler is enabled, but {device.upper()} is "
                 "not available.  Disabling.")
            self._enabled = False
        self._scale = float(init_scale)
        self._growth_factor = float(growth_factor)
        self._backoff_factor = float(backoff_factor)
        self._growth_interval = int(growth_interval)
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    # -- the four calls of a training step ------------------------------------------------------
    def scale(self, outputs: Any) -> Any:
        """``outputs`` (a tensor, or nested lists/tuples of tensors) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, Iterable):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer: Any) -> None:
        """Divide ``optimizer``'s gradients by the scale, in place, and note inf/NaN."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = np.float32(1.0 / np.float64(self._scale))
        found_inf = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    grad = p.grad._data
                    if grad.dtype == np.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    with np.errstate(all="ignore"):
                        grad *= inv_scale.astype(grad.dtype)
                        finite = bool(np.isfinite(grad).all())
                    found_inf |= not finite
        state["found_inf"] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """``optimizer.step(*args, **kwargs)`` on unscaled gradients, unless some gradient is
        inf/NaN: then the step is skipped (returns None) and ``update`` lowers the scale."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        state["stage"] = OptState.STEPPED
        if state["found_inf"]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Adapt the scale (or set it to ``new_scale``) and start a new cycle."""
        if not self._enabled:
            return
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                if new_scale.numel() != 1:
                    raise ValueError("new_scale should be a single-element tensor")
                new_scale = new_scale.item()
            self._scale = float(new_scale)
        else:
            stepped = [s for s in self._per_optimizer.values() if s["stage"] is not OptState.READY]
            if not stepped:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in stepped):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer = {}

    # -- inspection and state -------------------------------------------------------------------
    def _state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer),
                                              {"stage": OptState.READY, "found_inf": False})

    def get_scale(self) -> float:
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        """Factor the scale grows by after ``growth_interval`` clean steps."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Set the growth factor."""
        self._growth_factor = float(new_factor)

    def get_backoff_factor(self) -> float:
        """Factor the scale shrinks by after a step with inf/NaN gradients."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Set the backoff factor."""
        self._backoff_factor = float(new_factor)

    def get_growth_interval(self) -> int:
        """Clean steps between two growths of the scale."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Set the growth interval."""
        self._growth_interval = int(new_interval)

    def is_enabled(self) -> bool:
        """Whether scaling is on."""
        return self._enabled

    def state_dict(self) -> dict[str, Any]:
        """The scale and its schedule (empty when disabled), as PyTorch stores them."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore what ``state_dict`` returned."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = float(state_dict["growth_factor"])
        self._backoff_factor = float(state_dict["backoff_factor"])
        self._growth_interval = int(state_dict["growth_interval"])
        self._growth_tracker = int(state_dict["_growth_tracker"])


class CudaGradScaler(GradScaler):
    """``torch.cuda.amp.GradScaler``: the deprecated spelling; warns as PyTorch does and, with
    no GPU here, is disabled (its calls pass through)."""

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000,
                 enabled: bool = True) -> None:
        warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
             "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning)
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)
