"""The random generators samplers and ``random_split`` draw from.

A ``generator`` argument is a ``tl.Generator`` (kept as given, as PyTorch keeps it: its stream is
looked up at every draw, so a later ``generator.manual_seed`` takes effect), a
``numpy.random.Generator``, an int seed (a new generator seeded with it), or None: the global
generator that ``tinygrad_lite.manual_seed`` reseeds, also looked up at every draw.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ....functions import creation as _creation
from ....functions.generator import Generator
from ....functions.torch_stream import TorchStream

__all__ = ["as_generator", "resolve", "draw_seed"]

AnyGenerator = Generator | np.random.Generator


def as_generator(generator: Any) -> AnyGenerator | None:
    """``generator`` as a tl.Generator or NumPy Generator (an int seeds a new one); None stays
    None."""
    if generator is None or isinstance(generator, (Generator, np.random.Generator)):
        return generator
    if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
        return TorchStream(int(generator))
    raise TypeError(f"generator should be a tl.Generator, a numpy.random.Generator, an int seed "
                    f"or None, but "
                    f"got {type(generator).__name__}")


def resolve(generator: AnyGenerator | None) -> np.random.Generator:
    """The generator to draw from now: ``generator``'s stream, or the global one when it is
    None."""
    if generator is None:
        return _creation.default_rng()
    if isinstance(generator, Generator):
        return generator.numpy
    return generator


def draw_seed(generator: AnyGenerator | None) -> int:
    """A seed drawn as PyTorch's loaders and samplers draw one:
    ``torch.empty((), dtype=torch.int64).random_(generator=generator)``."""
    return int(resolve(generator).integers(0, 2**63))
