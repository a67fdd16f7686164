"""The ``Distribution`` base class and the parameter constraints it validates, as in
``torch.distributions``: shapes (``batch_shape``, ``event_shape``), ``sample`` (no gradient)
and ``rsample`` (reparameterised: gradients flow to the parameters), ``log_prob``, ``entropy``,
moments, and PyTorch's ValueErrors for invalid parameters or values outside the support."""

from __future__ import annotations

import copy
import math
from typing import Any

import numpy as np

from .._core.grad_mode import no_grad
from .._core.size import Size
from .._core.tensor_base import TensorBase
from ..dtypes import finfo_of, is_float_dtype
from ..functions.creation import tensor as _tensor
from ..tensor import Tensor

__all__ = ["Distribution", "constraints", "as_tensor_like", "broadcast_all"]


class _Constraint:
    """A predicate on values, named as PyTorch prints it."""

    def __init__(self, name: str, check: Any, is_discrete: bool = False, event_dim: int = 0,
                 kind: str = "", lower_bound: Any = None, upper_bound: Any = None) -> None:
        self.name, self._check, self.is_discrete = name, check, is_discrete
        # kind and bounds let biject_to/transform_to pick a transform (PyTorch keys on class)
        self.event_dim, self.kind = event_dim, kind or name.split("(")[0]
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.base_constraint: _Constraint | None = None  # set by constraints.independent
        self.reinterpreted_batch_ndims = 0

    def check(self, value: TensorBase) -> np.ndarray:
        """Whether each value satisfies the constraint (over the batch: event dims reduced)."""
        data = value._data if isinstance(value, TensorBase) else np.asarray(value)
        with np.errstate(invalid="ignore"):
            return np.asarray(self._check(data))

    def __repr__(self) -> str:
        return self.name


class _Composite(_Constraint):
    """``constraints.cat`` / ``constraints.stack``: one constraint per slice along ``dim``."""

    def __init__(self, kind: str, cseq: list, dim: int, lengths: list | None) -> None:
        self.cseq, self.dim, self.lengths = cseq, dim, lengths
        super().__init__(f"{kind}()", self._check_slices, any(c.is_discrete for c in cseq),
                         max((c.event_dim for c in cseq), default=0), kind=kind.lower())

    def _check_slices(self, a: np.ndarray) -> np.ndarray:
        if not -a.ndim <= self.dim < a.ndim:
            raise AssertionError(f"dim {self.dim} out of range for tensor with {a.ndim} "
                                 "dimensions")
        if self.lengths is None:  # stack: one constraint per index of dim
            return np.stack([np.asarray(c.check(np.take(a, i, axis=self.dim)))
                             for i, c in enumerate(self.cseq)], self.dim)
        parts, start = [], 0
        for c, length in zip(self.cseq, self.lengths):
            parts.append(np.asarray(c.check(np.take(a, np.arange(start, start + length),
                                                    axis=self.dim))))
            start += length
        return np.concatenate(parts, self.dim)


def _corr_cholesky_check(a: np.ndarray) -> np.ndarray:
    """Lower Cholesky factors with unit-norm rows (of correlation matrices)."""
    dtype = a.dtype if is_float_dtype(a.dtype) else np.dtype(np.float64)
    tol = finfo_of(dtype).eps * a.shape[-1] * 10
    unit_rows = (np.abs(np.linalg.norm(a, axis=-1) - 1.0) <= tol).all(-1)
    lower = np.all(np.triu(a, 1) == 0, (-2, -1)) & np.all(np.diagonal(a, 0, -2, -1) > 0, -1)
    return lower & unit_rows


