"""The random generators samplers and ``random_split`` draw from.

A ``generator`` argument is a ``numpy.random.Generator``, an int seed (a new generator seeded
with it), or None: the global generator that ``tinygrad_lite.manual_seed`` reseeds, looked up at
every draw so that a later ``manual_seed`` takes effect.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ....functions import creation as _creation
from ....functions.generator import Generator
from ....functions.torch_stream import TorchStream

__all__ = ["as_generator", "resolve", "draw_seed"]


def as_generator(generator: Any) -> np.random.Generator | None:
    """``generator`` as a NumPy Generator (an int seeds a new one); None stays None."""
    if generator is None or isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, Generator):  # a tl.Generator: draw from its stream
        return generator.numpy
    if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
        return TorchStream(int(generator))
    raise TypeError(f"generator should be a tl.Generator, a numpy.random.Generator, an int seed "
                    f"or None, but "
                    f"got {type(generator).__name__}")


def resolve(generator: np.random.Generator | None) -> np.random.Generator:
    """The generator to draw from now: ``generator``, or the global one when it is None."""
    return _creation.default_rng() if generator is None else generator


def draw_seed(generator: np.random.Generator | None) -> int:
    """A seed drawn as PyTorch's loaders and samplers draw one:
    ``torch.empty((), dtype=torch.int64).random_(generator=generator)``."""
    return int(resolve(generator).integers(0, 2**63))
