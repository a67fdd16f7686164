"""In-place functions (``x.add_(y)``, ``x.relu_()``, ``x.sqrt_()``, ``x.resize_(4)``,
``x[i] = v`` ...): the out-of-place function computes the result and ``ops.inplace`` stores it
(version bump, leaf check, graph rebase). Bound as Tensor methods; ``tl.relu_`` and friends are
PyTorch's in-place functions. Most are made by ``stored`` from the out-of-place function that
declares ``inplace=True`` (see registry.py); the shape-changing ones (``x.t_()``, ``resize_``,
``as_strided_``) swap the tensor's array and refuse tensors that require grad."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from .._core.grad_mode import grad_state
from .._core.size import Size
from .._core.tensor_base import TensorBase, wrap
from ..ops import inplace
from ..ops.common import require_broadcastable_to
from ..ops.indexing import index_put
from .basic import add, exp, mul, neg, pow, relu, sub
from .indexing import masked_fill
from .mathops import float_power, polygamma
from .nan_reductions import div
from .pointwise import clamp
from .registry import public
from .scatters import as_strided

__all__ = ["add_", "sub_", "mul_", "div_", "pow_", "clamp_", "clip_", "relu_", "neg_", "exp_",
           "masked_fill_", "fill_", "zero_", "copy_", "setitem", "fill_diagonal_", "float_power_",
           "polygamma_", "conj_physical_", "resize_", "resize_as_", "as_strided_"]

# In-place functions return their input itself, so its type is kept.
_TensorT = TypeVar("_TensorT", bound=TensorBase)


def _scaled(other: Any, alpha: Any) -> Any:
    """``alpha * other`` for the in-place fast path (computed without recording)."""
    if alpha == 1:
        return other
    return wrap(other._data * alpha) if isinstance(other, TensorBase) else other * alpha


@public(function=False)
def add_(input: _TensorT, other: Any, *, alpha: Any = 1) -> _TensorT:
    """In place: ``input += alpha * other``."""
    return inplace.arith(input, "add_", np.add, _scaled(other, alpha),
                         lambda s: add(s, other, alpha=alpha))


@public(function=False)
def sub_(input: _TensorT, other: Any, *, alpha: Any = 1) -> _TensorT:
    """In place: ``input -= alpha * other``."""
    return inplace.arith(input, "sub_", np.subtract, _scaled(other, alpha),
                         lambda s: sub(s, other, alpha=alpha))


@public(function=False)
def mul_(input: _TensorT, other: Any) -> _TensorT:
    """In place: ``input *= other``."""
    return inplace.arith(input, "mul_", np.multiply, other, lambda s: mul(s, other))


@public(function=False)
def div_(input: _TensorT, other: Any, *, rounding_mode: str | None = None) -> _TensorT:
    """In place: ``input /= other`` (float tensors only, as the result is float; with a
    ``rounding_mode``, integer tensors too)."""
    if rounding_mode is not None:
        return inplace.apply(input, "div_", lambda s: div(s, other, rounding_mode=rounding_mode))
    return inplace.arith(input, "div_", np.divide, other, lambda s: div(s, other))


@public(function=False)
def pow_(input: _TensorT, exponent: Any) -> _TensorT:
    """In place: ``input **= exponent``."""
    return inplace.arith(input, "pow_", np.power, exponent, lambda s: pow(s, exponent))


def clamp_(input: _TensorT, min: Any = None, max: Any = None) -> _TensorT:  # noqa: A002
    """In place: limit to ``[min, max]``."""
    return inplace.apply(input, "clamp_", lambda s: clamp(s, min, max))


clip_ = clamp_


def relu_(input: _TensorT) -> _TensorT:
    """In place: ``max(input, 0)``."""
    return inplace.apply(input, "relu_", relu)


def neg_(input: _TensorT) -> _TensorT:
    """In place: ``-input``."""
    return inplace.apply(input, "neg_", neg)


def exp_(input: _TensorT) -> _TensorT:
    """In place: ``exp(input)``."""
    return inplace.apply(input, "exp_", exp)


@public(function=False)
def masked_fill_(input: _TensorT, mask: Any, value: Any) -> _TensorT:
    """In place: ``value`` where ``mask`` is true."""
    if isinstance(mask, TensorBase):
        require_broadcastable_to(mask._data.shape, input._data.shape, "masked_fill", "mask",
                                 "input")
    return inplace.apply(input, "masked_fill_", lambda s: masked_fill(s, mask, value))


def fill_(input: _TensorT, value: Any) -> _TensorT:
    """In place: every element set to ``value`` (a number or a 0-dim tensor)."""
    return inplace.fill(input, value, "fill_")


def zero_(input: _TensorT) -> _TensorT:
    """In place: every element set to 0."""
    return inplace.fill(input, 0, "zero_")


@public(function=False)
def copy_(input: _TensorT, src: Any) -> _TensorT:
    """In place: the values of ``src`` (broadcast, converted to this dtype)."""
    return inplace.copy(input, src)


@public(function=False, method=False)
def setitem(input: TensorBase, index: Any, value: Any) -> None:
    """``input[index] = value`` (``Tensor.__setitem__``)."""
    inplace.setitem(input, index, value)


@public(function=False)
def fill_diagonal_(input: TensorBase, fill_value: Any, wrap: bool = False) -> TensorBase:
    """In place: ``fill_value`` on the main diagonal (all dims equal beyond 2-D); ``wrap``:
    a tall matrix's diagonal starts again below each square block, as PyTorch's does."""
    shape = input._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if len(shape) > 2 and any(n != shape[0] for n in shape):
        raise RuntimeError("all dimensions of input must be of equal length")
    # PyTorch's strided view: one step along every dim at once, from the first element
    step = sum(int(np.prod(shape[k + 1:])) for k in range(len(shape)))
    count = min(shape[0], shape[1])
    if wrap and len(shape) == 2 and shape[0] > shape[1] + 1:
        count = -(-int(np.prod(shape)) // step)
    index = np.unravel_index(np.arange(count) * step, shape)
    return inplace.apply(input, "fill_diagonal_", lambda s: index_put(s, index, fill_value))


@public(function=False)
def float_power_(input: TensorBase, exponent: Any) -> TensorBase:
    """In place: ``input ** exponent`` computed in float64, so ``input`` must be float64."""
    if input._data.dtype != np.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {input.dtype} but the "
                           "operation's result requires dtype Double (float64); use "
                           "float_power or convert with .double() first")
    return inplace.apply(input, "float_power_", lambda s: float_power(s, exponent))


@public(function=False)
def polygamma_(input: TensorBase, n: int) -> TensorBase:
    """In place: ``polygamma(n, input)``."""
    return inplace.apply(input, "polygamma_", lambda s: polygamma(n, s))


def conj_physical_(input: TensorBase) -> TensorBase:
    """In place: the complex conjugate, which leaves a real tensor as it is."""
    return input


def _refuse_grad(input: TensorBase, op: str) -> None:
    if input._requires_grad:
        raise RuntimeError(f"{op}: cannot resize variables that require grad (shape "
                           f"{tuple(input.shape)}); use the out-of-place reshape/as_strided")


@public(function=False)
def resize_(input: TensorBase, *size: Any, memory_format: Any = None) -> TensorBase:
    """In place: this tensor takes shape ``size``, keeping its elements in row-major order as
    far as they go; new elements are uninitialised (zeros here)."""
    shape = tuple(int(n) for n in (size[0] if len(size) == 1 and isinstance(
        size[0], (tuple, list, Size)) else size))
    if any(n < 0 for n in shape):
        raise RuntimeError(f"resize_: Trying to create tensor with negative dimension: "
                           f"{list(shape)}")
    _refuse_grad(input, "resize_")
    data = input._data
    count = int(np.prod(shape, dtype=np.int64))
    if count == data.size:
        input._data = data.reshape(shape)
    else:
        new = np.zeros(count, data.dtype)
        keep = min(count, data.size)
        new[:keep] = data.reshape(-1)[:keep]
        input._data = new.reshape(shape)
    input._version_counter[0] += 1
    return input


def resize_as_(input: TensorBase, the_template: TensorBase, *,
               memory_format: Any = None) -> TensorBase:
    """In place: ``resize_`` to the shape of ``the_template``."""
    return resize_(input, tuple(the_template.shape))


def as_strided_(input: TensorBase, size: Any, stride: Any,
                storage_offset: int | None = None) -> TensorBase:
    """In place: this tensor becomes ``as_strided(size, stride, storage_offset)`` of itself
    (a tensor that requires grad is refused while grad mode is on)."""
    if grad_state.enabled and input._requires_grad:
        raise RuntimeError("as_strided_: changing the shape of a tensor that requires grad in "
                           "place is not supported; use the out-of-place as_strided")
    input._data = as_strided(input, size, stride, storage_offset)._data
    input._version_counter[0] += 1
    return input


def stored(name: str, fn: Callable) -> Callable:
    """The in-place variant ``name_`` of ``fn`` (declared ``inplace=True``): its result written
    into the tensor."""

    def method(input: Any, *args: Any, **kwargs: Any) -> Any:
        return inplace.apply(input, name + "_", lambda s: fn(s, *args, **kwargs))

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In place: ``{name}`` written into the tensor."
    return method


def reshaped(name: str, fn: Callable) -> Callable:
    """The in-place variant ``name_`` of the view ``fn`` (declared ``inplace="shape"``): the
    tensor itself takes the new shape (no values change)."""

    def method(input: Any, *args: Any, **kwargs: Any) -> Any:
        if not (grad_state.enabled and input._requires_grad):
            input._data = fn(input, *args, **kwargs)._data
            return input
        inplace.check_writable(input, name + "_")  # a leaf: PyTorch's in-place error
        if getattr(input, "_view_of", None) is not None:
            raise RuntimeError(f"{name}_: changing the shape of a view of a tensor that requires "
                               f"grad in place is not supported; use the out-of-place {name}")
        # the tensor becomes the view's result: its node (recorded from the tensor as it was)
        # replaces the tensor's, and the version moves on, so a backward that saved the old
        # shape reports the change, as PyTorch's
        result = fn(input, *args, **kwargs)
        input._data, input.grad_fn, input._output_nr = (result._data, result.grad_fn,
                                                        result._output_nr)
        input._version_counter[0] += 1
        return input

    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"In place: this tensor takes the shape ``{name}`` gives it."
    return method