class constraints:  # noqa: N801 - PyTorch's module name
    """The constraints the distributions use (``torch.distributions.constraints``)."""

    real = _Constraint("Real()", lambda a: a == a)
    dependent = _Constraint("Dependent()", lambda a: np.ones(np.shape(a), bool))
    positive = _Constraint("GreaterThan(lower_bound=0.0)", lambda a: a > 0, kind="positive",
                           lower_bound=0.0)
    nonnegative = _Constraint("GreaterThanEq(lower_bound=0.0)", lambda a: a >= 0,
                              kind="positive", lower_bound=0.0)
    unit_interval = _Constraint("Interval(lower_bound=0.0, upper_bound=1.0)",
                                lambda a: (a >= 0) & (a <= 1), kind="unit_interval",
                                lower_bound=0.0, upper_bound=1.0)
    boolean = _Constraint("Boolean()", lambda a: (a == 0) | (a == 1), True)
    nonnegative_integer = _Constraint("IntegerGreaterThan(lower_bound=0)",
                                      lambda a: (a >= 0) & (a == np.floor(a)), True)
    positive_integer = _Constraint("IntegerGreaterThan(lower_bound=1)",
                                   lambda a: (a >= 1) & (a == np.floor(a)), True)
    simplex = _Constraint("Simplex()", lambda a: (a >= 0).all(-1) & (np.abs(a.sum(-1) - 1)
                                                                       < 1e-6), event_dim=1)
    real_vector = _Constraint("IndependentConstraint(Real(), 1)", lambda a: (a == a).all(-1),
                              event_dim=1, kind="real_vector")
    positive_definite = _Constraint("PositiveDefinite()", lambda a: np.all(
        np.linalg.eigvalsh(a) > 0, -1), event_dim=2)
    lower_cholesky = _Constraint("LowerCholesky()", lambda a: np.all(
        (np.triu(a, 1) == 0) & True, (-2, -1)) & np.all(np.diagonal(a, 0, -2, -1) > 0, -1),
        event_dim=2)
    lower_triangular = _Constraint("LowerTriangular()", lambda a: np.all(
        np.triu(a, 1) == 0, (-2, -1)), event_dim=2)
    open_unit_interval = _Constraint("OpenInterval(lower_bound=0.0, upper_bound=1.0)",
                                     lambda a: (a > 0) & (a < 1), kind="Interval",
                                     lower_bound=0.0, upper_bound=1.0)

    @staticmethod
    def integer_interval(low: int, high: int) -> _Constraint:
        """Integers in [low, high]."""
        return _Constraint(f"IntegerInterval(lower_bound={low}, upper_bound={high})",
                           lambda a: (a >= low) & (a <= high) & (a == np.floor(a)), True)

    @staticmethod
    def interval(low: Any, high: Any) -> _Constraint:
        """Values in [low, high]."""
        lo = low._data if isinstance(low, TensorBase) else low
        hi = high._data if isinstance(high, TensorBase) else high
        return _Constraint(f"Interval(lower_bound={low}, upper_bound={high})",
                           lambda a: (a >= lo) & (a <= hi), lower_bound=low, upper_bound=high)

    @staticmethod
    def half_open_interval(low: Any, high: Any) -> _Constraint:
        """Values in [low, high)."""
        lo = low._data if isinstance(low, TensorBase) else low
        hi = high._data if isinstance(high, TensorBase) else high
        return _Constraint(f"HalfOpenInterval(lower_bound={low}, upper_bound={high})",
                           lambda a: (a >= lo) & (a < hi), kind="Interval", lower_bound=low,
                           upper_bound=high)

    @staticmethod
    def greater_than(low: Any) -> _Constraint:
        """Values above ``low``."""
        lo = low._data if isinstance(low, TensorBase) else low
        return _Constraint(f"GreaterThan(lower_bound={low})", lambda a: a > lo,
                           lower_bound=low)

    @staticmethod
    def greater_than_eq(low: Any) -> _Constraint:
        """Values at or above ``low``."""
        lo = low._data if isinstance(low, TensorBase) else low
        return _Constraint(f"GreaterThanEq(lower_bound={low})", lambda a: a >= lo,
                           kind="GreaterThan", lower_bound=low)

    @staticmethod
    def less_than(high: Any) -> _Constraint:
        """Values below ``high``."""
        hi = high._data if isinstance(high, TensorBase) else high
        return _Constraint(f"LessThan(upper_bound={high})", lambda a: a < hi,
                           upper_bound=high)

    corr_cholesky = _Constraint("CorrCholesky()", _corr_cholesky_check, event_dim=2)
    positive_semidefinite = _Constraint("PositiveSemidefinite()", lambda a: np.all(
        np.linalg.eigvalsh(a) >= 0, -1), event_dim=2)

    @staticmethod
    def cat(cseq: Any, dim: int = 0, lengths: Any = None) -> _Constraint:
        """``cseq[i]`` on the i-th block (``lengths[i]`` long, 1 by default) along ``dim``."""
        cseq = list(cseq)
        lengths = [1] * len(cseq) if lengths is None else list(lengths)
        if len(lengths) != len(cseq):
            raise AssertionError(f"lengths ({len(lengths)}) must match cseq ({len(cseq)})")
        return _Composite("Cat", cseq, dim, lengths)

    @staticmethod
    def stack(cseq: Any, dim: int = 0) -> _Constraint:
        """``cseq[i]`` on the i-th index along ``dim``."""
        return _Composite("Stack", list(cseq), dim, None)

    @staticmethod
    def independent(base: _Constraint, reinterpreted_batch_ndims: int) -> _Constraint:
        """``base`` with its last ``reinterpreted_batch_ndims`` dims checked as one event."""
        n = reinterpreted_batch_ndims

        def check(a: np.ndarray) -> np.ndarray:
            ok = np.asarray(base._check(a))
            return np.asarray(ok.all(tuple(range(-n, 0)))) if n and ok.ndim >= n else ok
        out = _Constraint(f"IndependentConstraint({base!r}, {n})", check, base.is_discrete,
                          base.event_dim + n, kind="independent")
        out.base_constraint, out.reinterpreted_batch_ndims = base, n
        return out


