"""Random filling in place (``uniform_``, ``normal_``, ``bernoulli_`` ..., as nn.init and user
code fill parameters) and the random methods drawing from a tensor (``multinomial``,
``bernoulli``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import functions
from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase
from ..dtypes import cpp_type_name, finfo_of, is_float_dtype, torch_dtype_name
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


def _continuous_only(self: TensorBase, distribution: str | None, kernel: str) -> None:
    """PyTorch's refusal to fill an integer or bool tensor with a continuous distribution:
    a RuntimeError naming the ``distribution`` for some, a kernel's NotImplementedError for
    the others."""
    dt = self._data.dtype
    if is_float_dtype(dt):
        return
    if distribution is None:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{torch_dtype_name(dt)}\'')
    name = cpp_type_name(dt) if distribution == "Cauchy" else torch_dtype_name(dt)
    raise RuntimeError(f"{distribution} distribution is a continuous probability distribution. "
                       f"dtype must be a floating point but you specified {name}")


def uniform_(self: TensorBase, a: float = 0.0, b: float = 1.0, *,
             generator: Generator | None = None) -> TensorBase:
    """Fill with uniform values in [a, b)."""
    _continuous_only(self, None, "check_uniform_bounds")
    return _fill_random(self, rng_of(generator).uniform_as(
        a, b, self._data.shape, draw_dtype(self._data.dtype)), "uniform_")


def normal_(self: TensorBase, mean: float = 0.0, std: float = 1.0, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with normal values."""
    _continuous_only(self, None, "normal_kernel_cpu")
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
    _continuous_only(self, "Exponential", "")
    return _fill_random(self, rng_of(generator).exponential_as(
        lambd, self._data.shape, draw_dtype(self._data.dtype)), "exponential_")


def geometric_(self: TensorBase, p: float, *, generator: Generator | None = None) -> TensorBase:
    """Fill with geometric draws (trials until the first success, from 1)."""
    if self._data.dtype == np.bool_:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    return _fill_random(self, rng_of(generator).geometric_as(
        p, self._data.shape, draw_dtype(self._data.dtype)), "geometric_")


def log_normal_(self: TensorBase, mean: float = 1.0, std: float = 2.0, *,
                generator: Generator | None = None) -> TensorBase:
    """Fill with log-normal draws (``exp`` of normal(mean, std))."""
    _continuous_only(self, None, "log_normal_cpu")
    return _fill_random(self, rng_of(generator).log_normal_as(
        mean, std, self._data.shape, draw_dtype(self._data.dtype)), "log_normal_")


def cauchy_(self: TensorBase, median: float = 0.0, sigma: float = 1.0, *,
            generator: Generator | None = None) -> TensorBase:
    """Fill with Cauchy draws."""
    _continuous_only(self, "Cauchy", "")
    return _fill_random(self, rng_of(generator).cauchy_scaled_as(
        median, sigma, self._data.shape, draw_dtype(self._data.dtype)), "cauchy_")


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
