"""``Independent``: reinterpret some batch dims of a distribution as event dims (their
log-probabilities and entropies are summed)."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .distribution import Distribution

__all__ = ["Independent"]


class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dims as event
    dims."""

    arg_constraints: dict[str, Any] = {}

    def __init__(self, base_distribution: Distribution, reinterpreted_batch_ndims: int,
                 validate_args: bool | None = None) -> None:
        batch = tuple(base_distribution.batch_shape)
        if reinterpreted_batch_ndims > len(batch):
            raise ValueError(f"Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {reinterpreted_batch_ndims} vs {len(batch)}")
        self.base_dist, self.reinterpreted_batch_ndims = base_distribution, \
            reinterpreted_batch_ndims
        cut = len(batch) - reinterpreted_batch_ndims
        super().__init__(batch[:cut], batch[cut:] + tuple(base_distribution.event_shape),
                         validate_args=validate_args)

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        """As the base distribution."""
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        """As the base distribution, when no dim is reinterpreted."""
        return self.reinterpreted_batch_ndims == 0 and self.base_dist.has_enumerate_support

    @constraints.dependent_property
    def support(self) -> Any:
        """The base support, with the reinterpreted dims checked as one event."""
        support = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            support = constraints.independent(support, self.reinterpreted_batch_ndims)
        return support

    def expand(self, batch_shape: Any) -> Independent:
        """The base distribution expanded over ``batch_shape`` and the reinterpreted dims."""
        new = super().expand(batch_shape)
        assert isinstance(new, Independent)
        n = self.reinterpreted_batch_ndims
        new.base_dist = self.base_dist.expand(tuple(batch_shape) +
                                              tuple(self.event_shape[:n]))
        return new

    def _sum(self, value: TensorBase) -> TensorBase:
        n = self.reinterpreted_batch_ndims
        return value.sum(tuple(range(-n, 0))) if n else value

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """The base distribution's sample."""
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """The base distribution's reparameterised sample."""
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The base log-probabilities summed over the reinterpreted dims."""
        return self._sum(self.base_dist.log_prob(value))

    def entropy(self) -> TensorBase:
        """The base entropies summed over the reinterpreted dims."""
        return self._sum(self.base_dist.entropy())

    def enumerate_support(self, expand: bool = True) -> TensorBase:
        """The base distribution's, when no dim is reinterpreted."""
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    @property
    def mean(self) -> TensorBase:
        """The base mean."""
        return self.base_dist.mean

    @property
    def mode(self) -> TensorBase:
        """The base mode."""
        return self.base_dist.mode

    @property
    def variance(self) -> TensorBase:
        """The base variance."""
        return self.base_dist.variance

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