def as_tensor_like(value: Any, like: TensorBase | None = None) -> TensorBase:
    """``value`` as a tensor (numbers in ``like``'s dtype, or the default float dtype)."""
    if isinstance(value, TensorBase):
        return value
    dtype = like.dtype if like is not None and is_float_dtype(like._data.dtype) else None
    return _tensor(float(value) if not isinstance(value, (list, tuple, np.ndarray))
                   else value, dtype=dtype)


def broadcast_all(*values: Any) -> tuple:
    """The values as tensors broadcast to one shape (numbers take the tensors' dtype)."""
    like = next((v for v in values if isinstance(v, TensorBase)), None)
    ts = [as_tensor_like(v, like) for v in values]
    shape = np.broadcast_shapes(*(t.shape for t in ts))
    return tuple(t if t.shape == shape else t.expand(*shape) for t in ts)


class Distribution:
    """Base class: subclasses set ``arg_constraints`` and ``support`` and implement what they
    can of ``rsample``/``sample``, ``log_prob``, ``entropy``, ``mean``, ``variance``, ``mode``,
    ``cdf``, ``icdf``, ``expand``."""

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: dict[str, Any] = {}
    support: Any = None
    _validate_default = True

    def __init__(self, batch_shape: Any = (), event_shape: Any = (),
                 validate_args: bool | None = None) -> None:
        self._batch_shape, self._event_shape = Size(batch_shape), Size(event_shape)
        self._validate_args = Distribution._validate_default if validate_args is None \
            else validate_args
        if self._validate_args:
            for name, constraint in self.arg_constraints.items():
                value = self.__dict__.get(name)
                if not isinstance(value, TensorBase):
                    continue
                if not constraint.check(value).all():
                    raise ValueError(
                        f"Expected parameter {name} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {self!r} to satisfy the "
                        f"constraint {constraint!r}, but found invalid values:\n{value}")

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Whether new distributions check their arguments by default (True, as PyTorch)."""
        Distribution._validate_default = bool(value)

    @property
    def batch_shape(self) -> Size:
        """The shape of the batch of independent distributions."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of one sample of one distribution."""
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> tuple:
        return tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape)

    def sample(self, sample_shape: Any = ()) -> TensorBase:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with no_grad():
            return self.rsample(sample_shape).detach()

    def rsample(self, sample_shape: Any = ()) -> TensorBase:
        """A reparameterised sample: differentiable with respect to the parameters."""
        raise NotImplementedError(f"{type(self).__name__} has no rsample")

    def sample_n(self, n: int) -> TensorBase:
        """``sample((n,))`` (old name)."""
        return self.sample((n,))

    def log_prob(self, value: TensorBase) -> TensorBase:
        """The log of the density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: TensorBase) -> TensorBase:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: TensorBase) -> TensorBase:
        """The inverse of the cumulative distribution function."""
        raise NotImplementedError

    def entropy(self) -> TensorBase:
        """The entropy of each distribution of the batch."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> TensorBase:
        """Every value of a discrete support."""
        raise NotImplementedError

    def perplexity(self) -> TensorBase:
        """``exp(entropy)``."""
        return self.entropy().exp()

    @property
    def mean(self) -> TensorBase:
        """The mean."""
        raise NotImplementedError

    @property
    def mode(self) -> TensorBase:
        """The mode."""
        raise NotImplementedError

    @property
    def variance(self) -> TensorBase:
        """The variance."""
        raise NotImplementedError

    @property
    def stddev(self) -> TensorBase:
        """The standard deviation."""
        return self.variance.sqrt()

    def expand(self, batch_shape: Any) -> Distribution:
        """The same distribution over a larger ``batch_shape`` (its parameters broadcast)."""
        new = copy.copy(self)
        shape, old = tuple(batch_shape), len(self._batch_shape)
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if isinstance(value, TensorBase):
                new.__dict__[name] = value.expand(*shape, *value.shape[old:])
        new._batch_shape = Size(shape)
        return new

    def _validate_sample(self, value: TensorBase) -> None:
        if not self._validate_args or self.support is None:
            return
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        ok = self.support.check(value)
        if not np.all(ok):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support "
                             f"({self.support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self) -> str:
        parts = []
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if isinstance(value, TensorBase):
                shown = value.shape if value.numel() > 1 else value.item()
                parts.append(f"{name}: {shown}")
        return f"{type(self).__name__}({', '.join(parts)})"


LOG_2PI = math.log(2 * math.pi)
