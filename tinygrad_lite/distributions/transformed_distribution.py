"""``TransformedDistribution``: a base distribution pushed through transforms, its density by
the change of variables, as ``torch.distributions.transformed_distribution``."""

from __future__ import annotations

from typing import Any

from .._core.grad_mode import no_grad
from .._core.tensor_base import TensorBase
from . import constraints
from .distribution import Distribution
from .independent import Independent
from .transforms.base import ComposeTransform, Transform, _sum_rightmost

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """``base_distribution`` pushed through ``transforms`` (one Transform or a list)."""

    arg_constraints: dict[str, Any] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any,
                 validate_args: bool | None = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = base_distribution.batch_shape + base_distribution.event_shape
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(f"base_distribution needs to have shape with size at least "
                             f"{transform.domain.event_dim}, but got {base_shape}.")
        forward_shape = transform.forward_shape(base_shape)
        expanded_base_shape = transform.inverse_shape(forward_shape)
        if base_shape != expanded_base_shape:
            # the transforms' parameters broadcast the batch: the base must follow
            cut = len(expanded_base_shape) - base_event_dim
            base_distribution = base_distribution.expand(expanded_base_shape[:cut])
        reinterpreted = transform.domain.event_dim - base_event_dim
        if reinterpreted > 0:
            base_distribution = Independent(base_distribution, reinterpreted)
        self.base_dist = base_distribution
        change = transform.codomain.event_dim - transform.domain.event_dim
        event_dim = max(transform.codomain.event_dim, base_event_dim + change)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """As the base distribution."""
        return self.base_dist.has_rsample

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        """The last transform's codomain (over the whole event)."""
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) -
                                              support.event_dim)
        return support

    def expand(self, batch_shape: Any) -> TransformedDistribution:
        """The base distribution expanded under the same transforms."""
        new = super().expand(batch_shape)
        assert isinstance(new, TransformedDistribution)
        shape = tuple(batch_shape) + tuple(self.event_shape)
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        base_event = len(self.base_dist.event_shape)
        new.base_dist = self.base_dist.expand(shape[:len(shape) - base_event])
        return new

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """A base sample pushed through the transforms, without gradient."""
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x.detach()

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """A reparameterised base sample pushed through the transforms."""
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The base log-density at the pre-image minus the transforms' log-Jacobians."""
        self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(transform.log_abs_det_jacobian(x, y),
                                                 event_dim - transform.domain.event_dim)
            y = x
        return log_prob + _sum_rightmost(self.base_dist.log_prob(y),
                                         event_dim - len(self.base_dist.event_shape))

    def _monotonize_cdf(self, value: TensorBase) -> TensorBase:
        # a decreasing overall transform turns the base CDF into a survival function
        sign: Any = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        return sign * (value - 0.5) + 0.5

    def cdf(self, value: TensorBase) -> TensorBase:
        """The base CDF at the pre-image (flipped where the transforms decrease)."""
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:  # this distribution's flag decides, as PyTorch's
            self.base_dist._check_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: TensorBase) -> TensorBase:
        """The base inverse CDF pushed through the transforms."""
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value
