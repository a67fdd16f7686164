"""The ``Distribution`` base class and the parameter constraints it validates, as in
``torch.distributions``: shapes (``batch_shape``, ``event_shape``), ``sample`` (no gradient)
and ``rsample`` (reparameterised: gradients flow to the parameters), ``log_prob``, ``entropy``,
moments, and PyTorch's ValueErrors for invalid parameters or values outside the support."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .._core.grad_mode import no_grad
from .._core.size import Size
from .._core.tensor_base import TensorBase
from .._core.warnings import warn
from ..dtypes import is_float_dtype
from ..functions.creation import tensor as _tensor
from ..ops.common import broadcast_mismatch
from ..tensor import Tensor
from . import constraints

__all__ = ["Distribution", "constraints", "as_tensor_like", "broadcast_all"]


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
    try:
        shape = np.broadcast_shapes(*(t.shape for t in ts))
    except ValueError:
        shape = ()
        for t in ts:  # the first mismatch named as PyTorch's broadcast does
            why = broadcast_mismatch(shape, tuple(t.shape))
            if why:
                raise RuntimeError(why[0].upper() + why[1:]) from None
            shape = np.broadcast_shapes(shape, tuple(t.shape))
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
            if self.arg_constraints is Distribution.arg_constraints:  # the subclass set none
                warn(f"{self.__class__} does not define `arg_constraints`. Please set "
                     "`arg_constraints = {}` or initialize the distribution with "
                     "`validate_args=False` to turn off validation.")
            for name, constraint in self.arg_constraints.items():
                value = self.__dict__.get(name)
                if value is None and isinstance(getattr(type(self), name, None), property):
                    # a parameter read from elsewhere (Chi2's df, HalfNormal's scale); as
                    # PyTorch, lazily computed ones (lazy_property) are not computed for this
                    value = getattr(self, name)
                if not isinstance(value, TensorBase) or constraints.is_dependent(constraint):
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
        raise NotImplementedError(f"{self.__class__} does not implement mode")

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
                if self.__dict__.get("_param") is value:  # the given of probs/logits
                    new.__dict__["_param"] = new.__dict__[name]
        new._batch_shape = Size(shape)
        return new

    def _validate_sample(self, value: TensorBase) -> None:
        if self._validate_args:
            self._check_sample(value)

    def _check_sample(self, value: TensorBase) -> None:
        """PyTorch's ``_validate_sample`` (whatever this distribution's ``validate_args``):
        ``value``'s shape against the batch and event shapes, then the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        actual, expected = Size(value.shape), self._batch_shape + self._event_shape
        if actual[len(actual) - len(self._event_shape):] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {actual} "
                             f"vs {self._event_shape}.")
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual} vs {expected}.")
        if self.support is None:  # a subclass that sets no support: nothing to check against
            warn(f"{self.__class__} does not define `support` to enable sample validation. "
                 "Please initialize the distribution with `validate_args=False` to turn off "
                 "validation.")
            return
        ok = self.support.check(value)
        if not np.all(ok):
            raise ValueError(f"Expected value argument ({type(value).__name__} of shape "
                             f"{tuple(value.shape)}) to be within the support "
                             f"({self.support!r}) of the distribution {self!r}, but found "
                             f"invalid values:\n{value}")

    def __repr__(self) -> str:
        # As PyTorch: the parameters held in the instance's ``__dict__`` (not those that are
        # properties), a one-element one as the tensor formats itself (a 0-d tensor as its
        # number, ``tensor([0.])`` otherwise), any other as its size.
        # A probs-or-logits family lists only the parameterisation it was given (PyTorch
        # computes the other lazily, so a fresh instance holds just that one).
        given = self.__dict__.get("_param")
        skip = {"probs", "logits"} if isinstance(given, TensorBase) else set()
        parts = []
        for name in self.arg_constraints:
            value = self.__dict__.get(name)
            if name in skip and value is not given:
                continue
            if isinstance(value, TensorBase):
                parts.append(f"{name}: {value if value.numel() == 1 else value.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"
