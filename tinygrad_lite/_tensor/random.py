"""Random filling in place (``uniform_``, ``normal_``, ``bernoulli_`` ..., as nn.init and user
code fill parameters) and the random methods drawing from a tensor (``multinomial``,
``bernoulli``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions
from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of, is_float_dtype
from ..functions.generator import Generator, rng_of
from ..functions.torch_stream import draw_dtype

__all__ = ["METHODS", "PROPERTIES"]


def _fill_random(self: TensorBase, values: np.ndarray, op: str) -> TensorBase:
    if grad_state.enabled and self._requires_grad and self.grad_fn is None:
        raise RuntimeError(f"{op}: a leaf Variable that requires grad is being used in an "
                           "in-place operation; wrap it in tl.no_grad()")
    self._data[...] = values
    self._version_counter[0] += 1
    return self


def uniform_(self: TensorBase, a: float = 0.0, b: float = 1.0, *,
             generator: Generator | None = None) -> TensorBase:
    """Fill with uniform values in [a, b)."""
    return _fill_random(self, rng_of(generator).uniform_as(
        a, b, self._data.shape, draw_dtype(self._data.dtype)), "uniform_")


def normal_(self: TensorBase, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with normal values."""
    data = self._data
    return _fill_random(self, rng_of(generator).normal_as(
        mean, std, data.shape, draw_dtype(data.dtype), data.flags.c_contiguous), "normal_")


def bernoulli_(self: TensorBase, p: Any = 0.5, *,
               generator: Generator | None = None) -> TensorBase:
    """Fill with 0/1 draws that are 1 with probability ``p`` (a float or a tensor)."""
    probs = p._data if isinstance(p, TensorBase) else p
    draw = rng_of(generator).random(self._data.shape) < probs
    return _fill_random(self, draw, "bernoulli_")


def exponential_(self: TensorBase, lambd: float = 1.0, *,
                 generator: Generator | None = None) -> TensorBase:
    """Fill with exponential draws of rate ``lambd``."""
    return _fill_random(self, rng_of(generator).exponential_as(
        lambd, self._data.shape, draw_dtype(self._data.dtype)), "exponential_")


def geometric_(self: TensorBase, p: float, *, generator: Generator | None = None) -> TensorBase:
    """Fill with geometric draws (trials until the first success, from 1)."""
    return _fill_random(self, rng_of(generator).geometric(p, self._data.shape), "geometric_")


def log_normal_(self: TensorBase, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> TensorBase:
    """Fill with log-normal draws (``exp`` of normal(mean, std))."""
    return _fill_random(self, rng_of(generator).lognormal(mean, std, self._data.shape),
                        "log_normal_")


def cauchy_(self: TensorBase, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with Cauchy draws."""
    values = median + sigma * rng_of(generator).standard_cauchy(self._data.shape)
    return _fill_random(self, values, "cauchy_")


def random_(self: TensorBase, from_: int = 0, to: int | None = None, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with integers in ``[from_, to)``; ``random_(to)`` means ``[0, to)``; without
    bounds, ``[0, 2**mantissa]`` for floats or the dtype's range."""
    if to is None and from_ != 0:
        from_, to = 0, from_
    if to is None:
        dt = self._data.dtype
        to = 2 ** (finfo_of(dt).nmant + 1) if is_float_dtype(dt) else int(np.iinfo(dt).max) \
            if dt.kind in "iu" else 2
    values = rng_of(generator).integers(from_, to, self._data.shape)
    return _fill_random(self, values, "random_")


def multinomial(self: TensorBase, num_samples: int, replacement: bool = False, *,
                generator: Generator | None = None) -> TensorBase:
    """``tl.multinomial`` with this tensor as the weights."""
    return functions.multinomial(self, num_samples, replacement, generator=generator)


def bernoulli(self: TensorBase, p: float | None = None, *,
              generator: Generator | None = None) -> TensorBase:
    """``tl.bernoulli`` of this tensor's probabilities."""
    return functions.bernoulli(self, p, generator=generator)


METHODS: dict[str, Any] = {f.__name__: f for f in (
    uniform_, normal_, bernoulli_, exponential_, geometric_, log_normal_, cauchy_, random_,
    multinomial, bernoulli)}
PROPERTIES: dict[str, property] = {}
