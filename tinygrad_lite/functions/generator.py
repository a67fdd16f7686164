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

import secrets
from typing import Any

import numpy as np

from .._core.device import CPU, check_device
from .._core.tensor_base import TensorBase, wrap
from .torch_stream import TorchStream

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state"]


# PyTorch's CPU generator state as get_state() lays it out (CPUGeneratorImplState: the legacy
# TH generator's fields, then the float normal sample it keeps), little-endian, with its padding
_TORCH_STATE = np.dtype([
    ("the_initial_seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
    ("state", "<u8", (624,)), ("normal_x", "<f8"), ("normal_y", "<f8"), ("normal_rho", "<f8"),
    ("normal_is_valid", "<i4"), ("padding", "V4"), ("next_float_normal_sample", "<f4"),
    ("is_next_float_normal_sample_valid", "u1"), ("tail_padding", "V3")])


def _seeded_words(seed: int) -> np.ndarray:
    """The twister's 624 words right after seeding with ``seed`` (before its first twist)."""
    legacy = np.random.RandomState(int(seed) & 0xFFFFFFFF)
    return np.asarray(legacy.get_state(legacy=False)["state"]["key"], np.uint32)


class Generator:
    """A source of random numbers, PyTorch style; ``device`` may only be the CPU."""

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device, "Generator")
        self.device = CPU
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
        """The full state as a uint8 tensor of PyTorch's CPU layout (5,056 bytes: the seed, the
        twister's position and words, the kept normal value), so a state moves between
        ``torch.Generator`` and ``tl.Generator`` both ways; restore it with ``set_state``."""
        (bits, next_normal) = self._rng.snapshot()
        key = np.asarray(bits["state"]["key"], np.uint32)
        pos = int(bits["state"]["pos"])
        state = np.zeros((), _TORCH_STATE)
        state["the_initial_seed"] = self._seed & 0xFFFFFFFFFFFFFFFF
        state["seeded"] = 1
        state["state"] = key
        # NumPy's twister hands out word ``pos`` next and twists when pos reaches 624;
        # PyTorch's counts down ``left`` (twisting when it reaches 0) and reads word ``next``
        state["left"] = 625 - pos if pos < 624 else 1
        state["next"] = 0 if pos == 624 and np.array_equal(key, _seeded_words(self._seed)) \
            else pos
        if next_normal is not None:
            state["normal_is_valid"] = 1
            state["normal_y"] = next_normal
        return wrap(np.frombuffer(state.tobytes(), np.uint8).copy())

    def set_state(self, new_state: TensorBase) -> Generator:
        """Restore a state from ``get_state`` (this generator's or ``torch.Generator``'s)."""
        data = new_state._data if isinstance(new_state, TensorBase) else np.asarray(new_state)
        if data.dtype != np.uint8 or data.ndim != 1:
            raise TypeError("set_state: expected a 1-D uint8 tensor from get_state(), got "
                            f"{data.dtype} of shape {data.shape}")
        if data.size != _TORCH_STATE.itemsize:
            raise RuntimeError(f"set_state: expected a state of {_TORCH_STATE.itemsize} bytes "
                               f"(from Generator.get_state()), got {data.size}")
        state = np.frombuffer(data.tobytes(), _TORCH_STATE)[0]
        left, nxt = int(state["left"]), int(state["next"])
        if not 1 <= left <= 624 or not 0 <= nxt <= 624:
            raise RuntimeError(f"set_state: not a generator state (position left={left}, "
                               f"next={nxt})")
        pos = 624 if left == 1 else 625 - left
        bits = {"bit_generator": "MT19937",
                "state": {"key": np.asarray(state["state"], np.uint64).astype(np.uint32),
                          "pos": pos}}
        next_normal = float(state["normal_y"]) if int(state["normal_is_valid"]) else None
        self._rng.restore((bits, next_normal))
        self._seed = int(state["the_initial_seed"])
        return self

    @property
    def numpy(self) -> TorchStream:
        """The NumPy generator the random functions draw from."""
        return self._rng

    def __repr__(self) -> str:
        return f"<tinygrad_lite.Generator seed={self._seed}>"


default_generator = Generator()

# The randomness mode of the ``tl.func.vmap`` running now (None outside one). In "error" mode
# every draw raises, as PyTorch's vmap refuses random operations unless told how to batch them.
vmap_randomness: list[str | None] = [None]


def refuse_draw_in_vmap() -> None:
    """Raise PyTorch's error for a random operation inside ``vmap(randomness='error')``."""
    raise RuntimeError("vmap: called random operation while in randomness error mode. Please "
                       "either use the 'same' or 'different' randomness flags on vmap or "
                       "perform the randomness operation out of vmap")


def rng_of(generator: Generator | None) -> TorchStream:
    """The NumPy generator to draw from: ``generator``'s, or the default one's."""
    if vmap_randomness[0] == "error":
        refuse_draw_in_vmap()
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
