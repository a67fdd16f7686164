"""``VonMises``: the circular von Mises distribution, sampled by Best and Fisher's rejection
sampler, as ``torch.distributions.von_mises`` (with the modified Bessel functions it needs)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import functions as _fn
from .._core.tensor_base import TensorBase, wrap
from ..functions.creation import default_rng
from . import constraints
from .distribution import Distribution, broadcast_all

__all__ = ["VonMises"]


_I0_SMALL = [1.0, 3.5156229, 3.0899424, 1.2067492, 0.2659732, 0.360768e-1, 0.45813e-2]
_I0_LARGE = [0.39894228, 0.1328592e-1, 0.225319e-2, -0.157565e-2, 0.916281e-2,
             -0.2057706e-1, 0.2635537e-1, -0.1647633e-1, 0.392377e-2]
_I1_SMALL = [0.5, 0.87890594, 0.51498869, 0.15084934, 0.2658733e-1, 0.301532e-2,
             0.32411e-3]
_I1_LARGE = [0.39894228, -0.3988024e-1, -0.362018e-2, 0.163801e-2, -0.1031555e-1,
             0.2282967e-1, -0.2895312e-1, 0.1787654e-1, -0.420059e-2]


def _eval_poly(y: TensorBase, coef: list) -> TensorBase:
    result: Any = coef[-1]
    for c in reversed(coef[:-1]):
        result = c + y * result
    return result


def log_modified_bessel(x: TensorBase, order: int = 0) -> TensorBase:
    """``log I_order(x)`` for x > 0, order 0 or 1 (the polynomial fits PyTorch uses)."""
    if order not in (0, 1):
        raise ValueError(f"order must be 0 or 1, got {order}")
    y = (x / 3.75).pow(2)
    small = _eval_poly(y, _I0_SMALL if order == 0 else _I1_SMALL)
    if order == 1:
        small = x.abs() * small
    large = x - 0.5 * x.log() + _eval_poly(3.75 / x, _I0_LARGE if order == 0 else
                                           _I1_LARGE).log()
    return _fn.where(x < 3.75, small.log(), large)


class VonMises(Distribution):
    """The circular von Mises distribution (angles modulo 2 pi) with ``loc`` and
    ``concentration``; sampled by Best and Fisher's rejection sampler (no rsample)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, concentration: Any, validate_args: bool | None = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, validate_args=validate_args)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``kappa cos(x - loc) - log(2 pi I0(kappa))``."""
        self._validate_sample(value)
        return (self.concentration * (value - self.loc).cos() - math.log(2 * math.pi)
                - log_modified_bessel(self.concentration, 0))

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Rejection samples in float64 (float32 can hang for tiny concentrations)."""
        shape = self._extended_shape(sample_shape)
        kappa = np.broadcast_to(self.concentration._data.astype(np.float64), shape)
        loc = np.broadcast_to(self.loc._data.astype(np.float64), shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = 1 + np.sqrt(1 + 4 * kappa ** 2)
            rho = (tau - np.sqrt(2 * tau)) / (2 * kappa)
            r = np.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho ** 2) / (2 * rho))
        x, done, rng = np.zeros(shape), np.zeros(shape, bool), default_rng()
        while not done.all():
            u1, u2, u3 = rng.random((3, *shape))
            z = np.cos(math.pi * u1)
            f = (1 + r * z) / (r + z)
            c = kappa * (r - f)
            with np.errstate(divide="ignore", invalid="ignore"):
                accept = ((c * (2 - c) - u2) > 0) | (np.log(c / u2) + 1 - c >= 0)
            accept &= ~done
            x = np.where(accept, np.sign(u3 - 0.5) * np.arccos(np.clip(f, -1, 1)), x)
            done |= accept
        out = (x + math.pi + loc) % (2 * math.pi) - math.pi
        return wrap(out.astype(self.loc._data.dtype))

    @property
    def mean(self) -> TensorBase:
        """The circular mean, ``loc``."""
        return self.loc

    @property
    def mode(self) -> TensorBase:
        """``loc``."""
        return self.loc

    @property
    def variance(self) -> TensorBase:
        """The circular variance ``1 - I1(kappa) / I0(kappa)``."""
        k = self.concentration
        return 1 - (log_modified_bessel(k, 1) - log_modified_bessel(k, 0)).exp()
