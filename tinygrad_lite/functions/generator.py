"""Random number generators: ``tl.Generator`` and the default one behind every random function.

A ``Generator`` wraps a NumPy ``Generator`` on PyTorch's own stream (``TorchStream``: the
Mersenne Twister PyTorch's CPU generator runs, with PyTorch's uniform, normal, integer and
permutation kernels, so ``tl.manual_seed(0); tl.rand(3)`` gives ``torch.rand``'s numbers) with
PyTorch's interface: ``manual_seed``, ``seed``, ``initial_seed``, ``get_state``/``set_state``
(the state as a uint8 tensor, as in PyTorch, so it can be saved and restored).
``tl.manual_seed(s)`` seeds the default generator; ``generator=`` on a random function draws
from another one instead.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import numpy as np

from .._core.device import check_device
from .._core.tensor_base import TensorBase, wrap
from .torch_stream import TorchStream

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state"]


class Generator:
    """A source of random numbers, PyTorch style; ``device`` may only be the CPU."""

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device, "Generator")
        self.device = "cpu"
        self._seed = 67280421310721  # PyTorch's default seed of a new generator
        self._rng = TorchStream(self._seed)

    def manual_seed(self, seed: int) -> Generator:
        """Reset to the stream of ``seed``; returns the generator."""
        seed = int(seed)
        self._seed = seed
        self._rng = TorchStream(seed & 0xFFFFFFFFFFFFFFFF)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        new = secrets.randbits(63)
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self) -> TensorBase:
        """The full state as a uint8 tensor (restore it with ``set_state``)."""
        state, next_normal = self._rng.snapshot()
        state["state"]["key"] = np.asarray(state["state"]["key"]).tolist()  # (JSON)
        text = json.dumps({"seed": self._seed, "state": state, "next_normal": next_normal})
        return wrap(np.frombuffer(text.encode(), np.uint8).copy())

    def set_state(self, new_state: TensorBase) -> Generator:
        """Restore a state from ``get_state``."""
        data = new_state._data if isinstance(new_state, TensorBase) else np.asarray(new_state)
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError("set_state: expected a 1-D uint8 tensor from get_state(), got "
                            f"{data.dtype} of shape {data.shape}")
        try:
            saved = json.loads(data.tobytes().decode())
            state = saved["state"]
            if isinstance(state.get("state"), dict) and "key" in state["state"]:
                state["state"]["key"] = np.asarray(state["state"]["key"], np.uint32)
            self._rng.restore((state, saved.get("next_normal")))
        except (ValueError, KeyError, TypeError) as err:
            raise RuntimeError(f"set_state: not a state from get_state() ({err})") from None
        self._seed = int(saved["seed"])
        return self

    @property
    def numpy(self) -> TorchStream:
        """The NumPy generator the random functions draw from."""
        return self._rng

    def __repr__(self) -> str:
        return f"<tinygrad_lite.Generator seed={self._seed}>"


default_generator = Generator()


def rng_of(generator: Generator | None) -> TorchStream:
    """The NumPy generator to draw from: ``generator``'s, or the default one's."""
    if generator is None:
        return default_generator._rng
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a tl.Generator, got {type(generator).__name__}")
    return generator._rng


def manual_seed(seed: int) -> Generator:
    """Seed the default generator, making every random function reproducible."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state() -> TensorBase:
    """The default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state: TensorBase) -> None:
    """Restore the default generator's state from ``get_rng_state``."""
    default_generator.set_state(new_state)
