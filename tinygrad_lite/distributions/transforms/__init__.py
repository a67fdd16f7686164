"""``torch.distributions.transforms``: maps between constrained spaces, each with its inverse
and ``log |dy/dx|``, that TransformedDistribution builds densities from and
``biject_to``/``transform_to`` give for constraints. Grouped by family: the base class and
composition (``base``), elementwise maps (``elementwise``), maps onto the simplex
(``simplex``), onto structured matrices (``matrix``), of event shape (``shape``), and applied
piecewise along a dim (``stacking``)."""

from .base import ComposeTransform, Transform, identity_transform
from .elementwise import (
    AbsTransform,
    AffineTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
)
from .matrix import CorrCholeskyTransform, LowerCholeskyTransform, PositiveDefiniteTransform
from .shape import IndependentTransform, ReshapeTransform
from .simplex import SoftmaxTransform, StickBreakingTransform
from .stacking import CatTransform, StackTransform

__all__ = ["Transform", "ComposeTransform", "ExpTransform", "PowerTransform",
           "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform",
           "AffineTransform", "SoftmaxTransform", "StickBreakingTransform",
           "LowerCholeskyTransform", "ReshapeTransform", "IndependentTransform",
           "CumulativeDistributionTransform", "identity_transform", "CatTransform",
           "StackTransform", "CorrCholeskyTransform", "PositiveDefiniteTransform"]
