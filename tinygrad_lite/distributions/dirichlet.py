"""``Dirichlet`` over the simplex of the last dim of ``concentration``, as
``torch.distributions.dirichlet``; samples reparameterised through Gamma draws."""

from __future__ import annotations

from typing import Any

from .. import functions as _fn
from .._core.grad_mode import grad_state
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from ..ops.standard_gamma import gamma_draws
from . import constraints
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet", "dirichlet_sample"]


def dirichlet_sample(concentration: TensorBase) -> TensorBase:
    """One Dirichlet draw per row of ``concentration``'s last dim, as PyTorch draws them."""
    gammas, sample = default_rng().dirichlet_as(concentration._data, concentration._data.dtype)
    if not (grad_state.enabled and concentration._requires_grad):
        return wrap(sample)
    g = gamma_draws(concentration, gammas)
    normalised = g / g.sum(-1, keepdim=True)
    # PyTorch's values (normalised in float64, then clamped) carrying the normalisation's
    # gradient: the difference is a rounding, held constant
    return normalised + (wrap(sample) - normalised).detach()


class Dirichlet(ExponentialFamily):
    """Dirichlet over the simplex of the last dim of ``concentration``."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: TensorBase, validate_args: bool | None = None) -> None:
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """Normalised Gamma draws: PyTorch's sampler and values; differentiable in the
        concentration through the Gamma draws' reparameterisation."""
        shape = self._extended_shape(sample_shape)
        return dirichlet_sample(self.concentration.expand(*shape))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``sum (a_i - 1) log x_i + lgamma(sum a) - sum lgamma(a_i)``, the products ``xlogy``
        (0 where a_i = 1, even at x_i = 0), as PyTorch."""
        self._validate_sample(value)
        a = self.concentration
        return (_fn.xlogy(a - 1, value).sum(-1) + _fn.lgamma(a.sum(-1))
                - _fn.lgamma(a).sum(-1))

    def entropy(self) -> TensorBase:
        """The Dirichlet entropy."""
        a = self.concentration
        a0 = a.sum(-1)
        k = a.shape[-1]
        return (_fn.lgamma(a).sum(-1) - _fn.lgamma(a0) + (a0 - k) * _fn.digamma(a0)
                - ((a - 1) * _fn.digamma(a)).sum(-1))

    @property
    def mean(self) -> TensorBase:
        """``a / sum a``."""
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> TensorBase:
        """``(a - 1)+ / sum (a - 1)+``; where every ``a_i < 1`` (the density peaks at the
        corners), PyTorch's choice: the one-hot vector at the first component."""
        shifted = (self.concentration - 1).clamp(min=0.0)
        mode = shifted / shifted.sum(-1, keepdim=True)
        at_corner = (self.concentration < 1).all(-1, keepdim=True)
        if not at_corner.any():
            return mode
        corner = _fn.zeros_like(mode)
        corner[..., 0] = 1
        return _fn.where(at_corner, corner, mode)

    @property
    def variance(self) -> TensorBase:
        """The per-component variance."""
        a0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (a0 - self.concentration) / (a0 ** 2 * (a0 + 1))
