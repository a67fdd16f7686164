"""``ExponentialFamily``: the base class of distributions with densities
``p(x; theta) = exp(<t(x), theta> - F(theta) + k(x))``, as ``torch.distributions``. A subclass
gives its natural parameters ``theta``, the log-normalizer ``F`` and the mean carrier measure
``E[k(x)]``; the entropy then follows from the Bregman divergence of ``F``:
``H = F(theta) - <theta, grad F(theta)> - E[k(x)]``, the gradient taken by autograd."""

from __future__ import annotations

from typing import Any

from .._core.backward import grad
from .._core.grad_mode import enable_grad
from .._core.tensor_base import TensorBase
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """A distribution of the exponential family (see the module docstring); subclasses define
    ``_natural_params``, ``_log_normalizer`` and ``_mean_carrier_measure``."""

    @property
    def _natural_params(self) -> tuple:
        """The natural parameters ``theta`` (a tuple of tensors)."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Any) -> TensorBase:
        """The log-normalizer ``F(theta)``, a function of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> Any:
        """``E[k(x)]``, the expected carrier measure."""
        raise NotImplementedError

    def entropy(self) -> TensorBase:
        """``F(theta) - <theta, grad F(theta)> - E[k(x)]`` (differentiable: the gradient of F
        is taken with ``create_graph``)."""
        result: Any = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = grad(lg_normal.sum(), nparams, create_graph=True)
            result = result + lg_normal
            for theta, g in zip(nparams, gradients):
                result = result - (theta * g).reshape(*self._batch_shape, -1).sum(-1)
        return result
