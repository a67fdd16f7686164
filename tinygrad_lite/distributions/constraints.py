"""``torch.distributions.constraints``: predicates on values (a distribution's parameters and its
support), named as PyTorch prints them. ``check(value)`` gives a bool tensor over the batch (the
event dims reduced); ``Constraint`` is the base class of user-defined ones.

Each built-in constraint carries a ``kind`` (the name of PyTorch's class for it, or a finer one)
and its bounds, which ``biject_to``/``transform_to`` read to pick a transform.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of, is_float_dtype
from ..functions.creation import tensor as _tensor

__all__ = [
    "Constraint", "boolean", "cat", "corr_cholesky", "dependent", "dependent_property",
    "greater_than", "greater_than_eq", "independent", "integer_interval", "interval",
    "half_open_interval", "is_dependent", "less_than", "lower_cholesky", "lower_triangular",
    "MixtureSameFamilyConstraint", "multinomial", "nonnegative", "nonnegative_integer",
    "one_hot", "positive", "positive_semidefinite", "positive_definite", "positive_integer",
    "real", "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval",
    "open_unit_interval",
]


def _array(value: Any) -> np.ndarray:
    """A value (tensor, array, number) as an array, to check."""
    return value._data if isinstance(value, TensorBase) else np.asarray(value)


class Constraint:
    """Base class of constraints: subclasses implement ``check(value)`` (a bool tensor, one
    entry per batch element) and may set ``is_discrete`` and ``event_dim``."""

    is_discrete = False
    event_dim = 0

    @property
    def kind(self) -> str:
        """The name ``biject_to``/``transform_to`` registrations are keyed on (the class's
        name, or a finer one a built-in constraint sets)."""
        return self.__dict__.get("_kind") or type(self).__name__

    def check(self, value: Any) -> TensorBase:
        """Whether each value satisfies the constraint."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Constraint(Constraint):
    """A built-in constraint: a predicate on arrays, with PyTorch's printed name."""

    def __init__(self, name: str, check: Any, is_discrete: bool = False, event_dim: int = 0,
                 kind: str = "", lower_bound: Any = None, upper_bound: Any = None) -> None:
        self.name, self._check, self.is_discrete = name, check, is_discrete
        self.event_dim, self._kind = event_dim, kind or name.split("(")[0]
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.base_constraint: Constraint | None = None  # set by independent()
        self.reinterpreted_batch_ndims = 0

    def check(self, value: Any) -> TensorBase:
        """Whether each value satisfies the constraint (over the batch: event dims reduced)."""
        return _tensor(self._check_array(_array(value)))

    def _check_array(self, a: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return np.asarray(self._check(a), dtype=bool)

    def __repr__(self) -> str:
        return self.name


class _Dependent(_Constraint):
    """A constraint that depends on other values (a support set by the parameters): it
    cannot be checked on its own."""

    def __init__(self, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
                 ) -> None:
        super().__init__("Dependent()", None, kind="Dependent")
        self._is_discrete, self._event_dim = is_discrete, event_dim

    @property
    def is_discrete(self) -> bool:
        """Unknown unless given."""
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @is_discrete.setter
    def is_discrete(self, value: bool) -> None:
        pass  # (the base initialiser's value: the one given here stands)

    @property
    def event_dim(self) -> int:
        """Unknown unless given."""
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    @event_dim.setter
    def event_dim(self, value: int) -> None:
        pass

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented
                 ) -> _Dependent:
        """The same constraint with ``is_discrete``/``event_dim`` known."""
        return _Dependent(self._is_discrete if is_discrete is NotImplemented else is_discrete,
                          self._event_dim if event_dim is NotImplemented else event_dim)

    def check(self, value: Any) -> TensorBase:
        """Raises: a dependent constraint has no values to check against."""
        raise ValueError("Cannot determine validity of dependent constraint")


