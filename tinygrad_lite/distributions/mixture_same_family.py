"""``MixtureSameFamily``: a Categorical mixture over the last batch dim of one batched
component distribution, as ``torch.distributions.mixture_same_family``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


class MixtureSameFamily(Distribution):
    """A mixture: a Categorical over the last batch dim of ``component_distribution``."""

    arg_constraints: dict[str, Any] = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):  # (PyTorch's text, spaces too)
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mdbs = mixture_distribution.batch_shape
        cdbs = component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mdbs), reversed(cdbs)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mdbs}) is not "
                                 f"compatible with `component_distribution.batch_shape`"
                                 f"({cdbs})")
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(cdbs, component_distribution.event_shape, validate_args)

    @property
    def mixture_distribution(self) -> Categorical:
        """The Categorical over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The batched components."""
        return self._component_distribution

    @constraints.dependent_property
    def support(self) -> Any:
        """The components' support, checked against every component."""
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    def expand(self, batch_shape: Any) -> MixtureSameFamily:
        """The mixture and the components expanded over ``batch_shape``."""
        new = super().expand(batch_shape)
        assert isinstance(new, MixtureSameFamily)
        shape = tuple(batch_shape)
        new._component_distribution = self._component_distribution.expand(
            shape + (self._num_component,))
        mixture = self._mixture_distribution.expand(shape)
        assert isinstance(mixture, Categorical)
        new._mixture_distribution = mixture
        return new

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self._mixture_distribution},\n  "
                f"{self._component_distribution})")

    def _pad(self, x: TensorBase) -> TensorBase:
        # a slot for the component dim, just left of the event dims
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: TensorBase) -> TensorBase:
        dist_batch_ndims = len(self._batch_shape)
        cat_batch_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if cat_batch_ndims == 1 else dist_batch_ndims - cat_batch_ndims
        xs = tuple(x.shape)
        return x.reshape(*xs[:-1], *([1] * pad_ndims), xs[-1], *([1] * self._event_ndims))

    @property
    def mean(self) -> TensorBase:
        """The probability-weighted component means."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> TensorBase:
        """Law of total variance: mean of variances plus variance of means."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        comp = self._component_distribution
        mean_cond_var = (probs * comp.variance).sum(dim)
        var_cond_mean = (probs * (comp.mean - self._pad(self.mean)).pow(2.0)).sum(dim)
        return mean_cond_var + var_cond_mean

    def cdf(self, value: TensorBase) -> TensorBase:
        """The probability-weighted component CDFs."""
        cdf_x = self._component_distribution.cdf(self._pad(value))
        return (cdf_x * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """``logsumexp`` over components of ``log w_k + log p_k(x)``."""
        self._validate_sample(value)
        log_prob_x = self._component_distribution.log_prob(self._pad(value))
        log_mix = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix).logsumexp(-1)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """Component indices from the mixture, then the chosen components' samples."""
        sample_shape = tuple(sample_shape)
        mix = self._mixture_distribution.sample(sample_shape)
        comp = self._component_distribution.sample(sample_shape)
        es = tuple(self._event_shape)
        index = mix.reshape(*mix.shape, *([1] * (len(es) + 1)))
        index = index.expand(*sample_shape, *self._batch_shape, 1, *es) \
            if index.ndim else index
        return comp.gather(len(sample_shape) + len(self._batch_shape), index).squeeze(
            len(sample_shape) + len(self._batch_shape)).detach()
