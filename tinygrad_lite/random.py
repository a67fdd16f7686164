"""``tl.random``: the default generator's seed and state, and ``fork_rng`` to run code without
disturbing the random stream around it (PyTorch's ``torch.random``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from .functions.generator import (
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from .utils.data import get_worker_info

__all__ = ["fork_rng", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "thread_safe_generator"]


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str = "cuda") -> Iterator[None]:
    """Inside, draw random numbers freely; afterwards the default generator is back where it
    was, as if nothing had been drawn."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> Any:
    """The running DataLoader thread worker's own generator, else ``None`` (use the default
    generator): ``None`` in the main process and in process workers, i.e. always here, since
    tl's DataLoader workers are processes (each reseeded, as PyTorch's)."""
    info = get_worker_info()
    if info is not None and getattr(info, "worker_method", None) == "thread":
        rng = getattr(info, "rng", None)
        if rng is not None:
            return rng.torch_generator
    return None
