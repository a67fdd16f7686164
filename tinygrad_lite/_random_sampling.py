"""PyTorch's random sampling names at the top level that ``tl.*``'s functions leave out:
``tl.default_generator``, ``tl.binomial``, and the samplers the distributions are built on
(``tl._standard_gamma``, ``tl._sample_dirichlet``), which programs also call."""

from __future__ import annotations

from typing import cast

from .dtypes import is_float_dtype
from .functions.generator import Generator, default_generator, rng_of
from .ops.standard_gamma import standard_gamma
from .tensor import Tensor

__all__ = ["default_generator", "binomial", "_standard_gamma", "_sample_dirichlet"]


def binomial(count: Tensor, prob: Tensor, generator: Generator | None = None) -> Tensor:
    """Draws of Binomial(count, prob) per element (float tensors, in ``count``'s dtype), as
    PyTorch draws them."""
    if not is_float_dtype(count._data.dtype):
        raise ValueError(f"binomial only supports floating-point dtypes for count, got: "
                         f"{count.dtype}")
    draws = rng_of(generator).binomial_as(count._data, prob._data, count._data.dtype)
    return Tensor(draws, dtype=count.dtype)


def _standard_gamma(input: Tensor, generator: Generator | None = None) -> Tensor:
    """Gamma(input, 1) draws per element, as PyTorch draws them; differentiable in ``input``
    (the implicit reparameterisation gradient)."""
    if not is_float_dtype(input._data.dtype):
        raise RuntimeError(f"_standard_gamma: expected a floating point tensor, got "
                           f"{input.dtype}")
    return cast(Tensor, standard_gamma(input, rng_of(generator)))


def _sample_dirichlet(input: Tensor, generator: Generator | None = None) -> Tensor:
    """One Dirichlet draw per row of ``input``'s last dim (the concentrations), as PyTorch
    draws it; not differentiable (``Dirichlet.rsample`` is)."""
    if not is_float_dtype(input._data.dtype) or input.ndim < 1:
        raise RuntimeError(f"_sample_dirichlet: expected a floating point tensor with at least "
                           f"one dim, got {input.dtype} of shape {tuple(input.shape)}")
    _, sample = rng_of(generator).dirichlet_as(input._data, input._data.dtype)
    return Tensor(sample, dtype=input.dtype)