class dependent_property(property, _Dependent):  # noqa: N801 - PyTorch's name
    """A property whose value is a constraint computed from the instance (a support that
    depends on the parameters); on the class it reads as a dependent constraint:
    ``@constraints.dependent_property(is_discrete=False, event_dim=0) def support(self): ...``.
    """

    def __init__(self, fn: Any = None, *, is_discrete: Any = NotImplemented,
                 event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete, event_dim)
        self.name = "DependentProperty()"

    def __call__(self, fn: Any) -> dependent_property:  # type: ignore[override]
        """Used as a decorator with arguments."""
        return dependent_property(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a dependent one (skipped when arguments are validated)."""
    return isinstance(constraint, _Dependent)


class _Composite(_Constraint):
    """``cat`` / ``stack``: one constraint per slice along ``dim``."""

    def __init__(self, kind: str, cseq: list, dim: int, lengths: list | None) -> None:
        self.cseq, self.dim, self.lengths = cseq, dim, lengths
        event_dim = max((c.event_dim for c in cseq), default=0)
        if lengths is None and dim + event_dim < 0:
            event_dim += 1  # a stack along a dim left of its parts' events adds that dim
        super().__init__(f"{kind}()", self._check_slices, any(c.is_discrete for c in cseq),
                         event_dim, kind=kind.lower())

    def _check_slices(self, a: np.ndarray) -> np.ndarray:
        if not -a.ndim <= self.dim < a.ndim:
            raise AssertionError(f"dim {self.dim} out of range for value with {a.ndim} "
                                 "dimensions")

        def part(c: Constraint, index: Any) -> np.ndarray:
            return _array(c.check(_tensor(np.take(a, index, axis=self.dim))))

        if self.lengths is None:  # stack: one constraint per index of dim (zipped, as PyTorch)
            return np.stack([part(c, i) for i, c in zip(range(a.shape[self.dim]), self.cseq)],
                            self.dim)
        parts, start = [], 0
        for c, length in zip(self.cseq, self.lengths):
            if start + length > a.shape[self.dim]:
                raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension "
                                   f"size ({a.shape[self.dim]}).")
            parts.append(part(c, np.arange(start, start + length)))
            start += length
        return np.concatenate(parts, self.dim)


def _matrices(a: np.ndarray) -> np.ndarray:
    """``a``, which a matrix constraint checks: refused below two dims, as PyTorch's tril."""
    if a.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return a


def _corr_cholesky_check(a: np.ndarray) -> np.ndarray:
    """Lower Cholesky factors with unit-norm rows (of correlation matrices)."""
    a = _matrices(a)
    dtype = a.dtype if is_float_dtype(a.dtype) else np.dtype(np.float64)
    tol = finfo_of(dtype).eps * a.shape[-1] * 10
    unit_rows = (np.abs(np.linalg.norm(a, axis=-1) - 1.0) <= tol).all(-1)
    return _lower_cholesky_check(a) & unit_rows


def _square_check(a: np.ndarray) -> np.ndarray:
    return np.full(a.shape[:-2], a.shape[-2] == a.shape[-1], bool)


def _symmetric_check(a: np.ndarray) -> np.ndarray:
    if a.shape[-2] != a.shape[-1]:
        return _square_check(a)
    return np.isclose(a, np.swapaxes(a, -1, -2), atol=1e-6).all((-2, -1))


def _definite_check(a: np.ndarray, strict: bool) -> np.ndarray:
    """Symmetric with positive (or nonnegative) eigenvalues; non-square matrices fail."""
    symmetric = _symmetric_check(a)
    if a.shape[-2] != a.shape[-1]:
        return symmetric
    eigenvalues = np.linalg.eigvalsh(a)
    return symmetric & np.all(eigenvalues > 0 if strict else eigenvalues >= 0, -1)


def _lower_triangular_check(a: np.ndarray) -> np.ndarray:
    # as PyTorch, ``tril(a) == a``: a NaN anywhere fails
    return np.all(np.tril(_matrices(a)) == a, (-2, -1))


def _lower_cholesky_check(a: np.ndarray) -> np.ndarray:
    return _lower_triangular_check(a) & np.all(np.diagonal(a, 0, -2, -1) > 0, -1)


def _bound(value: Any) -> Any:
    return value._data if isinstance(value, TensorBase) else value


real = _Constraint("Real()", lambda a: a == a)
dependent = _Dependent()
positive = _Constraint("GreaterThan(lower_bound=0.0)", lambda a: a > 0, kind="positive",
                       lower_bound=0.0)
nonnegative = _Constraint("GreaterThanEq(lower_bound=0.0)", lambda a: a >= 0, kind="positive",
                          lower_bound=0.0)
unit_interval = _Constraint("Interval(lower_bound=0.0, upper_bound=1.0)",
                            lambda a: (a >= 0) & (a <= 1), kind="unit_interval",
                            lower_bound=0.0, upper_bound=1.0)
open_unit_interval = _Constraint("OpenInterval(lower_bound=0.0, upper_bound=1.0)",
                                 lambda a: (a > 0) & (a < 1), kind="Interval",
                                 lower_bound=0.0, upper_bound=1.0)
boolean = _Constraint("Boolean()", lambda a: (a == 0) | (a == 1), True)
# (integers as PyTorch tests them, ``value % 1 == 0``: infinities are not integers)
nonnegative_integer = _Constraint("IntegerGreaterThan(lower_bound=0)",
                                  lambda a: (a >= 0) & (a % 1 == 0), True)
positive_integer = _Constraint("IntegerGreaterThan(lower_bound=1)",
                               lambda a: (a >= 1) & (a % 1 == 0), True)
simplex = _Constraint("Simplex()", lambda a: (a >= 0).all(-1) & (np.abs(a.sum(-1) - 1) < 1e-6),
                      event_dim=1)
one_hot = _Constraint("OneHot()", lambda a: ((a == 0) | (a == 1)).all(-1) & (a.sum(-1) == 1),
                      True, event_dim=1)
square = _Constraint("Square()", _square_check, event_dim=2)
symmetric = _Constraint("Symmetric()", _symmetric_check, event_dim=2)
positive_definite = _Constraint("PositiveDefinite()", lambda a: _definite_check(a, True),
                                event_dim=2)
positive_semidefinite = _Constraint("PositiveSemidefinite()",
                                    lambda a: _definite_check(a, False), event_dim=2)
lower_cholesky = _Constraint("LowerCholesky()", _lower_cholesky_check, event_dim=2)
lower_triangular = _Constraint("LowerTriangular()", _lower_triangular_check, event_dim=2)
corr_cholesky = _Constraint("CorrCholesky()", _corr_cholesky_check, event_dim=2)


def integer_interval(lower_bound: int, upper_bound: int) -> Constraint:
    """Integers in [lower_bound, upper_bound] (the bounds numbers or tensors)."""
    lo, hi = _bound(lower_bound), _bound(upper_bound)
    return _Constraint(f"IntegerInterval(lower_bound={lower_bound}, upper_bound={upper_bound})",
                       lambda a: (a >= lo) & (a <= hi) & (a % 1 == 0), True,
                       lower_bound=lower_bound, upper_bound=upper_bound)


def interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """Values in [lower_bound, upper_bound]."""
    lo, hi = _bound(lower_bound), _bound(upper_bound)
    return _Constraint(f"Interval(lower_bound={lower_bound}, upper_bound={upper_bound})",
                       lambda a: (a >= lo) & (a <= hi), lower_bound=lower_bound,
                       upper_bound=upper_bound)


def half_open_interval(lower_bound: Any, upper_bound: Any) -> Constraint:
    """Values in [lower_bound, upper_bound)."""
    lo, hi = _bound(lower_bound), _bound(upper_bound)
    return _Constraint(f"HalfOpenInterval(lower_bound={lower_bound}, "
                       f"upper_bound={upper_bound})", lambda a: (a >= lo) & (a < hi),
                       kind="Interval", lower_bound=lower_bound, upper_bound=upper_bound)


def greater_than(lower_bound: Any) -> Constraint:
    """Values above ``lower_bound``."""
    lo = _bound(lower_bound)
    return _Constraint(f"GreaterThan(lower_bound={lower_bound})", lambda a: a > lo,
                       lower_bound=lower_bound)


def greater_than_eq(lower_bound: Any) -> Constraint:
    """Values at or above ``lower_bound``."""
    lo = _bound(lower_bound)
    return _Constraint(f"GreaterThanEq(lower_bound={lower_bound})", lambda a: a >= lo,
                       kind="GreaterThan", lower_bound=lower_bound)


def less_than(upper_bound: Any) -> Constraint:
    """Values below ``upper_bound``."""
    hi = _bound(upper_bound)
    return _Constraint(f"LessThan(upper_bound={upper_bound})", lambda a: a < hi,
                       upper_bound=upper_bound)


def multinomial(upper_bound: int) -> Constraint:
    """Nonnegative integer vectors summing to at most ``upper_bound``."""
    # PyTorch's _Multinomial prints no bound
    return _Constraint("Multinomial()",
                       lambda a: (a >= 0).all(-1) & (a.sum(-1) <= upper_bound), True,
                       event_dim=1)


def cat(cseq: Any, dim: int = 0, lengths: Any = None) -> Constraint:
    """``cseq[i]`` on the i-th block (``lengths[i]`` long, 1 by default) along ``dim``."""
    cseq = _constraint_list(cseq)
    lengths = [1] * len(cseq) if lengths is None else list(lengths)
    if len(lengths) != len(cseq):
        raise AssertionError(f"lengths ({len(lengths)}) must match cseq ({len(cseq)})")
    return _Composite("Cat", cseq, dim, lengths)


def stack(cseq: Any, dim: int = 0) -> Constraint:
    """``cseq[i]`` on the i-th index along ``dim``."""
    return _Composite("Stack", _constraint_list(cseq), dim, None)


def _constraint_list(cseq: Any) -> list:
    cseq = list(cseq)
    if not all(isinstance(c, Constraint) for c in cseq):
        raise AssertionError("All elements of cseq must be Constraint instances")
    return cseq


def _check_base(base_constraint: Any) -> None:
    if not isinstance(base_constraint, Constraint):
        raise AssertionError(f"base_constraint must be a Constraint, got "
                             f"{type(base_constraint).__name__}")


def independent(base_constraint: Constraint, reinterpreted_batch_ndims: int) -> Constraint:
    """``base_constraint`` with its last ``reinterpreted_batch_ndims`` dims checked as one
    event."""
    n = reinterpreted_batch_ndims
    _check_base(base_constraint)
    if not isinstance(n, int):
        raise AssertionError(f"reinterpreted_batch_ndims must be an int, got {type(n).__name__}")
    if n < 0:
        raise AssertionError(f"reinterpreted_batch_ndims must be >= 0, got {n}")

    def check(a: np.ndarray) -> np.ndarray:
        if isinstance(base_constraint, _Constraint) and not is_dependent(base_constraint):
            ok = base_constraint._check_array(a)  # (a built-in one: no tensor round trip)
        else:
            ok = _array(base_constraint.check(_tensor(a)))
        if ok.ndim < n:
            raise ValueError(f"Expected value.dim() >= {base_constraint.event_dim + n} but "
                             f"got {a.ndim}")
        return np.asarray(ok.all(tuple(range(-n, 0)))) if n else ok
    out = _Constraint(f"IndependentConstraint({base_constraint!r}, {n})", check,
                      base_constraint.is_discrete, base_constraint.event_dim + n,
                      kind="independent")
    out.base_constraint, out.reinterpreted_batch_ndims = base_constraint, n
    return out


real_vector = independent(real, 1)


class MixtureSameFamilyConstraint(_Constraint):
    """The support of ``MixtureSameFamily``: the components' support, checked on a value
    broadcast against the component dim."""

    def __init__(self, base_constraint: Constraint) -> None:
        _check_base(base_constraint)
        super().__init__(f"MixtureSameFamilyConstraint({base_constraint!r})",
                         self._check_components, base_constraint.is_discrete,
                         base_constraint.event_dim, kind="MixtureSameFamilyConstraint")
        self.components = base_constraint
        self.base_constraint = base_constraint

    def _check_components(self, a: np.ndarray) -> np.ndarray:
        event_dim = self.event_dim
        ok = _array(self.components.check(_tensor(np.expand_dims(a, -1 - event_dim))))
        if a.ndim < event_dim:
            return ok
        kept = a.ndim - event_dim
        return np.asarray(ok.reshape(ok.shape[:kept] + (-1,)).all(-1))
