"""``biject_to`` and ``transform_to``: from a constraint to a transform that maps the reals
onto it (for optimising constrained parameters unconstrained), as PyTorch's registries.
``biject_to`` gives bijections (stick breaking for the simplex); ``transform_to`` may give
cheaper non-injective ones (softmax, and lower Cholesky factors). Every transform of
``transforms`` that PyTorch registers is registered here, as PyTorch's registry does."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from . import constraints
from .transforms import (
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    SigmoidTransform,
    SoftmaxTransform,
    StackTransform,
    StickBreakingTransform,
    Transform,
    identity_transform,
)

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint kinds (the name PyTorch's constraint class has) to transform
    factories."""

    def __init__(self) -> None:
        self._registry: dict[str, Callable[[Any], Transform]] = {}

    def register(self, constraint: Any, factory: Callable[[Any], Transform] | None = None
                 ) -> Any:
        """Register ``factory(constraint) -> Transform`` for a kind of constraint: a
        ``Constraint`` subclass or instance (PyTorch's form) or a kind's name (usable as a
        decorator)."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, type) and issubclass(constraint, constraints.Constraint):
            kind = constraint.__name__
        elif isinstance(constraint, (str, constraints.Constraint)):
            kind = constraint if isinstance(constraint, str) else constraint.kind
        else:
            raise TypeError(f"Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[kind] = factory
        return factory

    def __call__(self, constraint: Any) -> Transform:
        """The registered transform for ``constraint``."""
        factory = self._registry.get(getattr(constraint, "kind", ""))
        if factory is None:
            raise NotImplementedError(f"Cannot transform {_class_name(constraint)} "
                                      "constraints")
        return factory(constraint)


def _class_name(constraint: Any) -> str:
    """The name of PyTorch's class for a constraint: a built-in one prints as ``_`` and its
    printed name (``_Boolean``, ``_IndependentConstraint``), any other as its class."""
    if type(constraint) is constraints._Constraint or isinstance(constraint,
                                                                 constraints._Dependent):
        return "_" + repr(constraint).split("(")[0]
    return type(constraint).__name__


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _interval(c: Any) -> Transform:
    lb, ub = c.lower_bound, c.upper_bound
    if isinstance(lb, (int, float)) and isinstance(ub, (int, float)) and lb == 0 and ub == 1:
        return SigmoidTransform()
    return ComposeTransform([SigmoidTransform(), AffineTransform(lb, ub - lb)])


def _independent(registry: ConstraintRegistry) -> Callable[[Any], Transform]:
    def build(c: Any) -> Transform:
        return IndependentTransform(registry(c.base_constraint), c.reinterpreted_batch_ndims)
    return build


for _registry in (biject_to, transform_to):
    _registry.register("Real", lambda c: identity_transform)
    # positive and nonnegative are greater_than(0) and greater_than_eq(0), whose later
    # registration in PyTorch's table wins: exp then a shift by 0, not exp alone
    _registry.register("positive", lambda c: ComposeTransform(
        [ExpTransform(), AffineTransform(c.lower_bound, 1)]))
    _registry.register("GreaterThan", lambda c: ComposeTransform(
        [ExpTransform(), AffineTransform(c.lower_bound, 1)]))
    _registry.register("LessThan", lambda c: ComposeTransform(
        [ExpTransform(), AffineTransform(c.upper_bound, -1)]))
    _registry.register("Interval", _interval)
    _registry.register("unit_interval", lambda c: SigmoidTransform())
    _registry.register("independent", _independent(_registry))
    _registry.register("CorrCholesky", lambda c: CorrCholeskyTransform())

biject_to.register("Simplex", lambda c: StickBreakingTransform())
transform_to.register("Simplex", lambda c: SoftmaxTransform())
transform_to.register("LowerCholesky", lambda c: LowerCholeskyTransform())
transform_to.register("PositiveDefinite", lambda c: PositiveDefiniteTransform())
transform_to.register("PositiveSemidefinite", lambda c: PositiveDefiniteTransform())
biject_to.register("cat", lambda c: CatTransform([biject_to(p) for p in c.cseq], c.dim,
                                                 c.lengths))
transform_to.register("cat", lambda c: CatTransform([transform_to(p) for p in c.cseq], c.dim,
                                                    c.lengths))
biject_to.register("stack", lambda c: StackTransform([biject_to(p) for p in c.cseq], c.dim))
transform_to.register("stack", lambda c: StackTransform([transform_to(p) for p in c.cseq],
                                                        c.dim))
