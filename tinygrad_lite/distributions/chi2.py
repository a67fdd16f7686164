"""``Chi2``: chi-squared with ``df`` degrees of freedom, Gamma(df / 2, 1 / 2), as
``torch.distributions.chi2``."""

from __future__ import annotations

from typing import Any

from .._core.tensor_base import TensorBase
from . import constraints
from .distribution import broadcast_all
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """Chi-squared with ``df`` degrees of freedom: Gamma(df / 2, 1 / 2)."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> TensorBase:
        """The degrees of freedom."""
        return self.concentration * 2

    def expand(self, batch_shape: Any) -> Chi2:
        """The same distribution over a larger batch."""
        return Chi2(self.df.expand(*batch_shape), validate_args=self._validate_args)
