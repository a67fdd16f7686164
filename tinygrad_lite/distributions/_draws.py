"""Random draws for samples: NumPy arrays from the package's generator, in a parameter's dtype,
wrapped as tensors (standard noise that ``rsample`` then shifts and scales)."""

from __future__ import annotations

from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from ..functions.torch_stream import draw_dtype
from .utils import clamp_probs

__all__ = ["open_uniform", "standard_normal", "uniform", "uniform_between", "exponential",
           "standard_cauchy"]


def open_uniform(shape: tuple, like: TensorBase) -> TensorBase:
    """Uniform draws in ``like``'s dtype, clamped into the open interval (0, 1):
    ``clamp_probs(torch.rand(shape, dtype=like.dtype))``."""
    return clamp_probs(uniform(shape, like))


# PyTorch's samplers draw with the tensor methods below, in the parameter's dtype; these give
# the same numbers from the same stream.
def standard_normal(shape: tuple, like: TensorBase) -> TensorBase:
    """``torch.empty(shape, dtype=like.dtype).normal_()``."""
    dt = like._data.dtype
    return wrap(default_rng().normal_as(0.0, 1.0, shape, draw_dtype(dt)).astype(dt, copy=False))


def uniform(shape: tuple, like: TensorBase) -> TensorBase:
    """``torch.rand(shape, dtype=like.dtype)``."""
    return uniform_between(0.0, 1.0, shape, like)


def uniform_between(low: float, high: float, shape: tuple, like: TensorBase) -> TensorBase:
    """``like.new(shape).uniform_(low, high)``."""
    dt = like._data.dtype
    return wrap(default_rng().uniform_as(low, high, shape, draw_dtype(dt)).astype(dt, copy=False))


def standard_cauchy(shape: tuple, like: TensorBase) -> TensorBase:
    """``like.new(shape).cauchy_()``."""
    return wrap(default_rng().cauchy_as(shape, like._data.dtype))


def exponential(shape: tuple, like: TensorBase) -> TensorBase:
    """``like.new(shape).exponential_()``."""
    return wrap(default_rng().exponential_as(1.0, shape, like._data.dtype))
